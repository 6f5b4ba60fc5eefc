# shellcheck shell=bash
# Shared helpers for scripts/images/*.sh (sourced, not executed).

# Repo root: two levels above this file.
KRMFN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KRMFN_CACHE="${KRMFN_CACHE:-$KRMFN_ROOT/.cache}"
# shellcheck disable=SC2034 # used by the scripts that source this file
KRMFN_BASE_IMAGE_LOCAL="localhost/krmfn-base:bookworm"

# This machine's architecture, as Debian and OCI name it (amd64, arm64).
host_arch() {
  if command -v dpkg >/dev/null 2>&1; then
    dpkg --print-architecture
  else
    case "$(uname -m)" in
      x86_64) echo amd64 ;;
      aarch64 | arm64) echo arm64 ;;
      *) uname -m ;;
    esac
  fi
}

# The local base image of an architecture: KRMFN_BASE_IMAGE_LOCAL for this
# machine's, with -<arch> appended for another.
base_image_local() {
  if [[ "$1" == "$(host_arch)" ]]; then
    printf '%s\n' "$KRMFN_BASE_IMAGE_LOCAL"
  else
    printf '%s\n' "$KRMFN_BASE_IMAGE_LOCAL-$1"
  fi
}

# The local name of a function image of an architecture: localhost/krmfn/<fn>:<tag>
# for this machine's, <tag>-<arch> for another (never pushed under that name:
# push-images.sh pushes manifest lists).
local_image() {
  local fn="$1" tag="$2" arch="${3:-$(host_arch)}"
  if [[ "$arch" == "$(host_arch)" ]]; then
    printf 'localhost/krmfn/%s:%s\n' "$fn" "$tag"
  else
    printf 'localhost/krmfn/%s:%s-%s\n' "$fn" "$tag" "$arch"
  fi
}

# The functions, from the registry (krmfn/registry.py, imported as
# krmfn.registry by the project's venv): one image each.
KRMFN_FUNCTIONS=()
KRMFN_SUMMARIES=()
load_functions() {
  local py="${KRMFN_PY:-$KRMFN_ROOT/.venv/bin/python}" name summary
  [[ -x "$py" ]] || die "$py not found; run make install"
  KRMFN_FUNCTIONS=()
  KRMFN_SUMMARIES=()
  while IFS=$'\t' read -r name summary; do
    KRMFN_FUNCTIONS+=("$name")
    KRMFN_SUMMARIES+=("$summary")
  done < <("$py" -c 'from krmfn.registry import FUNCTIONS
for f in FUNCTIONS: print(f.name, f.summary, sep="\t")') || true
  ((${#KRMFN_FUNCTIONS[@]})) || die "no functions from krmfn.registry (make install?)"
}

# The registry's one-line summary of a function (after load_functions).
function_summary() {
  local i
  for i in "${!KRMFN_FUNCTIONS[@]}"; do
    [[ "${KRMFN_FUNCTIONS[i]}" == "$1" ]] && { printf '%s\n' "${KRMFN_SUMMARIES[i]}"; return; }
  done
}

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


# Install Debian packages that are not installed yet (quiet; waits up to five
# minutes for another apt or dpkg run to finish; apt-get update only when the
# first try fails). Uses sudo when not root.
apt_install() {
  local missing=() pkg sudo=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
      || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get; install them by hand"
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "missing ${missing[*]}: not root and no sudo"
    sudo=(sudo)
  fi
  log "installing ${missing[*]}"
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)
  "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || { "${apt[@]}" update -qq >/dev/null &&
      "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } \
    || die "apt-get install ${missing[*]} failed"
}

# Every name of registry $1 in podman's store comes off: tags and digest names (an image
# pulled by digest shows as `$1/<repo> <none>`). An image goes when no other name is left on
# it; one with another name (localhost/krmfn/* that `make images` built, often the very image
# pulled back from the registry) keeps it, and the image. podman cannot untag a digest name:
# it stays on such an image, out of sight, until the image goes.
remove_registry_names() {
  local registry="$1" id names name ours others
  while read -r id names; do
    names="${names#[}"
    ours=() others=()
    for name in ${names%]}; do
      if [[ "$name" == "$registry/"* ]]; then ours+=("$name"); else others+=("$name"); fi
    done
    ((${#ours[@]})) || continue
    if ((${#others[@]})); then
      for name in "${ours[@]}"; do
        [[ "$name" == *@* ]] || podman untag "$id" "$name" >/dev/null 2>&1 || true
      done
    else
      podman rmi "$id" >/dev/null 2>&1 || podman rmi --force "$id" >/dev/null 2>&1 || true
    fi
  done < <(podman images --no-trunc --format '{{.ID}} {{.Names}}' 2>/dev/null | sort -u)
}
