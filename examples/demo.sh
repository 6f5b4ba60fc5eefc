#!/usr/bin/env bash
# make demo: render every example package with real kpt (exec mode) on a copy, show what changed.
# Short by default (a summary per example: the files changed); V=1 (make demo V=1) shows kpt's
# output and the full diffs.
set -euo pipefail
verbose=${V:-0}
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shown=0
for pkg in */; do
  pkg=${pkg%/}
  [ -f "$pkg/Kptfile" ] || continue
  shown=1
  if [ -x "$pkg/demo.sh" ]; then
    echo "=== examples/$pkg: examples/$pkg/demo.sh"
  else
    echo "=== examples/$pkg: kpt fn render --allow-exec"
  fi
  cp -r "$pkg" "$work/$pkg"
  ( cd "$work" && git init -q "$pkg" && git -C "$pkg" add -A && git -C "$pkg" -c user.email=demo@krmfn -c user.name=demo commit -qm before )
  log="$work/$pkg.log"
  if [ -x "$pkg/demo.sh" ]; then
    run=("$pkg/demo.sh" "$work/$pkg")
  else
    run=(kpt fn render --allow-exec "$work/$pkg")
  fi
  if [ "$verbose" = 1 ]; then
    "${run[@]}"
  elif [ -x "$pkg/demo.sh" ]; then  # its own summary on stdout (prepare-all's table)
    "${run[@]}" 2>"$log" || { cat "$log"; exit 1; }
  elif ! "${run[@]}" >"$log" 2>&1; then
    cat "$log"
    exit 1
  fi
  git -C "$work/$pkg" add -A
  if [ "$verbose" = 1 ]; then
    echo "--- what changed (git diff --stat, then the diff):"
    git -C "$work/$pkg" diff --cached --stat
    git -C "$work/$pkg" diff --cached | sed -n "1,200p"  # sed reads it all: no SIGPIPE
  else
    echo "--- what changed:"
    if [ "$(git -C "$work/$pkg" diff --cached --name-only | wc -l)" -le 12 ]; then
      git -C "$work/$pkg" diff --cached --stat=100 | sed 's/^/  /'
    else  # many files: per folder, then the total
      git -C "$work/$pkg" diff --cached --dirstat=files,0 | sed 's/^/  /'
      git -C "$work/$pkg" diff --cached --shortstat | sed 's/^/  /'
    fi
  fi
  echo
done
[ "$shown" = 1 ] || echo "no example packages yet"
[ "$verbose" = 1 ] || echo "(make demo V=1 shows kpt's output and the full diffs)"
