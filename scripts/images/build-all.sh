#!/usr/bin/env bash
# The function images of the given architectures (default: this machine's):
#
#   build-all.sh [amd64] [arm64]
#
# For each: qemu set up when it is not this machine's (setup-qemu.sh), its base
# image (base-image.sh), its images (build-images.sh). Each step does nothing
# when its result is there (the base's tarball and podman's layer cache).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

here="$(dirname "${BASH_SOURCE[0]}")"
archs=("$@")
((${#archs[@]})) || archs=("$(host_arch)")
for arch in "${archs[@]}"; do
  case "$arch" in amd64 | arm64) ;; *) die "unknown architecture '$arch' (amd64 or arm64)" ;; esac
  t0=$SECONDS
  [[ "$arch" == "$(host_arch)" ]] || bash "$here/setup-qemu.sh"
  bash "$here/base-image.sh" "$arch"
  bash "$here/build-images.sh" "$arch"
  log "linux/$arch: $((SECONDS - t0)) s"
done
