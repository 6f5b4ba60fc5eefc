#!/usr/bin/env bash
# Build the five function images localhost/krmfn/<function>:vX.Y.Z (+ vX.Y, vX).
#
# 1. A wheelhouse on the host (.cache/wheelhouse): the krmfn wheel and the
#    wheels of its runtime dependencies, pinned by constraints.txt, for the
#    image's Python (cp311, manylinux, this machine's architecture). The image
#    build installs from it with --no-index: no index is reached in a build.
# 2. The build context .cache/image-context: wheels/ (hard links into the
#    wheelhouse), Dockerfiles/slim_runtime.py and Dockerfiles/check_imports.py.
# 3. One image per function: the target of that name in Dockerfiles/Dockerfile,
#    with podman or docker (whichever works; KRMFN_CONTAINER_TOOL overrides).
#    Base image: KRMFN_BASE_IMAGE if set, else localhost/krmfn-base:bookworm
#    (made by base-image.sh). The targets share the runtime and app layers, so
#    the second to fifth builds only add their metadata.
# 4. Tags from the version in pyproject.toml (scripts/images/image_tags.py):
#    vX.Y.Z, and the moving vX.Y and vX for a release; never latest.
# 5. Sizes: each image must be at most KRMFN_IMAGE_MAX_MB (80) MB; the table
#    (sizes, layers shared) goes to the "sizes" section of Dockerfiles/SIZES.md.
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
mapfile -t TAGS < <(image_tags) || true
((${#TAGS[@]})) || die "no image tags for version '$VERSION' (see above)"
TAG="${TAGS[0]}"
MAX_MB="${KRMFN_IMAGE_MAX_MB:-80}"

mkdir -p "$WHEELHOUSE" "$LOGDIR"
start=$SECONDS

# --- wheelhouse -------------------------------------------------------------
# The project itself (pure Python). Fixed zip timestamps make the wheel
# byte-identical while the sources are, so the image builds hit the layer
# cache; it replaces the wheelhouse's krmfn wheel(s) only when it differs.
# The wheel is built from a copy of the sources: setuptools stages under
# build/, where the project's editable install (make install, strict mode)
# keeps its link tree, and stale staged files would end up in the wheel.
newwheel="$(mktemp -d "$KRMFN_CACHE/wheel.XXXXXX")"
trap 'rm -rf "$newwheel"' EXIT
mkdir -p "$newwheel/src" "$newwheel/out"
tar -C "$KRMFN_ROOT" --exclude=./.git --exclude=./.venv --exclude=./.cache --exclude=./build \
  --exclude='*.egg-info' --exclude=__pycache__ -cf - . | tar -C "$newwheel/src" -xf -
# Without build isolation when the venv has the build backend (no network),
# else with it.
wheel=(env SOURCE_DATE_EPOCH=315532800 "$PIP" wheel --quiet --disable-pip-version-check
  --no-deps -w "$newwheel/out" "$newwheel/src/sdk" "$newwheel/src")
if ! "${wheel[@]}" --no-build-isolation >"$LOGDIR/wheel-krmfn.log" 2>&1; then
  "${wheel[@]}" >>"$LOGDIR/wheel-krmfn.log" 2>&1 \
    || { tail -n 30 "$LOGDIR/wheel-krmfn.log" >&2; die "pip wheel . failed"; }
fi
# Two distributions: krmlib (sdk/pyproject.toml) and krmfn, which depends on it.
for dist in krmlib krmfn; do
  shopt -s nullglob
  built=("$newwheel"/out/$dist-*.whl)
  shopt -u nullglob
  ((${#built[@]} == 1)) || die "pip wheel made no $dist wheel"
  kept="$WHEELHOUSE/$(basename "${built[0]}")"
  if ! cmp -s "${built[0]}" "$kept"; then
    find "$WHEELHOUSE" -maxdepth 1 -name "$dist-*.whl" -delete
    mv "${built[0]}" "$kept"
  fi
  [[ $dist == krmfn ]] && krmfn_wheel=$kept
done
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
  -c constraints.txt --find-links "$WHEELHOUSE" -d "$WHEELHOUSE" "$krmfn_wheel")
if ! "${download[@]}" --no-index --find-links "$WHEELHOUSE" \
    >"$LOGDIR/download.log" 2>&1; then
  log "downloading runtime wheels (cp${IMAGE_PY/./}, $arch)"
  "${download[@]}" >"$LOGDIR/download.log" 2>&1 \
    || { tail -n 30 "$LOGDIR/download.log" >&2; die "pip download failed"; }
fi

# --- build context ------------------------------------------------------------
context="$KRMFN_CACHE/image-context"
rm -rf "$context"
mkdir -p "$context/wheels"
for whl in "$WHEELHOUSE"/*.whl; do
  ln "$whl" "$context/wheels/" 2>/dev/null || cp -p "$whl" "$context/wheels/"
done
# Fixed times: the layer cache keys on content, and these files change rarely.
for f in slim_runtime.py check_imports.py; do
  cp Dockerfiles/$f "$context/$f"
  touch -d @315532800 "$context/$f"
done

# --- images -----------------------------------------------------------------
base="${KRMFN_BASE_IMAGE:-$KRMFN_BASE_IMAGE_LOCAL}"
"$TOOL" image inspect "$base" >/dev/null 2>&1 \
  || [[ -n "${KRMFN_BASE_IMAGE:-}" ]] \
  || die "base image $base missing; run scripts/images/base-image.sh (make images does)"

build_args=()
if [[ "$TOOL" == podman ]]; then
  build_args+=(--layers)
  # The local base exists only here: never look for it in a registry.
  [[ "$base" == "$KRMFN_BASE_IMAGE_LOCAL" ]] && build_args+=(--pull=never)
fi

images=()
for fn in "${KRMFN_FUNCTIONS[@]}"; do
  grep -Eq "^FROM function-base AS $fn\$" Dockerfiles/Dockerfile \
    || die "Dockerfiles/Dockerfile has no target '$fn' (FROM function-base AS $fn)"
  image="localhost/krmfn/$fn:$TAG"
  t0=$SECONDS
  old_id="$("$TOOL" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  if ! "$TOOL" build "${build_args[@]}" --build-arg "BASE_IMAGE=$base" \
      --build-arg "VERSION=$VERSION" --target "$fn" \
      -f Dockerfiles/Dockerfile -t "$image" "$context" \
      >"$LOGDIR/build-$fn.log" 2>&1; then
    tail -n 40 "$LOGDIR/build-$fn.log" >&2
    die "building $image failed (log: $LOGDIR/build-$fn.log)"
  fi
  for tag in "${TAGS[@]:1}"; do
    "$TOOL" tag "$image" "localhost/krmfn/$fn:$tag"
  done
  new_id="$("$TOOL" image inspect --format '{{.Id}}' "$image")"
  if [[ "$new_id" != "$old_id" ]]; then
    # The image this tag named before: removed once no tag names it (its
    # moving tags followed the new build).
    [[ -n "$old_id" ]] && { "$TOOL" rmi "$old_id" >/dev/null 2>&1 || true; }
    log "built $image ($((SECONDS - t0)) s)"
  fi
  images+=("$image")
done

# --- sizes ------------------------------------------------------------------
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }'; }
size_of() { "$TOOL" image inspect --format '{{.Size}}' "$1"; }
layers_of() { "$TOOL" image inspect --format '{{range .RootFS.Layers}}{{println .}}{{end}}' "$1"; }

too_big=()
table="| image | tags | size |
| --- | --- | ---: |"
for image in "${images[@]}"; do
  s="$(size_of "$image")"
  ((s <= MAX_MB * 1000000)) || too_big+=("$image ($(mb "$s"))")
  # shellcheck disable=SC2016 # backticks for markdown, not a command
  table+=$'\n'"| \`${image%:*}\` | $(printf '`%s` ' "${TAGS[@]}")| $(mb "$s") |"
done

# Layers every image has (the runtime and the app) against each image's own.
shared="$(layers_of "${images[0]}")"
for image in "${images[@]:1}"; do
  shared="$(comm -12 <(sort <<<"$shared") <(layers_of "$image" | sort))"
done
n_layers="$(layers_of "${images[0]}" | grep -c .)"
n_shared="$(grep -c . <<<"$shared" || true)"
# The layers with content, bottom up: the runtime, then the app.
layer_names=("runtime: the Python 3.11 interpreter, trimmed standard library, shared libraries, /etc/passwd"
  "app: /opt/krmfn, krmfn and its pinned dependencies with bytecode")
layers=""
i=0
while IFS='|' read -r size _; do
  layers+="| ${layer_names[i]:-layer $((i + 1))} | $size |"$'\n'
  i=$((i + 1))
done < <("$TOOL" history --format '{{.Size}}|{{.CreatedBy}}' "${images[0]}" \
  | grep -Ev '^0 ?B\|' | tac)
layers+="| per function: entrypoint and labels (metadata only) | 0 B |"

section="Written by \`scripts/images/build-images.sh\` (\`make images\`) with $TOOL; sizes as
\`$TOOL image inspect\` reports them (uncompressed; the limit is $MAX_MB MB each). Base of the
build stages: \`$base\`; the images themselves start from scratch.

$table

Each image has $n_layers filesystem layers; $n_shared of them are the same in all five images
(stored and pulled once):

| layer (bottom up) | size |
| --- | ---: |
${layers}"
"${KRMFN_PY:-python3}" scripts/images/sizes_md.py Dockerfiles/SIZES.md sizes <<<"$section"

printf '%s\n' "$table"
log "$TOOL built ${#images[@]} images in $((SECONDS - start)) s (base: $base)"
((n_shared >= n_layers - 1 && n_shared >= 1)) \
  || die "the five images share $n_shared of $n_layers layers (want all but at most one)"
((${#too_big[@]} == 0)) || die "over $MAX_MB MB: ${too_big[*]}"
