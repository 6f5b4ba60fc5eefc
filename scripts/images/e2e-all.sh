#!/usr/bin/env bash
# The whole image stage of CI (`make e2e-images`), from nothing or from the caches:
#
# 1. set-up: podman (setup-podman.sh) and qemu for arm64 (setup-qemu.sh);
# 2. the linux/arm64 base and images (build-all.sh arm64), in the background: under
#    qemu they take longest, and their downloads and the amd64 work overlap;
# 3. meanwhile the images of this machine (build-all.sh) and their end-to-end
#    (e2e-images.sh: image mode = exec mode, goldens, overhead);
# 4. once the arm64 images are there, the registry round trip and arm64 against amd64
#    (e2e-registry.sh; its `make push` finds every image built).
# Prints the time of each part and the total.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KRMFN_ROOT"
here=scripts/images
start=$SECONDS

bash "$here/setup-podman.sh"
[[ "$(host_arch)" == amd64 ]] && bash "$here/setup-qemu.sh"
others=()
for arch in amd64 arm64; do
  [[ "$arch" == "$(host_arch)" ]] || others+=("$arch")
done

mkdir -p "$KRMFN_CACHE/logs"
bg_log="$KRMFN_CACHE/logs/build-${others[*]// /-}.log"
bg_pid=""
if ((${#others[@]})); then
  bash "$here/build-all.sh" "${others[@]}" >"$bg_log" 2>&1 &
  bg_pid=$!
  trap 'if [[ -n "$bg_pid" ]]; then kill "$bg_pid" 2>/dev/null || true; fi' EXIT
  log "building ${others[*]} in the background (log: $bg_log)"
fi

t0=$SECONDS
bash "$here/build-all.sh"
bash "$here/e2e-images.sh" "$@"
log "$(host_arch) images and their end-to-end: $((SECONDS - t0)) s"

if [[ -n "$bg_pid" ]]; then
  t0=$SECONDS
  if ! wait "$bg_pid"; then
    bg_pid=""
    tail -n 40 "$bg_log" >&2
    die "building ${others[*]} failed (log: $bg_log)"
  fi
  bg_pid=""
  grep -E '^build-all.sh: ' "$bg_log" >&2 || true
  log "waited $((SECONDS - t0)) s more for ${others[*]}"
fi

bash "$here/e2e-registry.sh"
log "image stage: $((SECONDS - start)) s"
