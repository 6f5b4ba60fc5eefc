#!/usr/bin/env bash
# The interpreter of Python X.Y: pyenv's newest X.Y.*, else pythonX.Y on PATH; fails with a message.
set -euo pipefail
v=$1
root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for py in $(ls -d "$root"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V -r); do
  [ -x "$py" ] && { echo "$py"; exit 0; }
done
command -v "python$v" && exit 0
echo "find-python: no Python $v (pyenv versions or python$v on PATH)" >&2
exit 1
