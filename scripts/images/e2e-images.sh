#!/usr/bin/env bash
# Image mode must give byte-identical results to exec mode.
#
# First, every image must answer `kpt fn doc` (its --help). Then for every
# example package (examples/*/ with a Kptfile, or the package
# folders given as arguments), in a temporary folder:
#   exec/<pkg>   rendered as it is: kpt fn render --allow-exec, .venv/bin first
#                on PATH (the Kptfiles say `exec: krmfn-<fn>`);
#   image/<pkg>  every `exec: krmfn-<fn>` (or `exec: krmfn <fn>`) in every
#                Kptfile, subpackages included, rewritten to
#                `image: localhost/krmfn/<fn>:<version>` and rendered with
#                KPT_FN_RUNTIME=podman (or docker) kpt fn render;
# then the same rewrite is applied to the exec copy's Kptfiles (so the pipeline
# lines agree) and `diff -r` must find nothing. Any difference fails.
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
VERSION="$(project_version)"
TAG="${VERSION//+/_}"

for fn in "${KRMFN_FUNCTIONS[@]}"; do
  "$TOOL" image inspect "localhost/krmfn/$fn:$TAG" >/dev/null 2>&1 \
    || die "image localhost/krmfn/$fn:$TAG missing; run make images"
done

# Every image answers kpt fn doc (its --help), as the catalog expects.
doc_failed=0
for fn in "${KRMFN_FUNCTIONS[@]}"; do
  image="localhost/krmfn/$fn:$TAG"
  if ! doc="$(KPT_FN_RUNTIME="$TOOL" kpt fn doc --image "$image" 2>&1)" || [[ -z "$doc" ]]; then
    printf '%s\n' "$doc" | tail -n 15 >&2
    log "FAIL kpt fn doc --image $image"
    doc_failed=1
  fi
done

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
  exit "$doc_failed"
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
  "$PY" - "$1" "$TAG" "${KRMFN_FUNCTIONS[@]}" <<'PYEOF'
import pathlib, re, sys

root, tag, functions = pathlib.Path(sys.argv[1]), sys.argv[2], set(sys.argv[3:])
line_re = re.compile(
    r"""^(?P<lead>\s*(?:-\s+)?)exec:\s*(?P<q>["']?)(?P<cmd>krmfn(?:-|\s+)[^"'#]*?[^\s"'#])(?P=q)"""
    r"""(?P<tail>\s*(?:#.*)?)$"""
)
bad = []
for kptfile in sorted(root.rglob("Kptfile")):
    text = kptfile.read_text()
    out = []
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        body = line.rstrip("\r\n")
        m = line_re.match(body)
        if m:
            words = m["cmd"].split()
            fn = words[0][len("krmfn-"):] if words[0] != "krmfn" else (words[1:2] or [""])[0]
            extra = words[1:] if words[0] != "krmfn" else words[2:]
            if fn not in functions or extra:
                bad.append(f"{kptfile}:{n}: cannot run as an image: {body.strip()}")
            else:
                line = f"{m['lead']}image: localhost/krmfn/{fn}:{tag}{m['tail']}" + line[len(body):]
        elif re.match(r"^\s*(?:-\s+)?exec:.*\bkrmfn\b", body):
            bad.append(f"{kptfile}:{n}: unrecognised krmfn exec line: {body.strip()}")
        out.append(line)
    new = "".join(out)
    if new != text:
        kptfile.write_text(new)
if bad:
    sys.exit("\n".join(bad))
PYEOF
}

# Seconds since $1 (from now_ns), with one decimal.
now_ns() { date +%s%N; }
since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

image_path="$(tr ':' '\n' <<<"$PATH" | grep -vxF -e "$KRMFN_ROOT/$VENV/bin" -e "$VENV/bin" \
  | paste -sd: -)"

failed=$doc_failed
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
    log "FAIL $pkg: exec-mode render failed"
    failed=1
    continue
  fi
  t_exec=$(since "$t0")

  # No .venv/bin on PATH here (make puts it there): a krmfn function left in
  # exec mode must fail.
  t0=$(now_ns)
  if ! (cd "$work/image" && PATH="$image_path" KPT_FN_RUNTIME="$TOOL" \
      kpt fn render --allow-exec "$name" >"$work/logs/$name.image.log" 2>&1); then
    cat "$work/logs/$name.image.log" >&2
    log "FAIL $pkg: image-mode render failed"
    failed=1
    continue
  fi
  t_image=$(since "$t0")

  to_image "$work/exec/$name"
  if diff -r "$work/exec/$name" "$work/image/$name" >"$work/logs/$name.diff" 2>&1; then
    log "ok   $pkg (exec ${t_exec} s, image ${t_image} s)"
    count=$((count + 1))
  else
    cat "$work/logs/$name.diff" >&2
    log "FAIL $pkg: image mode differs from exec mode (diff above)"
    failed=1
  fi
done

log "$count of ${#packages[@]} packages identical in exec and image mode ($TOOL); total $((SECONDS - start)) s"
exit "$failed"
