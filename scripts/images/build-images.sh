#!/usr/bin/env bash
# Build the five function images localhost/krmfn/<function>:<version>.
#
# 1. A wheelhouse on the host (.cache/wheelhouse): the krmfn wheel and the
#    wheels of its runtime dependencies, pinned by constraints.txt, for the
#    image's Python (cp311, manylinux, this machine's architecture). The image
#    build installs from it with --no-index: no index is reached in a build.
# 2. One image per function from Dockerfiles/Dockerfile, with podman or docker
#    (whichever works; KRMFN_CONTAINER_TOOL overrides). Base image:
#    KRMFN_BASE_IMAGE if set, else localhost/krmfn-base:bookworm if it exists
#    (made by base-image.sh), else the Dockerfile's default (python:3.11-slim).
# 3. A table of image sizes, printed and written to Dockerfiles/SIZES.md.
#
# The tag is the project's version from pyproject.toml (semver, never latest).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KRMFN_ROOT"

VENV="${VENV:-.venv}"
PIP="${KRMFN_PIP:-$VENV/bin/pip}"
WHEELHOUSE="$KRMFN_CACHE/wheelhouse"
IMAGE_PY=3.11
LOGDIR="$KRMFN_CACHE/logs"

TOOL="$(container_tool)"
[[ -n "$TOOL" ]] || die "no container tool; run scripts/images/setup-podman.sh"
[[ -x "$PIP" ]] || die "$PIP not found; run make install"
[[ -f constraints.txt ]] || die "constraints.txt not found"

VERSION="$(project_version)"
[[ "$VERSION" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]] \
  || die "version '$VERSION' in pyproject.toml is not semver"
TAG="${VERSION//+/_}" # '+' is not allowed in an image tag

mkdir -p "$WHEELHOUSE" "$LOGDIR"
start=$SECONDS

# --- wheelhouse -------------------------------------------------------------
# The project itself (pure Python). Fixed zip timestamps make the wheel
# byte-identical while the sources are, so the image builds hit the layer
# cache; it replaces the wheelhouse's krmfn wheel(s) only when it differs.
newwheel="$(mktemp -d "$KRMFN_CACHE/wheel.XXXXXX")"
trap 'rm -rf "$newwheel"' EXIT
rm -rf build # setuptools' staging folder, stale files would end up in the wheel
# Without build isolation when the venv has the build backend (no network),
# else with it.
wheel=(env SOURCE_DATE_EPOCH=315532800 "$PIP" wheel --quiet --disable-pip-version-check
  --no-deps -w "$newwheel" .)
if ! "${wheel[@]}" --no-build-isolation >"$LOGDIR/wheel-krmfn.log" 2>&1; then
  "${wheel[@]}" >>"$LOGDIR/wheel-krmfn.log" 2>&1 \
    || { tail -n 30 "$LOGDIR/wheel-krmfn.log" >&2; die "pip wheel . failed"; }
fi
rm -rf build
shopt -s nullglob
krmfn_wheels=("$newwheel"/krmfn-*.whl)
shopt -u nullglob
((${#krmfn_wheels[@]} == 1)) || die "pip wheel . made no krmfn wheel"
krmfn_wheel="$WHEELHOUSE/$(basename "${krmfn_wheels[0]}")"
if ! cmp -s "${krmfn_wheels[0]}" "$krmfn_wheel"; then
  find "$WHEELHOUSE" -maxdepth 1 -name 'krmfn-*.whl' -delete
  mv "${krmfn_wheels[0]}" "$krmfn_wheel"
fi
rm -rf "$newwheel"
trap - EXIT

# Runtime dependencies for cp311 manylinux on this architecture, resolved from
# the krmfn wheel's metadata with the pins of constraints.txt. The wheelhouse
# alone is tried first, so a second run needs no network.
arch="$(uname -m)"
platform_args=()
for p in manylinux_2_36 manylinux_2_34 manylinux_2_31 manylinux_2_28 \
    manylinux_2_17 manylinux2014 manylinux_2_12 manylinux2010 manylinux_2_5 manylinux1; do
  platform_args+=(--platform "${p}_${arch}")
done
download=("$PIP" download --quiet --disable-pip-version-check --no-cache-dir
  --only-binary=:all: --implementation cp --python-version "$IMAGE_PY"
  --abi "cp${IMAGE_PY/./}" --abi abi3 --abi none "${platform_args[@]}"
  -c constraints.txt -d "$WHEELHOUSE" "$krmfn_wheel")
if ! "${download[@]}" --no-index --find-links "$WHEELHOUSE" \
    >"$LOGDIR/download.log" 2>&1; then
  log "downloading runtime wheels (cp${IMAGE_PY/./}, $arch)"
  "${download[@]}" >"$LOGDIR/download.log" 2>&1 \
    || { tail -n 30 "$LOGDIR/download.log" >&2; die "pip download failed"; }
fi

# --- images -----------------------------------------------------------------
base_args=()
base_desc="python:3.11-slim (Dockerfile default)"
if [[ -n "${KRMFN_BASE_IMAGE:-}" ]]; then
  base_args=(--build-arg "BASE_IMAGE=$KRMFN_BASE_IMAGE")
  base_desc="$KRMFN_BASE_IMAGE"
elif "$TOOL" image inspect "$KRMFN_BASE_IMAGE_LOCAL" >/dev/null 2>&1; then
  base_args=(--build-arg "BASE_IMAGE=$KRMFN_BASE_IMAGE_LOCAL")
  base_desc="$KRMFN_BASE_IMAGE_LOCAL"
fi

build_args=()
if [[ "$TOOL" == podman ]]; then
  build_args+=(--layers)
  # The local base exists only here: never look for it in a registry.
  [[ "$base_desc" == "$KRMFN_BASE_IMAGE_LOCAL" ]] && build_args+=(--pull=never)
fi

images=()
for fn in "${KRMFN_FUNCTIONS[@]}"; do
  image="localhost/krmfn/$fn:$TAG"
  t0=$SECONDS
  old_id="$("$TOOL" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  if ! "$TOOL" build "${build_args[@]}" "${base_args[@]}" \
      --build-arg "FUNCTION=$fn" --build-arg "VERSION=$VERSION" \
      -f Dockerfiles/Dockerfile -t "$image" "$WHEELHOUSE" \
      >"$LOGDIR/build-$fn.log" 2>&1; then
    tail -n 40 "$LOGDIR/build-$fn.log" >&2
    die "building $image failed (log: $LOGDIR/build-$fn.log)"
  fi
  new_id="$("$TOOL" image inspect --format '{{.Id}}' "$image")"
  if [[ "$new_id" != "$old_id" ]]; then
    # The image this tag named before is now dangling: remove it (only it).
    [[ -n "$old_id" ]] && { "$TOOL" rmi "$old_id" >/dev/null 2>&1 || true; }
    log "built $image ($((SECONDS - t0)) s)"
  fi
  images+=("$image")
done

# --- sizes ------------------------------------------------------------------
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }'; }
size_of() { "$TOOL" image inspect --format '{{.Size}}' "$1"; }

base_size=""
if [[ ${#base_args[@]} -gt 0 ]]; then
  base_size="$(size_of "${base_args[1]#BASE_IMAGE=}" 2>/dev/null || true)"
fi
table="| image | size | over the base |
| --- | ---: | ---: |"
for image in "${images[@]}"; do
  s="$(size_of "$image")"
  over="n/a"
  [[ -n "$base_size" ]] && over="$(mb $((s - base_size)))"
  table+=$'\n'"| \`$image\` | $(mb "$s") | $over |"
done

sizes_md="# Image sizes

Written by \`scripts/images/build-images.sh\` (\`make images\`); sizes as \`$TOOL image inspect\`
reports them (uncompressed, base included). Base image: \`$base_desc\`${base_size:+, $(mb "$base_size")}.
The five images share every layer but their metadata, so together they take about one
image's space; \"over the base\" is the krmfn virtual environment (krmfn, ruamel.yaml,
pydantic, pydantic-core, PyYAML, jsonpatch and their dependencies, with bytecode).

$table"
if [[ "$(cat Dockerfiles/SIZES.md 2>/dev/null)" != "$sizes_md" ]]; then
  printf '%s\n' "$sizes_md" >Dockerfiles/SIZES.md
fi

printf '%s\n' "$table"
log "$TOOL built ${#images[@]} images in $((SECONDS - start)) s (base: $base_desc)"
