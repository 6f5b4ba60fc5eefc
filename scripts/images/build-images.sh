#!/usr/bin/env bash
# Build the function images of one architecture:
#
#   build-images.sh [amd64|arm64]   # default: this machine's
#
# localhost/krmfn/<function>:vX.Y.Z (+ vX.Y, vX) for this machine's
# architecture, localhost/krmfn/<function>:vX.Y.Z-<arch> (+ vX.Y-<arch>,
# vX-<arch>) for another one, built under emulation (setup-qemu.sh).
# The functions are those of the registry (krmfn/registry.py).
#
# 1. A wheelhouse on the host (.cache/wheelhouse/<arch>): the krmfn wheel and
#    the wheels of its runtime dependencies, pinned by constraints.txt, for the
#    image's Python (cp311, manylinux, that architecture). The image build
#    installs from it with --no-index: no index is reached in a build.
# 2. The build context .cache/image-context/<arch>: wheels/ (hard links into the
#    wheelhouse), build-wheels/ (setuptools and wheel of Dockerfiles/wheel-build.txt,
#    from .cache/wheelhouse/build), krmlib-src/ (sdk/ and krmlib/: the Dockerfile's
#    wheel-build stage compiles krmlib's C check for that architecture, and the
#    images install that wheel), Dockerfiles/slim_runtime.py and
#    Dockerfiles/check_imports.py.
# 3. One image per function: the target of that name in Dockerfiles/Dockerfile,
#    with podman or docker (whichever works; KRMFN_CONTAINER_TOOL overrides),
#    --platform linux/<arch>. Base image: KRMFN_BASE_IMAGE if set, else the
#    local base of that architecture (base-image.sh). The targets share the
#    runtime and app layers, so the later builds only add their metadata.
#    Labels and annotations: org.opencontainers.image.* (source, version,
#    revision, licenses, title, description) and dev.krmfn.function.
# 4. Tags from the version in pyproject.toml (scripts/images/image_tags.py):
#    vX.Y.Z, and the moving vX.Y and vX for a release; never latest.
# 5. krmlib's wheel of that architecture (cp311, with krmlib._yaml.ccheck), as the
#    wheel-build stage made it, copied to .cache/krmlib-wheels/<arch>/.
# 6. Sizes: each image must be at most KRMFN_IMAGE_MAX_MB (80) MB; the table
#    (sizes, layers shared) goes to the "sizes-<arch>" section of
#    Dockerfiles/SIZES.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KRMFN_ROOT"

VENV="${VENV:-.venv}"
PIP="${KRMFN_PIP:-$VENV/bin/pip}"
ARCH="${1:-$(host_arch)}"
case "$ARCH" in
  amd64) PLATFORM_ARCH=x86_64 ;;
  arm64) PLATFORM_ARCH=aarch64 ;;
  *) die "unknown architecture '$ARCH' (amd64 or arm64)" ;;
esac
WHEELHOUSE="$KRMFN_CACHE/wheelhouse/$ARCH"
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
load_functions
REVISION="$(git -C "$KRMFN_ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
SOURCE_URL="$("${KRMFN_PY:-$VENV/bin/python}" - pyproject.toml <<'PYEOF'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print(tomllib.load(f)["project"]["urls"]["Source"])
PYEOF
)"

mkdir -p "$WHEELHOUSE" "$LOGDIR"
start=$SECONDS

# --- up to date? ----------------------------------------------------------------
# The inputs of a build: every file of the repository (tracked or not ignored; not
# SIZES.md, which the builds write), the commit, the version, the architecture and the
# base image. Each image carries their digest (label dev.krmfn.inputs); when every
# function's image of this architecture has the digest of now, nothing is built (the
# wheel and the podman builds, cached or not, cost a minute or two on a busy machine).
local_base="$(base_image_local "$ARCH")"
base="${KRMFN_BASE_IMAGE:-$local_base}"
inputs="$({
  printf '%s\n' "$REVISION" "$VERSION" "$ARCH" "$base" "${KRMFN_IMAGE_MAX_MB:-80}"
  "$TOOL" image inspect --format '{{.Id}}' "$base" 2>/dev/null || true
  git -C "$KRMFN_ROOT" ls-files -z --cached --others --exclude-standard \
    | grep -zv '^Dockerfiles/SIZES.md$' | xargs -0 -r sha256sum 2>/dev/null
} | sha256sum | cut -c1-32)"
if [[ "${KRMFN_REBUILD:-0}" != 1 ]]; then
  current=1
  for fn in "${KRMFN_FUNCTIONS[@]}"; do
    got="$("$TOOL" image inspect --format '{{index .Labels "dev.krmfn.inputs"}}' \
      "$(local_image "$fn" "$TAG" "$ARCH")" 2>/dev/null || true)"
    [[ "$got" == "$inputs" ]] || { current=0; break; }
  done
  if ((current)); then
    log "linux/$ARCH: the ${#KRMFN_FUNCTIONS[@]} images are up to date (inputs $inputs; KRMFN_REBUILD=1 rebuilds)"
    exit 0
  fi
fi

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
# else with it. krmlib's wheel here is the pure one (KRMLIB_BUILD_EXTENSION=0): pip
# download resolves krmfn's dependencies with it; the images install the wheel with
# the C check that the Dockerfile's wheel-build stage compiles for their architecture.
wheel=(env SOURCE_DATE_EPOCH=315532800 KRMLIB_BUILD_EXTENSION=0 "$PIP" wheel --quiet --disable-pip-version-check
  --no-deps -w "$newwheel/out" "$newwheel/src/sdk" "$newwheel/src")
if ! "${wheel[@]}" --no-build-isolation >"$LOGDIR/wheel-krmfn-$ARCH.log" 2>&1; then
  "${wheel[@]}" >>"$LOGDIR/wheel-krmfn-$ARCH.log" 2>&1 \
    || { tail -n 30 "$LOGDIR/wheel-krmfn-$ARCH.log" >&2; die "pip wheel . failed"; }
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

# Runtime dependencies for cp311 manylinux on that architecture, resolved from
# the krmfn wheel's metadata with the pins of constraints.txt. The wheelhouse
# alone is tried first, so a second run needs no network.
arch="$PLATFORM_ARCH"
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
    >"$LOGDIR/download-$ARCH.log" 2>&1; then
  log "downloading runtime wheels (cp${IMAGE_PY/./}, $arch)"
  "${download[@]}" >"$LOGDIR/download-$ARCH.log" 2>&1 \
    || { tail -n 30 "$LOGDIR/download-$ARCH.log" >&2; die "pip download failed"; }
fi

# The wheel-build stage's tools (pure wheels, any architecture), pinned by
# Dockerfiles/wheel-build.txt; the folder alone is tried first.
BUILD_WHEELS="$KRMFN_CACHE/wheelhouse/build"
mkdir -p "$BUILD_WHEELS"
bw=("$PIP" download --quiet --disable-pip-version-check --no-cache-dir --no-deps
  --only-binary=:all: -r Dockerfiles/wheel-build.txt -d "$BUILD_WHEELS")
if ! "${bw[@]}" --no-index --find-links "$BUILD_WHEELS" >"$LOGDIR/download-build-$ARCH.log" 2>&1; then
  log "downloading the wheel-build stage's tools (Dockerfiles/wheel-build.txt)"
  "${bw[@]}" >"$LOGDIR/download-build-$ARCH.log" 2>&1 \
    || { tail -n 30 "$LOGDIR/download-build-$ARCH.log" >&2; die "pip download -r Dockerfiles/wheel-build.txt failed"; }
fi

# --- build context ------------------------------------------------------------
context="$KRMFN_CACHE/image-context/$ARCH"
rm -rf "$context"
mkdir -p "$context/wheels" "$context/build-wheels" "$context/krmlib-src"
for whl in "$WHEELHOUSE"/*.whl; do
  ln "$whl" "$context/wheels/" 2>/dev/null || cp -p "$whl" "$context/wheels/"
done
while read -r req; do
  whl=("$BUILD_WHEELS/${req%%==*}-${req#*==}-"*.whl)
  [[ -f "${whl[0]}" ]] || die "no wheel for $req in $BUILD_WHEELS"
  cp -p "${whl[0]}" "$context/build-wheels/"
done < <(grep -Ev '^[[:space:]]*(#|$)' Dockerfiles/wheel-build.txt)
# krmlib's sources as git has them (tracked or not ignored), fixed times: the wheel-build
# stage's layers stay cached while they are unchanged.
git -C "$KRMFN_ROOT" ls-files -z --cached --others --exclude-standard -- sdk krmlib \
  | while IFS= read -r -d '' f; do if [[ -f "$f" ]]; then printf '%s\0' "$f"; fi; done \
  | tar --null -T - -cf - | tar -C "$context/krmlib-src" -xf -
find "$context/krmlib-src" -exec touch -h -d @315532800 {} +
# Fixed times: the layer cache keys on content, and these files change rarely.
for f in slim_runtime.py check_imports.py; do
  cp Dockerfiles/$f "$context/$f"
  touch -d @315532800 "$context/$f"
done

# --- images -----------------------------------------------------------------
"$TOOL" image inspect "$base" >/dev/null 2>&1 \
  || [[ -n "${KRMFN_BASE_IMAGE:-}" ]] \
  || die "base image $base missing; run scripts/images/base-image.sh $ARCH (make images does)"

build_args=(--platform "linux/$ARCH")
if [[ "$TOOL" == podman ]]; then
  build_args+=(--layers)
  # The local base exists only here: never look for it in a registry.
  [[ "$base" == "$local_base" ]] && build_args+=(--pull=never)
fi

# function-base (the runtime and app layers, shared by every function) once, then one
# image per function FROM it: a Containerfile made of the literal labels and the lines of
# the function's target in Dockerfiles/Dockerfile (its ENTRYPOINT). Literal values, not
# build arguments or --label: podman's layer cache keys a LABEL step on its text as
# written, so a label from an argument or --label would keep an older commit's value.
fb_image="localhost/krmfn-function-base:$TAG-$ARCH"
if ! "$TOOL" build "${build_args[@]}" --build-arg "BASE_IMAGE=$base" \
    --build-arg "VERSION=$VERSION" --build-arg "SOURCE=$SOURCE_URL" --target function-base \
    -f Dockerfiles/Dockerfile -t "$fb_image" "$context" >"$LOGDIR/build-function-base-$ARCH.log" 2>&1; then
  tail -n 40 "$LOGDIR/build-function-base-$ARCH.log" >&2
  die "building $fb_image failed (log: $LOGDIR/build-function-base-$ARCH.log)"
fi
fb_id="$("$TOOL" image inspect --format '{{.Id}}' "$fb_image")"
# krmlib's wheel of this architecture, out of the wheel-build stage (cached: no rebuild).
wheel_out="$KRMFN_CACHE/krmlib-wheels/$ARCH"
rm -rf "$wheel_out"
if ! "$TOOL" build "${build_args[@]}" --build-arg "BASE_IMAGE=$base" --target krmlib-wheel \
    -f Dockerfiles/Dockerfile --output "type=local,dest=$wheel_out" "$context" \
    >"$LOGDIR/build-krmlib-wheel-$ARCH.log" 2>&1; then
  tail -n 40 "$LOGDIR/build-krmlib-wheel-$ARCH.log" >&2
  die "copying krmlib's wheel out of the wheel-build stage failed (log: $LOGDIR/build-krmlib-wheel-$ARCH.log)"
fi
log "krmlib's wheel for linux/$ARCH: $(cd "$wheel_out" && echo krmlib-*.whl) (in $wheel_out)"
# A label value as a quoted Dockerfile word.
quoted() { local v="${1//\\/\\\\}"; v="${v//\"/\\\"}"; printf '"%s"' "${v//\$/\\\$}"; }

images=()
for fn in "${KRMFN_FUNCTIONS[@]}"; do
  target="$(awk -v fn="$fn" '$0 == "FROM function-base AS " fn { on = 1; next } on && (/^FROM / || /^$/) { exit } on' Dockerfiles/Dockerfile)"
  grep -q '^ENTRYPOINT ' <<<"$target" \
    || die "Dockerfiles/Dockerfile has no target '$fn' with an ENTRYPOINT (FROM function-base AS $fn)"
  image="$(local_image "$fn" "$TAG" "$ARCH")"
  t0=$SECONDS
  old_id="$("$TOOL" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  description="$(function_summary "$fn")"
  # The labels of the image config (docker inspect, kpt), the same as annotations on the
  # image manifest (OCI registries).
  {
    printf 'FROM %s\n' "$fb_id"
    printf 'LABEL org.opencontainers.image.title=%s \\\n' "$(quoted "krmfn-$fn")"
    printf '      org.opencontainers.image.description=%s \\\n' "$(quoted "$description")"
    printf '      org.opencontainers.image.revision=%s \\\n' "$(quoted "$REVISION")"
    printf '      dev.krmfn.inputs=%s\n' "$(quoted "$inputs")"
    printf '%s\n' "$target"
  } >"$context/$fn.Containerfile"
  meta=()
  if [[ "$TOOL" == podman ]]; then
    for kv in "org.opencontainers.image.title=krmfn-$fn" \
        "org.opencontainers.image.description=$description" \
        "org.opencontainers.image.revision=$REVISION" \
        "org.opencontainers.image.source=$SOURCE_URL" \
        "org.opencontainers.image.version=$VERSION" \
        "org.opencontainers.image.licenses=Apache-2.0"; do
      meta+=(--annotation "$kv")
    done
  fi
  log_file="$LOGDIR/build-$fn-$ARCH.log"
  fn_args=(--platform "linux/$ARCH")
  [[ "$TOOL" == podman ]] && fn_args+=(--layers --pull=never)
  if ! "$TOOL" build "${fn_args[@]}" "${meta[@]}" -f "$context/$fn.Containerfile" -t "$image" \
      "$context" >"$log_file" 2>&1; then
    tail -n 40 "$log_file" >&2
    die "building $image failed (log: $log_file)"
  fi
  for tag in "${TAGS[@]:1}"; do
    "$TOOL" tag "$image" "$(local_image "$fn" "$tag" "$ARCH")"
  done
  new_id="$("$TOOL" image inspect --format '{{.Id}}' "$image")"
  if [[ "$new_id" != "$old_id" ]]; then
    # The image this tag named before: removed once no tag names it (its
    # moving tags followed the new build). A registry's digest name that a
    # registry e2e left on it keeps a plain rmi from removing it: with no tag
    # left, it goes all the same (else it stays behind as a <none> image).
    if [[ -n "$old_id" ]] && ! "$TOOL" rmi "$old_id" >/dev/null 2>&1; then
      left="$("$TOOL" image inspect --format '{{len .RepoTags}}' "$old_id" 2>/dev/null || echo 1)"
      [[ "$left" == 0 ]] && { "$TOOL" rmi --force "$old_id" >/dev/null 2>&1 || true; }
    fi
    log "built $image ($((SECONDS - t0)) s)"
  fi
  images+=("$image")
done

# --- sizes ------------------------------------------------------------------
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }'; }
size_of() { "$TOOL" image inspect --format '{{.Size}}' "$1"; }
layers_of() { "$TOOL" image inspect --format '{{range .RootFS.Layers}}{{println .}}{{end}}' "$1"; }

suffix=""; [[ "$ARCH" == "$(host_arch)" ]] || suffix="-$ARCH"
too_big=()
table="| image | tags | size |
| --- | --- | ---: |"
for image in "${images[@]}"; do
  s="$(size_of "$image")"
  ((s <= MAX_MB * 1000000)) || too_big+=("$image ($(mb "$s"))")
  # shellcheck disable=SC2016 # backticks for markdown, not a command
  table+=$'\n'"| \`${image%:*}\` | $(printf '`%s` ' "${TAGS[@]/%/$suffix}")| $(mb "$s") |"
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

how="on $(host_arch)"; [[ "$ARCH" == "$(host_arch)" ]] || how="on $(host_arch) under qemu"
section="Written by \`scripts/images/build-images.sh $ARCH\` (\`make images\`, \`make images-arm64\`)
with $TOOL, linux/$ARCH, built $how; sizes as \`$TOOL image inspect\` reports them
(uncompressed; the limit is $MAX_MB MB each). Base of the build stages: \`$base\`; the images
themselves start from scratch. This build took $((SECONDS - start)) s (with whatever the layer cache held).

$table

Each image has $n_layers filesystem layers; $n_shared of them are the same in all ${#images[@]} images
(stored and pulled once):

| layer (bottom up) | size |
| --- | ---: |
${layers}"
# flock: the other architecture's build may write its section at the same time.
flock Dockerfiles/SIZES.md "${KRMFN_PY:-python3}" scripts/images/sizes_md.py Dockerfiles/SIZES.md \
  "sizes-$ARCH" <<<"$section"

printf '%s\n' "$table"
log "$TOOL built ${#images[@]} images in $((SECONDS - start)) s (base: $base)"
((n_shared >= n_layers - 1 && n_shared >= 1)) \
  || die "the ${#images[@]} images share $n_shared of $n_layers layers (want all but at most one)"
((${#too_big[@]} == 0)) || die "over $MAX_MB MB: ${too_big[*]}"
