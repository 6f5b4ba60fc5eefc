#!/usr/bin/env bash
# Stand-in for podman/docker on kpt's PATH during make e2e-images: every
# `run` gets a cluster function runner's constraints instead of kpt's own
# (--network none --user nobody): a read-only root without the tmpfs podman
# adds by default, no network, uid/gid 65532 (in no file of the image's but
# /etc/passwd's nonroot), every capability dropped, no privilege gain.
# Other subcommands (version, image inspect, pull) pass through unchanged.
# Env: KRMFN_REAL_TOOL (absolute path of podman or docker), set by the e2e.
set -euo pipefail
real="${KRMFN_REAL_TOOL:?KRMFN_REAL_TOOL must name the real podman or docker}"
if [[ "${1:-}" != run ]]; then
  exec "$real" "$@"
fi
shift
args=()
while (($#)); do
  case "$1" in
    --user | -u | --network | --net) shift 2 ;;
    --user=* | --network=* | --net=*) shift ;;
    *) args+=("$1"); shift ;;
  esac
done
flags=(--read-only --network=none --user=65532:65532 --cap-drop=ALL
  --security-opt=no-new-privileges)
[[ "$(basename "$real")" == podman ]] && flags+=(--read-only-tmpfs=false)
printf '%s\n' "run ${flags[*]} ${args[*]}" >>"${KRMFN_SHIM_LOG:-/dev/null}"
exec "$real" run "${flags[@]}" "${args[@]}"
