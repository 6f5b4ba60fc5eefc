#!/usr/bin/env bash
# Image mode must give byte-identical results to exec mode, under the
# constraints of a cluster function runner.
#
# 1. The images of this version exist: localhost/krmfn/<fn>:vX.Y.Z, and the
#    moving vX.Y and vX name the same image; every image answers `kpt fn doc`;
#    an image holds no shell and no pip, runs as a non-root user, and its
#    entrypoint is the function itself.
# 2. For every example package (examples/*/ with a Kptfile and no EXEC-ONLY
#    file, or the package folders given as arguments), in a temporary folder:
#      exec/<pkg>   rendered as it is: kpt fn render --allow-exec, .venv/bin
#                   first on PATH (the Kptfiles say `exec: krmfn-<fn>`);
#      image/<pkg>  every `exec: krmfn-<fn>` (or `exec: krmfn <fn>`) in every
#                   Kptfile, subpackages included, rewritten to
#                   `image: localhost/krmfn/<fn>:vX.Y.Z` and rendered with
#                   KPT_FN_RUNTIME=podman KRM_FN_RUNTIME=podman (or docker), through runner-shim.sh:
#                   every container runs with a read-only root (no tmpfs),
#                   --network=none, uid 65532, all capabilities dropped and
#                   no-new-privileges;
#    then the same rewrite is applied to the exec copy's Kptfiles (so the
#    pipeline lines agree) and `diff -r` must find nothing.
# 3. Every golden case of testdata/ (scripts/images/golden_images.py): the
#    ResourceList of its package to krmfn-<fn> and to the image under the same
#    constraints; exit codes and outputs must be equal (KRMFN_E2E_GOLDEN=0 skips).
# 3b. Every function's image runs krmlib's C input check (krmlib._yaml.ccheck), not the
#    Python fallback, and the Python check with KRMLIB_PYTHON_CHECK=1, with exec mode's
#    output both ways (scripts/images/ccheck_probe.py, under the same constraints).
# 4. The per-call overhead of image mode: for each function, `kpt fn eval -o
#    stdout` on a one-resource package, exec and image (under the runner
#    constraints, so every function runs so at least once) alternating
#    (KRMFN_OVERHEAD_RUNS, default 5, of each), medians and their ratio, the
#    two outputs identical; written to the "overhead" section of
#    Dockerfiles/SIZES.md (KRMFN_OVERHEAD_RUNS=0 skips it).
#
# Env: KRMFN_CONTAINER_TOOL (podman|docker), KRMFN_KEEP=1 keeps the temp dir.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KRMFN_ROOT"

VENV="${VENV:-.venv}"
PY="${KRMFN_PY:-$VENV/bin/python}"
start=$SECONDS

TOOL="$(container_tool)"
[[ -n "$TOOL" ]] || die "no container tool; run make images"
command -v kpt >/dev/null 2>&1 || die "kpt not found on PATH"
[[ -x "$PY" ]] || die "$PY not found; run make install"
mapfile -t TAGS < <(image_tags) || true
((${#TAGS[@]})) || die "no image tags for this version (see above)"
TAG="${TAGS[0]}"
REAL_TOOL="$(command -v "$TOOL")"
load_functions

for fn in "${KRMFN_FUNCTIONS[@]}"; do
  id="$("$TOOL" image inspect --format '{{.Id}}' "localhost/krmfn/$fn:$TAG" 2>/dev/null)" \
    || die "image localhost/krmfn/$fn:$TAG missing; run make images"
  for tag in "${TAGS[@]:1}"; do
    moving="$("$TOOL" image inspect --format '{{.Id}}' "localhost/krmfn/$fn:$tag" 2>/dev/null || true)"
    [[ "$moving" == "$id" ]] \
      || die "localhost/krmfn/$fn:$tag does not name the same image as :$TAG; run make images"
  done
  ! "$TOOL" image inspect "localhost/krmfn/$fn:latest" >/dev/null 2>&1 \
    || die "localhost/krmfn/$fn:latest exists; images are tagged by version only"
done

failed=0
fail() { log "FAIL $*"; failed=1; }

# Every image answers kpt fn doc (its --help), as the catalog expects.
for fn in "${KRMFN_FUNCTIONS[@]}"; do
  image="localhost/krmfn/$fn:$TAG"
  if ! doc="$(KPT_FN_RUNTIME="$TOOL" KRM_FN_RUNTIME="$TOOL" kpt fn doc --image "$image" 2>&1)" || [[ -z "$doc" ]]; then
    printf '%s\n' "$doc" | tail -n 15 >&2
    fail "kpt fn doc --image $image"
  fi
  user="$("$TOOL" image inspect --format '{{.Config.User}}' "$image")"
  entry="$("$TOOL" image inspect --format '{{join .Config.Entrypoint " "}}' "$image")"
  [[ -n "$user" && "${user%%:*}" != 0 && "${user%%:*}" != root ]] \
    || fail "$image runs as '${user:-root}', not a non-root user"
  [[ "$entry" == "/opt/krmfn/bin/krmfn-$fn" ]] \
    || fail "$image entrypoint is '$entry', not /opt/krmfn/bin/krmfn-$fn"
done
# What the images must not hold (all share these layers: one image is enough).
image="localhost/krmfn/${KRMFN_FUNCTIONS[0]}:$TAG"
if "$TOOL" run --rm --network=none --entrypoint /bin/sh "$image" -c true >/dev/null 2>&1; then
  fail "$image has a shell"
fi
if "$TOOL" run --rm --network=none --entrypoint /opt/krmfn/bin/python "$image" \
    -c 'import importlib.util as u, sys; sys.exit(any(u.find_spec(m) for m in ("pip", "ensurepip", "setuptools")))' \
    >/dev/null 2>&1; then :; else
  fail "$image holds pip, ensurepip or setuptools (or its python does not run)"
fi

packages=()
if (($#)); then
  packages=("$@")
else
  shopt -s nullglob
  for d in examples/*/; do
    [[ -f "$d/Kptfile" ]] || continue
    # An example that needs the host (exec plugins, a catalog folder) says why in this file.
    if [[ -f "$d/EXEC-ONLY" ]]; then
      log "skipping ${d%/} in image mode: $(head -n 1 "$d/EXEC-ONLY")"
      continue
    fi
    packages+=("${d%/}")
  done
  shopt -u nullglob
fi
if ((${#packages[@]} == 0)); then
  log "no example packages (examples/*/Kptfile); nothing to compare"
  exit "$failed"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/krmfn-e2e-images.XXXXXX")"
if [[ "${KRMFN_KEEP:-}" == 1 ]]; then
  log "keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/exec" "$work/image" "$work/logs"

# Rewrite exec: krmfn-<fn> to image: in every Kptfile under $1 (in place).
# Fails on a krmfn exec line it cannot turn into an image (arguments, unknown
# function), since the image copy would then not be a test of the images.
to_image() {
  "$PY" scripts/images/to_image.py "$1" localhost/krmfn "$TAG" "${KRMFN_FUNCTIONS[@]}"
}

# Seconds since $1 (from now_ns), with one decimal.
now_ns() { date +%s%N; }
since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

# kpt finds "$TOOL" first in shim/: the runner shim, which adds the cluster
# runner's flags to every run. No .venv/bin on PATH there (make puts it
# there): a krmfn function left in exec mode must fail.
mkdir -p "$work/shim"
ln -s "$KRMFN_ROOT/scripts/images/runner-shim.sh" "$work/shim/$TOOL"
image_path="$work/shim:$(tr ':' '\n' <<<"$PATH" \
  | grep -vxF -e "$KRMFN_ROOT/$VENV/bin" -e "$VENV/bin" | paste -sd: -)"
export KRMFN_REAL_TOOL="$REAL_TOOL" KRMFN_SHIM_LOG="$work/logs/shim.log"

count=0
for pkg in "${packages[@]}"; do
  [[ -f "$pkg/Kptfile" ]] || die "$pkg: no Kptfile"
  name="$(basename "$pkg")"
  cp -a "$pkg" "$work/exec/$name"
  cp -a "$pkg" "$work/image/$name"
  to_image "$work/image/$name" || { failed=1; continue; }

  t0=$(now_ns)
  if ! (cd "$work/exec" && PATH="$KRMFN_ROOT/$VENV/bin:$PATH" \
      kpt fn render --allow-exec "$name" >"$work/logs/$name.exec.log" 2>&1); then
    cat "$work/logs/$name.exec.log" >&2
    fail "$pkg: exec-mode render failed"
    continue
  fi
  t_exec=$(since "$t0")

  t0=$(now_ns)
  runs_before=$(grep -c . "$KRMFN_SHIM_LOG" 2>/dev/null || true)
  if ! (cd "$work/image" && PATH="$image_path" KPT_FN_RUNTIME="$TOOL" KRM_FN_RUNTIME="$TOOL" \
      kpt fn render --allow-exec "$name" >"$work/logs/$name.image.log" 2>&1); then
    cat "$work/logs/$name.image.log" >&2
    fail "$pkg: image-mode render failed (read-only root, no network, uid 65532, no capabilities)"
    continue
  fi
  t_image=$(since "$t0")
  runs=$(( $(grep -c . "$KRMFN_SHIM_LOG" 2>/dev/null || true) - ${runs_before:-0} ))
  if ((runs == 0)); then
    fail "$pkg: no container ran in image mode (is kpt's runtime the shim?)"
    continue
  fi

  to_image "$work/exec/$name"
  if diff -r "$work/exec/$name" "$work/image/$name" >"$work/logs/$name.diff" 2>&1; then
    log "ok   $pkg (exec ${t_exec} s, image ${t_image} s, $runs containers under runner constraints)"
    count=$((count + 1))
  else
    cat "$work/logs/$name.diff" >&2
    fail "$pkg: image mode differs from exec mode (diff above)"
  fi
done
log "$count of ${#packages[@]} packages identical in exec and image mode ($TOOL, runner constraints)"

# Every golden case of testdata/ through the images, under the same constraints.
if [[ "${KRMFN_E2E_GOLDEN:-1}" != 0 ]]; then
  t0=$(now_ns)
  if ! "$PY" scripts/images/golden_images.py "$TAG" "${KRMFN_FUNCTIONS[@]}"; then
    fail "golden cases differ between exec and image mode (above)"
  fi
  log "golden cases in image mode: $(since "$t0") s"
fi

# The C input check in every image (and the fallback behind KRMLIB_PYTHON_CHECK=1).
t0=$(now_ns)
if ! "$PY" scripts/images/ccheck_probe.py --forced-python "localhost/krmfn/{fn}:$TAG" \
    "${KRMFN_FUNCTIONS[@]}"; then
  fail "an image does not run krmlib's C input check (above)"
fi
log "C input check in the images: $(since "$t0") s"

# --- per-call overhead ------------------------------------------------------
runs="${KRMFN_OVERHEAD_RUNS:-5}"
if ((runs > 0)); then
  one="$work/overhead/one"
  mkdir -p "$one"
  cat >"$one/Kptfile" <<'YAML'
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: one
  annotations:
    config.kubernetes.io/local-config: "true"
YAML
  cat >"$one/configmap.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: example
  namespace: default
data:
  key: value
YAML
  # One timed kpt call; prints milliseconds, output in $2.
  timed_eval() {
    local out="$1"; shift
    local t0; t0=$(now_ns)
    (cd "$work/overhead" && "$@" >"$out" 2>>"$work/logs/overhead.log") || return 1
    awk -v a="$t0" -v b="$(now_ns)" 'BEGIN { printf "%d\n", (b - a) / 1e6 }'
  }
  median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
  rows=""
  for fn in "${KRMFN_FUNCTIONS[@]}"; do
    image="localhost/krmfn/$fn:$TAG"
    exec_ms=(); image_ms=()
    for ((i = 0; i < runs; i++)); do
      if ! ms=$(PATH="$KRMFN_ROOT/$VENV/bin:$PATH" timed_eval "$work/overhead/$fn.exec.out" \
          kpt fn eval one -o stdout --exec "krmfn-$fn"); then
        fail "overhead: kpt fn eval --exec krmfn-$fn failed (log: $work/logs/overhead.log)"
        break
      fi
      exec_ms+=("$ms")
      if ! ms=$(PATH="$image_path" KPT_FN_RUNTIME="$TOOL" KRM_FN_RUNTIME="$TOOL" timed_eval "$work/overhead/$fn.image.out" \
          kpt fn eval one -o stdout --image "$image"); then
        fail "overhead: kpt fn eval --image $image failed (log: $work/logs/overhead.log)"
        break
      fi
      image_ms+=("$ms")
    done
    ((${#image_ms[@]} == runs)) || continue
    if ! cmp -s "$work/overhead/$fn.exec.out" "$work/overhead/$fn.image.out"; then
      diff "$work/overhead/$fn.exec.out" "$work/overhead/$fn.image.out" >&2 || true
      fail "overhead: $fn gives a different output in image mode"
    fi
    e=$(printf '%s\n' "${exec_ms[@]}" | median)
    m=$(printf '%s\n' "${image_ms[@]}" | median)
    rows+="| $fn | $e ms | $m ms | $((m - e)) ms | $(awk -v a="$m" -v b="$e" 'BEGIN { printf "%.2f", a / b }')x |"$'\n'
    log "overhead $fn: exec $e ms, image $m ms (medians of $runs)"
  done
  section="Written by \`scripts/images/e2e-images.sh\` (\`make e2e-images\`), $(date -u +%Y-%m-%d), $TOOL
$("$REAL_TOOL" --version 2>/dev/null | head -n 1), $(kpt version 2>/dev/null | head -n 1 | sed 's/^/kpt /'), $(nproc) cores.
One call = \`kpt fn eval one -o stdout\` on a one-resource package (a ConfigMap and a Kptfile),
\`--exec krmfn-<fn>\` against \`--image localhost/krmfn/<fn>:$TAG\` (through the runner shim:
read-only root, no network, uid 65532, no capabilities), alternating, median of $runs of each, in one run on a shared machine: read the ratios,
not the milliseconds. Both modes give the same output. \"extra\" is what image mode adds to one
call (container create, start and removal; the image is local).

| function | exec | image | extra | image / exec |
| --- | ---: | ---: | ---: | ---: |
${rows%$'\n'}"
  "$PY" scripts/images/sizes_md.py Dockerfiles/SIZES.md overhead <<<"$section"
fi

log "total $((SECONDS - start)) s"
exit "$failed"
