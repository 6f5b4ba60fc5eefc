#!/usr/bin/env bash
# One Debian package the project needs, installed with apt-get when missing; idempotent. Where it
# cannot be installed, what needs it goes without and says so.
#
#   scripts/install-apt-tool.sh PACKAGE [COMMAND|/FILE] [WHO]
#
# PACKAGE is the Debian package; COMMAND the program it brings (default: PACKAGE), or a /FILE it
# brings (a header); WHO what goes without it (default: "the tests that need it skip"). Used by
# `make strace` (mk/durability.mk: the fault-injection tests), `make valgrind` (mk/bench.mk: the
# instruction-count check) and `make install` / `make test-pythons` (libyaml's headers for
# krmlib's C input check, sdk/setup.py).
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 3 ] || [ -z "$1" ]; then
  echo "usage: $0 PACKAGE [COMMAND] [WHO]" >&2
  exit 2
fi
package=$1
command=${2:-$1}
who=${3:-the tests that need it skip}
if [[ $command == /* ]]; then
  [ -e "$command" ] && exit 0
elif command -v "$command" >/dev/null 2>&1; then
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && SUDO=(sudo -n) || {
    echo "install-apt-tool: $command is missing and this user cannot install it ($who)" >&2
    exit 0
  }
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-apt-tool: $command is missing and there is no apt-get ($who)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1 \
  || { "${SUDO[@]}" apt-get update -qq >/dev/null && \
       "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$package" >/dev/null; } \
  || echo "install-apt-tool: apt-get could not install $package ($who)" >&2
