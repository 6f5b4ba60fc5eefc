#!/usr/bin/env bash
# Make a local plain-HTTP registry usable by podman (and kpt through podman):
#
#   setup-registry.sh HOST:PORT           # mark it insecure (plain HTTP)
#   setup-registry.sh --remove HOST:PORT  # take that mark away again
#
# - installs Debian's docker-registry (the CNCF distribution registry) if missing;
#   it is started by the caller (e2e-registry.sh) with its own configuration, never
#   as a system service;
# - writes /etc/containers/registries.conf.d/90-krmfn-e2e-PORT.conf naming HOST:PORT
#   as an insecure registry: podman, and kpt's `podman pull`, then talk plain HTTP
#   to it without --tls-verify=false (kpt passes no such flag). One file per run
#   (its port), removed by the run's exit trap: two runs on one machine (two CI
#   clones) never take each other's mark away, and the marks do not pile up.
# Idempotent. Needs root (or sudo) for apt-get and /etc/containers.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage="usage: setup-registry.sh HOST:PORT | --remove HOST:PORT"
remove=0
if [[ "${1:-}" == --remove ]]; then
  remove=1
  shift
fi
(($# == 1)) || die "$usage"
[[ "$1" =~ ^[A-Za-z0-9.-]+:([0-9]+)$ ]] || die "want HOST:PORT, got '$1'"
SUDO=()
[[ $(id -u) -eq 0 ]] || SUDO=(sudo)
dropin="/etc/containers/registries.conf.d/90-krmfn-e2e-${BASH_REMATCH[1]}.conf"

if ((remove)); then
  "${SUDO[@]}" rm -f "$dropin"
  exit 0
fi

apt_install docker-registry
command -v docker-registry >/dev/null 2>&1 || die "docker-registry not on PATH after install"

want="# Written by krmfn scripts/images/setup-registry.sh for the image end-to-end:
# the registry it starts on loopback speaks plain HTTP.
[[registry]]
location = \"$1\"
insecure = true"
if [[ "$(cat "$dropin" 2>/dev/null)" != "$want" ]]; then
  "${SUDO[@]}" mkdir -p "$(dirname "$dropin")"
  printf '%s\n' "$want" | "${SUDO[@]}" tee "$dropin" >/dev/null
fi
