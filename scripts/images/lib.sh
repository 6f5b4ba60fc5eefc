# shellcheck shell=bash
# Shared helpers for scripts/images/*.sh (sourced, not executed).

# Repo root: two levels above this file.
KRMFN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KRMFN_CACHE="${KRMFN_CACHE:-$KRMFN_ROOT/.cache}"
# shellcheck disable=SC2034 # used by the scripts that source this file
KRMFN_BASE_IMAGE_LOCAL="localhost/krmfn-base:bookworm"
# shellcheck disable=SC2034
KRMFN_FUNCTIONS=(interface-expander preparer merger topology-to-pvs applyset-labeler nad-generator)

log() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Print the container tool to use: docker when a docker engine answers,
# podman otherwise (empty when neither works). KRMFN_CONTAINER_TOOL overrides.
container_tool() {
  if [[ -n "${KRMFN_CONTAINER_TOOL:-}" ]]; then
    printf '%s\n' "$KRMFN_CONTAINER_TOOL"
  elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    printf 'docker\n'
  elif command -v podman >/dev/null 2>&1; then
    printf 'podman\n'
  fi
}

# The project version from pyproject.toml ([project] version).
project_version() {
  local py="${KRMFN_PY:-$KRMFN_ROOT/.venv/bin/python}"
  [[ -x "$py" ]] || py=python3
  "$py" - "$KRMFN_ROOT/pyproject.toml" <<'PYEOF'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print(tomllib.load(f)["project"]["version"])
PYEOF
}

# The image tags of this version, one a line, the full one (vX.Y.Z) first,
# then the moving vX.Y and vX for a release (scripts/images/image_tags.py).
image_tags() {
  local py="${KRMFN_PY:-$KRMFN_ROOT/.venv/bin/python}"
  [[ -x "$py" ]] || py=python3
  "$py" "$KRMFN_ROOT/scripts/images/image_tags.py" "$KRMFN_ROOT/pyproject.toml"
}

