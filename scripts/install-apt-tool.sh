#!/usr/bin/env bash
# One system tool from apt, for the tests that need it: installed with apt-get when missing;
# idempotent. Where it cannot be installed, the tests that need it skip and say so.
#
#   scripts/install-apt-tool.sh PACKAGE [COMMAND] [WHO]
#
# PACKAGE is the Debian package, COMMAND the program it brings (default: PACKAGE), WHO what
# skips without it (default: "the tests that need it"). Used by `make strace` (mk/durability.mk:
# the fault-injection tests) and `make valgrind` (mk/bench.mk: the instruction-count check).
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 3 ] || [ -z "$1" ]; then
  echo "usage: $0 PACKAGE [COMMAND] [WHO]" >&2
  exit 2
fi
package=$1
command=${2:-$1}
who=${3:-the tests that need it}
if command -v "$command" >/dev/null 2>&1; then
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && SUDO=(sudo -n) || {
    echo "install-apt-tool: $command is missing and this user cannot install it ($who skip)" >&2
    exit 0
  }
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-apt-tool: $command is missing and there is no apt-get ($who skip)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1 \
  || { "${SUDO[@]}" apt-get update -qq >/dev/null && \
       "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$package" >/dev/null; } \
  || echo "install-apt-tool: apt-get could not install $package ($who skip)" >&2
