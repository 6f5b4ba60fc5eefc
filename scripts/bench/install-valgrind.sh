#!/usr/bin/env bash
# valgrind for the instruction-count check (bench/instructions.py, tests/test_bench_instructions.py):
# installed with apt-get when missing; idempotent. Where it cannot be installed, the test skips.
set -euo pipefail
if command -v valgrind >/dev/null 2>&1; then
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && SUDO=(sudo -n) || {
    echo "install-valgrind: valgrind is missing and this user cannot install it (the check skips)" >&2
    exit 0
  }
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-valgrind: valgrind is missing and there is no apt-get (the check skips)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends valgrind >/dev/null 2>&1 \
  || { "${SUDO[@]}" apt-get update -qq >/dev/null && \
       "${SUDO[@]}" apt-get install -y -qq --no-install-recommends valgrind >/dev/null; } \
  || echo "install-valgrind: apt-get could not install valgrind (the check skips)" >&2
