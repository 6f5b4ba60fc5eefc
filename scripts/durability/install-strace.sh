#!/usr/bin/env bash
# strace for the fault-injection tests (tests/test_durability_faults.py): installed with apt-get
# when missing; idempotent. Where it cannot be installed, the tests skip and say so.
set -euo pipefail
if command -v strace >/dev/null 2>&1; then
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && SUDO=(sudo -n) || {
    echo "install-strace: strace is missing and this user cannot install it (the fault tests skip)" >&2
    exit 0
  }
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-strace: strace is missing and there is no apt-get (the fault tests skip)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends strace >/dev/null 2>&1 \
  || { "${SUDO[@]}" apt-get update -qq >/dev/null && \
       "${SUDO[@]}" apt-get install -y -qq --no-install-recommends strace >/dev/null; } \
  || echo "install-strace: apt-get could not install strace (the fault tests skip)" >&2
