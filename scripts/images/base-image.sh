#!/usr/bin/env bash
# Make the local base image of an architecture (Debian bookworm minbase +
# python3 + python3-venv, and what builds krmlib's C check: gcc, libc6-dev,
# python3-dev, libyaml-dev) when it does not exist yet:
#
#   base-image.sh [amd64|arm64]   # default: this machine's (dpkg --print-architecture)
#
# localhost/krmfn-base:bookworm for this machine's architecture,
# localhost/krmfn-base:bookworm-<arch> for another one (lib.sh base_image_local).
# A foreign architecture is made with `debootstrap --foreign --arch=<arch>`; its
# packages are then unpacked on the host (no maintainer scripts: the base is a
# build stage, slim_runtime.py copies the interpreter out of it) and the loader
# cache made under qemu (setup-qemu.sh registers the binfmt handler).
# KRMFN_BASE_SECOND_STAGE=1 runs debootstrap's full second stage under qemu
# instead (every maintainer script emulated: about ten times slower).
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
# The packages beside minbase: the interpreter the images run, and the compiler, headers and
# libyaml the wheel-build stage of Dockerfiles/Dockerfile builds krmlib's C check
# (krmlib._yaml.ccheck) with; libyaml-dev brings libyaml-0-2, whose libyaml-0.so.2
# slim_runtime.py copies into the runtime. A change of this list makes a new base: its
# digest is in the tarball's name and in the image's label dev.krmfn.base.
PACKAGES=python3,python3-venv,gcc,libc6-dev,python3-dev,libyaml-dev
BASE_KEY="$(printf '%s %s\n' "$SUITE" "$PACKAGES" | sha256sum | cut -c1-12)"
ARCH="${1:-$(host_arch)}"
case "$ARCH" in amd64 | arm64) ;; *) die "unknown architecture '$ARCH' (amd64 or arm64)" ;; esac
IMAGE="$(base_image_local "$ARCH")"
if [[ "$ARCH" == "$(host_arch)" ]]; then
  TARBALL="$KRMFN_CACHE/base/krmfn-base-$SUITE-$BASE_KEY.tar"
else
  TARBALL="$KRMFN_CACHE/base/krmfn-base-$SUITE-$ARCH-$BASE_KEY.tar"
fi
LOG="${TARBALL%.tar}.log"

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

platform=(--platform "linux/$ARCH")

# Check the base's Python is the one the wheelhouse is built for.
check_python() {
  local got
  got="$("$TOOL" run --rm --network none "${platform[@]}" "$IMAGE" \
    python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
    || die "cannot run python3 in $IMAGE"
  [[ "$got" == "$WANT_PY" ]] \
    || die "$IMAGE has Python $got, the wheelhouse needs $WANT_PY (cp${WANT_PY/./})"
  "$TOOL" run --rm --network none "${platform[@]}" "$IMAGE" python3 -c 'import venv, ensurepip' \
    || die "$IMAGE lacks venv/ensurepip (python3-venv)"
}

# An image made from another package list (an older base) is made again.
if image_exists "$IMAGE"; then
  got="$("$TOOL" image inspect --format '{{index .Config.Labels "dev.krmfn.base"}}' "$IMAGE" 2>/dev/null || true)"
  if [[ "$got" == "$BASE_KEY" ]]; then
    check_python
    exit 0
  fi
  log "$IMAGE is not made from the packages $PACKAGES (label dev.krmfn.base '$got', want $BASE_KEY): making it again"
  "$TOOL" rmi "$IMAGE" >/dev/null 2>&1 || "$TOOL" untag "$IMAGE" >/dev/null 2>&1 || true
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
  apt_install debootstrap debian-archive-keyring
  # Debian's keyring, also on a host of another distribution (a CI runner).
  keyring=()
  [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] \
    && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
  mirror="$(debian_mirror)"
  mkdir -p "$KRMFN_CACHE/base"
  rootfs="$(mktemp -d "$KRMFN_CACHE/base/rootfs.XXXXXX")"
  # A second stage may leave /proc and /sys mounted in the root: unmount them first.
  drop_rootfs() {
    local m
    for m in "$rootfs/proc" "$rootfs/sys"; do
      mountpoint -q "$m" 2>/dev/null && { umount "$m" || umount -l "$m"; }
    done
    rm -rf "$rootfs" "$TARBALL.tmp"
  }
  trap drop_rootfs EXIT
  if [[ "$ARCH" == "$(host_arch)" ]]; then
    log "debootstrap $SUITE from $mirror (about a minute)"
    debootstrap "${keyring[@]}" --variant=minbase --include="$PACKAGES" \
      "$SUITE" "$rootfs" "$mirror" >"$LOG" 2>&1 \
      || { tail -n 20 "$LOG" >&2; die "debootstrap failed (log: $LOG)"; }
  else
    [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 || "$ARCH" != arm64 ]] \
      || die "no qemu-aarch64 binfmt handler; run scripts/images/setup-qemu.sh"
    log "debootstrap --foreign --arch=$ARCH $SUITE from $mirror"
    debootstrap "${keyring[@]}" --foreign --arch="$ARCH" --variant=minbase --include="$PACKAGES" \
      "$SUITE" "$rootfs" "$mirror" >"$LOG" 2>&1 \
      || { tail -n 20 "$LOG" >&2; die "debootstrap --foreign failed (log: $LOG)"; }
    if [[ "${KRMFN_BASE_SECOND_STAGE:-0}" == 1 ]]; then
      # The full second stage: every maintainer script under qemu (10+ minutes on 2 busy cores).
      log "second stage under qemu"
      chroot "$rootfs" /debootstrap/debootstrap --second-stage >>"$LOG" 2>&1 \
        || { tail -n 20 "$LOG" >&2; die "debootstrap second stage failed (log: $LOG)"; }
    else
      # The base is a build stage only (slim_runtime.py copies the interpreter out of
      # it), so the packages' files are enough: unpack every downloaded package on
      # the host (native speed), give it the passwd/group files base-passwd's
      # maintainer script would write, and the loader cache (the one arm64 program
      # run here, under qemu).
      log "unpacking $(find "$rootfs/var/cache/apt/archives" -name '*.deb' | wc -l) packages on the host"
      for deb in "$rootfs"/var/cache/apt/archives/*.deb; do
        dpkg-deb -x "$deb" "$rootfs" || die "dpkg-deb -x $deb failed"
      done
      cp "$rootfs/usr/share/base-passwd/passwd.master" "$rootfs/etc/passwd"
      cp "$rootfs/usr/share/base-passwd/group.master" "$rootfs/etc/group"
      rm -rf "$rootfs/debootstrap" "$rootfs"/var/cache/apt/archives/*.deb
      chroot "$rootfs" /sbin/ldconfig >>"$LOG" 2>&1 || die "ldconfig under qemu failed (log: $LOG)"
    fi
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
  drop_rootfs
  trap - EXIT
fi

log "importing $TARBALL as $IMAGE"
import_args=(--arch "$ARCH" --os linux)
[[ "$TOOL" == podman ]] && import_args+=(--quiet)
[[ "$TOOL" == docker ]] && import_args=(--platform "linux/$ARCH")
"$TOOL" import "${import_args[@]}" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' \
  --change "LABEL dev.krmfn.base=$BASE_KEY" \
  "$TARBALL" "$IMAGE" >/dev/null
check_python
