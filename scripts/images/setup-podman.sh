#!/usr/bin/env bash
# Make a container tool usable on this machine.
#
# - If a docker engine answers (`docker info`), use it and do nothing else.
# - Otherwise install podman, buildah, runc and debootstrap (Debian packages)
#   and write the system-wide podman settings this kernel needs:
#   runc instead of crun (crun: "cgroups in hybrid mode not supported"),
#   cgroupfs, and default ulimits that need no raising (setrlimit EPERM).
# Idempotent and quiet when there is nothing to do.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [[ -z "${KRMFN_CONTAINER_TOOL:-}" ]] && command -v docker >/dev/null 2>&1 \
    && docker info >/dev/null 2>&1; then
  exit 0
fi
if [[ "${KRMFN_CONTAINER_TOOL:-podman}" == docker ]]; then
  docker info >/dev/null || die "KRMFN_CONTAINER_TOOL=docker but docker info fails"
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo"
  SUDO=(sudo)
fi

apt_install podman buildah runc debootstrap

conf=/etc/containers/containers.conf
want='# Written by krmfn scripts/images/setup-podman.sh.
# crun fails on this kernel ("cgroups in hybrid mode not supported"),
# and the default rlimits cannot be raised (setrlimit: Operation not permitted).
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"'

conf_ok() {
  [[ -f "$conf" ]] || return 1
  grep -Eq '^[[:space:]]*runtime[[:space:]]*=[[:space:]]*"runc"' "$conf" &&
    grep -Eq '^[[:space:]]*cgroup_manager[[:space:]]*=[[:space:]]*"cgroupfs"' "$conf" &&
    grep -Eq '^[[:space:]]*default_ulimits[[:space:]]*=.*nofile=1024:1024' "$conf" &&
    grep -Eq '^[[:space:]]*default_ulimits[[:space:]]*=.*nproc=4096:4096' "$conf"
}

if ! conf_ok; then
  if [[ -s "$conf" ]]; then
    "${SUDO[@]}" cp -p "$conf" "$conf.krmfn-backup"
    log "replacing $conf (old copy: $conf.krmfn-backup)"
  else
    log "writing $conf"
  fi
  "${SUDO[@]}" mkdir -p /etc/containers
  printf '%s\n' "$want" | "${SUDO[@]}" tee "$conf" >/dev/null
fi

podman info >/dev/null 2>&1 || die "podman info fails after setup"
