#!/usr/bin/env bash
# make demo: render every example package with real kpt (exec mode) on a copy, show what changed.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shown=0
for pkg in */; do
  pkg=${pkg%/}
  [ -f "$pkg/Kptfile" ] || continue
  shown=1
  echo "=== examples/$pkg: kpt fn render --allow-exec"
  cp -r "$pkg" "$work/$pkg"
  ( cd "$work" && git init -q "$pkg" && git -C "$pkg" add -A && git -C "$pkg" -c user.email=demo@krmfn -c user.name=demo commit -qm before )
  if [ -x "$pkg/demo.sh" ]; then
    "$pkg/demo.sh" "$work/$pkg"
  else
    kpt fn render --allow-exec "$work/$pkg"
  fi
  echo "--- what changed (git diff --stat, then the diff):"
  git -C "$work/$pkg" add -A
  git -C "$work/$pkg" diff --cached --stat
  git -C "$work/$pkg" diff --cached | sed -n "1,200p"  # sed reads it all: no SIGPIPE under pipefail
  echo
done
[ "$shown" = 1 ] || echo "no example packages yet"
