#!/usr/bin/env bash
# Make the local base image localhost/krmfn-base:bookworm (Debian bookworm
# minbase + python3 + python3-venv) when it does not exist yet.
#
# No public base image can be pulled on our machines, so the base is made with
# debootstrap from the Debian mirror apt is configured with and imported with
# `podman import` (or `docker import`). The root filesystem tarball is cached
# under .cache/base/ so a later run (or a wiped image store) only re-imports.
#
# Skipped when KRMFN_BASE_IMAGE is set (build-images.sh then uses that base).
# Env: KRMFN_DEBIAN_MIRROR overrides the mirror; KRMFN_CONTAINER_TOOL the tool.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SUITE=bookworm
WANT_PY=3.11 # Python of bookworm; the wheelhouse is built for cp311.
IMAGE="$KRMFN_BASE_IMAGE_LOCAL"
TARBALL="$KRMFN_CACHE/base/krmfn-base-$SUITE.tar"

if [[ -n "${KRMFN_BASE_IMAGE:-}" ]]; then
  exit 0
fi

TOOL="$(container_tool)"
[[ -n "$TOOL" ]] || die "no container tool; run scripts/images/setup-podman.sh"

image_exists() {
  if [[ "$TOOL" == podman ]]; then
    podman image exists "$1"
  else
    "$TOOL" image inspect "$1" >/dev/null 2>&1
  fi
}

# Check the base's Python is the one the wheelhouse is built for.
check_python() {
  local got
  got="$("$TOOL" run --rm --network none "$IMAGE" \
    python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
    || die "cannot run python3 in $IMAGE"
  [[ "$got" == "$WANT_PY" ]] \
    || die "$IMAGE has Python $got, the wheelhouse needs $WANT_PY (cp${WANT_PY/./})"
  "$TOOL" run --rm --network none "$IMAGE" python3 -c 'import venv, ensurepip' \
    || die "$IMAGE lacks venv/ensurepip (python3-venv)"
}

if image_exists "$IMAGE"; then
  check_python
  exit 0
fi

# The Debian mirror apt is configured with, for $SUITE (deb822 or one-line).
debian_mirror() {
  if [[ -n "${KRMFN_DEBIAN_MIRROR:-}" ]]; then
    printf '%s\n' "$KRMFN_DEBIAN_MIRROR"
    return
  fi
  local f uri=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    uri="$(awk -v suite="$SUITE" '
      function flush() {
        if (deb && hit && uri != "" && found == "") found = uri
        deb = 0; hit = 0; uri = ""
      }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) hit = 1 }
      END { flush(); if (found != "") print found }
    ' "$f")"
    [[ -n "$uri" ]] && break
  done
  if [[ -z "$uri" ]]; then
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -f "$f" ]] || continue
      uri="$(awk -v suite="$SUITE" '
        $1 == "deb" {
          i = 2
          if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
          if ($(i + 1) == suite) { print $i; exit }
        }' "$f")"
      [[ -n "$uri" ]] && break
    done
  fi
  printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

if [[ ! -s "$TARBALL" ]]; then
  [[ $(id -u) -eq 0 ]] || die "debootstrap needs root"
  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null \
      || { apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  fi
  mirror="$(debian_mirror)"
  mkdir -p "$KRMFN_CACHE/base"
  rootfs="$(mktemp -d "$KRMFN_CACHE/base/rootfs.XXXXXX")"
  trap 'rm -rf "$rootfs" "$TARBALL.tmp"' EXIT
  log "debootstrap $SUITE from $mirror (about a minute)"
  if ! debootstrap --variant=minbase --include=python3,python3-venv \
      "$SUITE" "$rootfs" "$mirror" >"$KRMFN_CACHE/base/debootstrap.log" 2>&1; then
    tail -n 20 "$KRMFN_CACHE/base/debootstrap.log" >&2
    die "debootstrap failed (log: $KRMFN_CACHE/base/debootstrap.log)"
  fi
  # Trim what a function image never needs.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* \
    "$rootfs"/var/cache/debconf/*-old "$rootfs"/var/log/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/tmp/* "$rootfs"/root/.cache
  tar --numeric-owner --xattrs -C "$rootfs" \
    --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
    -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
  rm -rf "$rootfs"
  trap - EXIT
fi

log "importing $TARBALL as $IMAGE"
quiet=(); [[ "$TOOL" == podman ]] && quiet=(--quiet)
"$TOOL" import "${quiet[@]}" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' \
  "$TARBALL" "$IMAGE" >/dev/null
check_python
