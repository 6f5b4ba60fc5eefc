#!/usr/bin/env bash
# Make this amd64 machine run linux/arm64 binaries: what the arm64 image builds
# (RUN steps of Dockerfiles/Dockerfile) and the arm64 end-to-end need.
#
# - installs Debian's qemu-user-static (static user-mode emulators) if missing;
# - mounts binfmt_misc on /proc/sys/fs/binfmt_misc if it is not mounted;
# - registers the qemu-aarch64 handler from the package's
#   /usr/lib/binfmt.d/qemu-aarch64.conf when it is not registered (the F flag
#   opens the emulator now, so it works inside containers and chroots that do
#   not hold it);
# - checks the handler is enabled, its emulator exists and it has the F flag
#   (base-image.sh then runs the arm64 base's python3 through it).
# Idempotent and quiet when there is nothing to do. Needs root (or sudo).
# Nothing to do on an arm64 host.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$(uname -m)" in
  aarch64 | arm64) exit 0 ;;
esac

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo (binfmt_misc needs root)"
  SUDO=(sudo)
fi

apt_install qemu-user-static

binfmt=/proc/sys/fs/binfmt_misc
if [[ ! -e "$binfmt/register" ]]; then
  "${SUDO[@]}" mount -t binfmt_misc binfmt_misc "$binfmt" \
    || die "cannot mount binfmt_misc on $binfmt (a privileged machine is needed)"
fi
[[ -e "$binfmt/status" && "$(cat "$binfmt/status")" == enabled ]] \
  || die "binfmt_misc is disabled ($binfmt/status)"

conf=/usr/lib/binfmt.d/qemu-aarch64.conf
handler="$binfmt/qemu-aarch64"
if [[ ! -e "$handler" ]]; then
  [[ -f "$conf" ]] || die "$conf missing (qemu-user-static too old?)"
  log "registering the qemu-aarch64 binfmt handler"
  # The kernel decodes the \x escapes itself: the line goes in as written.
  grep -v '^#' "$conf" | head -n 1 | tr -d '\n' | "${SUDO[@]}" tee "$binfmt/register" >/dev/null \
    || die "registering $conf in $binfmt/register failed"
fi
grep -qx enabled "$handler" || die "$handler is not enabled"
interpreter="$(sed -n 's/^interpreter //p' "$handler")"
[[ -x "$interpreter" ]] || die "$handler names $interpreter, which is missing"
grep -q '^flags: .*F' "$handler" \
  || log "warning: $handler lacks the F flag: containers will not find $interpreter"
