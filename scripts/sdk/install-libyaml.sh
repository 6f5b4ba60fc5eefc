#!/usr/bin/env bash
# libyaml's headers for krmlib's C extension (sdk/src/_ccheck.c, the whole-input check on
# libyaml's C API): Debian's libyaml-dev, installed with apt-get when missing; idempotent. Where
# it cannot be installed the build goes on without the extension (krmlib runs its Python check,
# same verdicts, slower) and says so.
set -euo pipefail
if [ -f /usr/include/yaml.h ] || dpkg-query -W -f='${Status}' libyaml-dev 2>/dev/null | grep -q 'install ok installed'; then
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && SUDO=(sudo -n) || {
    echo "install-libyaml: libyaml-dev is missing and this user cannot install it (krmlib builds without its C check)" >&2
    exit 0
  }
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-libyaml: libyaml-dev is missing and there is no apt-get (krmlib builds without its C check)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends libyaml-dev >/dev/null 2>&1 \
  || { "${SUDO[@]}" apt-get update -qq >/dev/null && \
       "${SUDO[@]}" apt-get install -y -qq --no-install-recommends libyaml-dev >/dev/null; } \
  || echo "install-libyaml: apt-get could not install libyaml-dev (krmlib builds without its C check)" >&2
