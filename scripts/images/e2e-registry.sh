#!/usr/bin/env bash
# The registry round trip and the arm64 images, end to end (after e2e-images.sh):
#
# 1. Starts Debian's docker-registry on 127.0.0.1 with a free port and its storage
#    in a temporary folder, marked insecure for podman (setup-registry.sh).
# 2. `make push REGISTRY=127.0.0.1:PORT`: builds what is missing (the arm64 images
#    under qemu among it) and pushes one manifest list per function and tag.
# 3. Reads the registry over its API (registry_check.py): every tag an index with
#    linux/amd64 and linux/arm64, the digests file right, the OCI labels and the
#    entrypoint contract in each image's config.
# 4. Removes the local copies of the pushed names, then with KRM_FN_RUNTIME=podman (kpt >= beta.59) and KPT_FN_RUNTIME=podman
#    (kpt pulls through podman):
#    - `kpt fn doc --image 127.0.0.1:PORT/krmfn/<fn>:vX.Y.Z` prints the function's
#      --help, for every function;
#    - `kpt fn eval --image 127.0.0.1:PORT/krmfn/<fn>:vX.Y.Z` on one golden case
#      of every function equals `kpt fn eval --exec krmfn-<fn>` on a copy;
#    - `kpt fn render` of every example package (as in e2e-images.sh) with its
#      pipeline naming the registry images equals the exec-mode render.
# 5. Pulls each function's linux/arm64 and linux/amd64 variants by their platform
#    digests and runs the golden cases through both under the runner constraints
#    (runner-shim.sh): the arm64 output under emulation must equal amd64's byte
#    for byte: the first KRMFN_ARM64_CASES (default 4) cases by name of each
#    function, 0 for all (every case takes seconds under qemu on 2 cores: all of
#    them is a run of its own). The arm64/amd64 run-time ratio goes to the "arm64"
#    section of Dockerfiles/SIZES.md. Then every arm64 image must run krmlib's C
#    input check with amd64's exec-mode output (scripts/images/ccheck_probe.py).
#
# On exit (an interrupt too) the registry stops and its names leave podman's store
# (remove_registry_names in lib.sh): no `127.0.0.1:PORT/krmfn/<fn> <none>` image is left
# behind; the localhost/krmfn/* images `make images` built keep their names.
#
# Env: KRMFN_KEEP=1 keeps the temporary folder (registry storage, logs).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KRMFN_ROOT"

VENV="${VENV:-.venv}"
PY="${KRMFN_PY:-$VENV/bin/python}"
start=$SECONDS
now_ns() { date +%s%N; }
since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

TOOL="$(container_tool)"
[[ "$TOOL" == podman ]] || { log "the registry end-to-end needs podman (manifest lists); skipped"; exit 0; }
command -v kpt >/dev/null 2>&1 || die "kpt not found on PATH"
load_functions
mapfile -t TAGS < <(image_tags) || true
TAG="${TAGS[0]}"
VERSION="$(project_version)"
REVISION="$(git rev-parse HEAD)"
ARCHS=(amd64 arm64)

work="$(mktemp -d "${TMPDIR:-/tmp}/krmfn-e2e-registry.XXXXXX")"
mkdir -p "$work/storage" "$work/logs" "$work/exec" "$work/image" "$work/eval"
port="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
REGISTRY="127.0.0.1:$port"
pid=""
cleanup() {
  set +e # everything below runs, whatever fails
  if [[ -n "$pid" ]]; then
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  for fn in "${KRMFN_FUNCTIONS[@]}"; do
    podman manifest rm "$REGISTRY/krmfn/$fn:$TAG" >/dev/null 2>&1 || true
    podman rmi "localhost/krmfn-e2e-$port/$fn:amd64" >/dev/null 2>&1 || true
    podman rmi "localhost/krmfn-e2e-$port/$fn:arm64" >/dev/null 2>&1 || true
  done
  remove_registry_names "$REGISTRY"
  bash scripts/images/setup-registry.sh --remove "$REGISTRY" || true
  if [[ "${KRMFN_KEEP:-}" == 1 ]]; then log "keeping $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM # (bash runs the EXIT trap on neither signal by itself)
failed=0
fail() { log "FAIL $*"; failed=1; }

# --- 1. the registry --------------------------------------------------------
t0=$(now_ns)
bash scripts/images/setup-registry.sh "$REGISTRY"
cat >"$work/registry.yml" <<YAML
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $work/storage
http:
  addr: $REGISTRY
YAML
docker-registry serve "$work/registry.yml" >"$work/logs/registry.log" 2>&1 &
pid=$!
for _ in $(seq 50); do
  "$PY" -c "import urllib.request as u, sys
u.build_opener(u.ProxyHandler({})).open('http://$REGISTRY/v2/', timeout=2)" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/logs/registry.log" >&2; die "docker-registry exited"; }
  sleep 0.2
done
log "docker-registry on $REGISTRY ($(since "$t0") s)"

# --- 2. make push -----------------------------------------------------------
t0=$(now_ns)
make --no-print-directory push REGISTRY="$REGISTRY" DIGESTS="$work/digests.txt" \
  || die "make push REGISTRY=$REGISTRY failed"
t_push=$(since "$t0")
log "make push: $t_push s"

# --- 3. what the registry holds ---------------------------------------------
"$PY" scripts/images/registry_check.py "$REGISTRY" "$work/digests.txt" "$VERSION" "$REVISION" \
  "${ARCHS[@]}" -- "${KRMFN_FUNCTIONS[@]}" >"$work/platforms.txt" \
  || fail "the registry does not hold what make push should have pushed (above)"

# --- 4. pulled and run by kpt -----------------------------------------------
for fn in "${KRMFN_FUNCTIONS[@]}"; do
  podman manifest rm "$REGISTRY/krmfn/$fn:$TAG" >/dev/null 2>&1 || true
  if podman image exists "$REGISTRY/krmfn/$fn:$TAG"; then
    podman rmi "$REGISTRY/krmfn/$fn:$TAG" >/dev/null
  fi
  ! podman image exists "$REGISTRY/krmfn/$fn:$TAG" \
    || die "$REGISTRY/krmfn/$fn:$TAG is still in local storage"
done

t0=$(now_ns)
for fn in "${KRMFN_FUNCTIONS[@]}"; do
  image="$REGISTRY/krmfn/$fn:$TAG"
  if ! KPT_FN_RUNTIME=podman KRM_FN_RUNTIME=podman kpt fn doc --image "$image" >"$work/logs/doc-$fn.txt" \
      2>"$work/logs/doc-$fn.err"; then
    tail -n 10 "$work/logs/doc-$fn.err" >&2
    fail "kpt fn doc --image $image"
  elif [[ "$(cat "$work/logs/doc-$fn.txt")" != "$("$VENV/bin/krmfn-$fn" --help)" ]]; then
    # (kpt ends the text with one more newline: compared without the trailing ones)
    diff <("$VENV/bin/krmfn-$fn" --help) "$work/logs/doc-$fn.txt" | head -n 20 >&2 || true
    fail "kpt fn doc --image $image differs from krmfn-$fn --help"
  fi
done
podman image exists "$REGISTRY/krmfn/${KRMFN_FUNCTIONS[0]}:$TAG" \
  || fail "kpt fn doc did not pull $REGISTRY/krmfn/${KRMFN_FUNCTIONS[0]}:$TAG"
log "kpt fn doc --image (pulled from $REGISTRY): $(since "$t0") s"

# One golden case a function (that succeeds and needs nothing of the host; with a config
# if one has it, the first by name): kpt fn eval in place, the image from the registry
# against exec mode.
t0=$(now_ns)
n_eval=0
declare -A eval_case=()
while read -r fn dir; do
  eval_case[$fn]="$dir"
done < <("$PY" - "${KRMFN_FUNCTIONS[@]}" <<'PYEOF'
import re, sys
from pathlib import Path
from krmlib.testing import golden_cases
for fn in sys.argv[1:]:
    # A config naming host files, a catalog folder or host plugins works in exec mode only.
    host = re.compile(r"\b(files|catalog|exec|python):")
    ok = [
        c for c in golden_cases(Path("testdata"), fn)
        if c.exit_code == 0 and not c.env and not (c.config and host.search(c.config.read_text()))
    ]
    ok.sort(key=lambda c: (c.config is None, str(c)))
    if ok:
        print(fn, ok[0].path.relative_to(Path.cwd()) if ok[0].path.is_absolute() else ok[0].path)
PYEOF
)
for fn in "${KRMFN_FUNCTIONS[@]}"; do
  case_dir="${eval_case[$fn]:-}"
  [[ -n "$case_dir" ]] || { log "no golden case of $fn runs without the host; kpt fn eval skipped"; continue; }
  config=()
  [[ -f "$case_dir/config.yaml" ]] && config=(--fn-config "$KRMFN_ROOT/$case_dir/config.yaml")
  for mode in exec image; do
    rm -rf "$work/eval/$fn-$mode"
    cp -a "$case_dir/package" "$work/eval/$fn-$mode"
  done
  if ! (cd "$work/eval" && SOURCE_DATE_EPOCH=1700000000 \
      kpt fn eval "$fn-exec" --exec "$KRMFN_ROOT/$VENV/bin/krmfn-$fn" \
      "${config[@]}" >"$work/logs/eval-$fn-exec.log" 2>&1); then
    cat "$work/logs/eval-$fn-exec.log" >&2
    fail "kpt fn eval --exec krmfn-$fn on $case_dir failed"
  fi
  if ! (cd "$work/eval" && SOURCE_DATE_EPOCH=1700000000 KPT_FN_RUNTIME=podman KRM_FN_RUNTIME=podman \
      kpt fn eval "$fn-image" --image "$REGISTRY/krmfn/$fn:$TAG" \
      -e SOURCE_DATE_EPOCH \
      "${config[@]}" >"$work/logs/eval-$fn-image.log" 2>&1); then
    cat "$work/logs/eval-$fn-image.log" >&2
    fail "kpt fn eval --image $REGISTRY/krmfn/$fn:$TAG on $case_dir failed"
  fi
  if diff -r "$work/eval/$fn-exec" "$work/eval/$fn-image" >"$work/logs/eval-$fn.diff"; then
    n_eval=$((n_eval + 1))
  else
    cat "$work/logs/eval-$fn.diff" >&2
    fail "kpt fn eval --image $REGISTRY/krmfn/$fn:$TAG on $case_dir differs from exec mode"
  fi
done
log "kpt fn eval --image from $REGISTRY: $n_eval of ${#KRMFN_FUNCTIONS[@]} functions equal to exec mode ($(since "$t0") s)"

# Every example package rendered with its pipeline naming the registry images.
t0=$(now_ns)
n_render=0
n_pkgs=0
for d in examples/*/; do
  [[ -f "$d/Kptfile" && ! -f "$d/EXEC-ONLY" ]] || continue
  name="$(basename "$d")"
  n_pkgs=$((n_pkgs + 1))
  cp -a "$d" "$work/exec/$name"
  cp -a "$d" "$work/image/$name"
  "$PY" scripts/images/to_image.py "$work/image/$name" "$REGISTRY/krmfn" "$TAG" \
    "${KRMFN_FUNCTIONS[@]}" || { fail "$d: cannot name the registry images"; continue; }
  grep -rq "image: $REGISTRY/krmfn/" "$work/image/$name" \
    || { log "$d: no krmfn function in its pipelines; skipped"; continue; }
  if ! (cd "$work/exec" && PATH="$KRMFN_ROOT/$VENV/bin:$PATH" \
      kpt fn render --allow-exec "$name" >"$work/logs/$name.exec.log" 2>&1); then
    cat "$work/logs/$name.exec.log" >&2
    fail "$d: exec-mode render failed"
    continue
  fi
  if ! (cd "$work/image" && KPT_FN_RUNTIME=podman KRM_FN_RUNTIME=podman \
      kpt fn render "$name" >"$work/logs/$name.image.log" 2>&1); then
    cat "$work/logs/$name.image.log" >&2
    fail "$d: render with $REGISTRY images failed"
    continue
  fi
  "$PY" scripts/images/to_image.py "$work/exec/$name" "$REGISTRY/krmfn" "$TAG" \
    "${KRMFN_FUNCTIONS[@]}"
  if diff -r "$work/exec/$name" "$work/image/$name" >"$work/logs/$name.diff" 2>&1; then
    n_render=$((n_render + 1))
  else
    cat "$work/logs/$name.diff" >&2
    fail "$d: render with the registry images differs from exec mode"
  fi
done
log "kpt fn render with $REGISTRY images: $n_render of $n_pkgs example packages equal to exec mode ($(since "$t0") s)"

# --- 5. arm64 under emulation against amd64 ---------------------------------
t0=$(now_ns)
while read -r fn arch ref; do
  podman pull --quiet "$ref" >/dev/null 2>"$work/logs/pull-$fn-$arch.log" \
    || { cat "$work/logs/pull-$fn-$arch.log" >&2; fail "podman pull $ref"; continue; }
  podman tag "$ref" "localhost/krmfn-e2e-$port/$fn:$arch"
  got="$(podman image inspect --format '{{.Architecture}}' "localhost/krmfn-e2e-$port/$fn:$arch")"
  [[ "$got" == "$arch" ]] || fail "$ref is $got, not $arch"
done <"$work/platforms.txt"
log "pulled the amd64 and arm64 variants by digest: $(since "$t0") s"

t0=$(now_ns)
cases="${KRMFN_ARM64_CASES:-4}"
export KRMFN_REAL_TOOL
KRMFN_REAL_TOOL="$(command -v podman)"
if ! "$PY" scripts/images/golden_images.py --want "localhost/krmfn-e2e-$port/{fn}:amd64" \
    --got "localhost/krmfn-e2e-$port/{fn}:arm64" --cases "$cases" "${KRMFN_FUNCTIONS[@]}" \
    2> >(tee "$work/logs/arm64.log" >&2); then
  fail "the arm64 images differ from the amd64 ones on golden cases (above)"
fi
t_arm64=$(since "$t0")
log "golden cases, arm64 (qemu) against amd64: $t_arm64 s"
# The arm64 images run krmlib's C input check too (their own wheel, compiled under qemu).
t0=$(now_ns)
if ! "$PY" scripts/images/ccheck_probe.py "localhost/krmfn-e2e-$port/{fn}:arm64" "${KRMFN_FUNCTIONS[@]}"; then
  fail "an arm64 image does not run krmlib's C input check (above)"
fi
log "C input check in the arm64 images (qemu): $(since "$t0") s"

rows="$(grep -E '^golden_images: [a-z0-9-]+: ' "$work/logs/arm64.log" | grep -v skipping \
  | sed -E 's/^golden_images: ([a-z0-9-]+): ([0-9]+) of ([0-9]+) cases identical \(want ([0-9.]+) s, got ([0-9.]+) s, got\/want ([0-9.x-]+)\)$/| \1 | \2 of \3 | \4 s | \5 s | \6 |/')"
total="$(grep -E '^golden_images: total ' "$work/logs/arm64.log" \
  | sed -E 's/^golden_images: total want ([0-9.]+) s, got ([0-9.]+) s, got\/want ([0-9.x]+)$/| all | | \1 s | \2 s | \3 |/')"
scope="every golden case"; ((cases > 0)) && scope="the first $cases golden cases of each function"
section="Written by \`scripts/images/e2e-registry.sh\` (\`make e2e-images\`), $(date -u +%Y-%m-%d),
$(podman --version), $(dpkg-query -W -f='qemu-user-static ${Version}' qemu-user-static 2>/dev/null),
$(nproc) cores shared with other work: read the ratios, not the seconds.
The linux/arm64 variant of each function, pulled from the registry by its platform digest, runs
$scope (testdata/) under qemu on this $(host_arch) machine, and the linux/amd64 variant natively,
both through the runner shim (read-only root, no network, uid 65532, no capabilities); outputs and
exit codes must be equal byte for byte. Times are the sums of the calls (container start-up
included).

| function | identical | amd64 | arm64 (qemu) | arm64 / amd64 |
| --- | ---: | ---: | ---: | ---: |
$rows
$total"
"$PY" scripts/images/sizes_md.py Dockerfiles/SIZES.md arm64 <<<"$section"

log "registry round trip and arm64: $((SECONDS - start)) s (make push $t_push s, arm64 goldens $t_arm64 s)"
exit "$failed"
