#!/usr/bin/env bash
# kpt on PATH for a machine that lacks it (a CI runner): the release binary of the
# version the project is tested with, into $VENV/bin (which make puts first on PATH).
# Nothing to do when `kpt version` already answers with that version.
#   Env: KRMFN_KPT_VERSION (default 1.0.0-beta.56), VENV (default .venv).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KRMFN_ROOT"

want="${KRMFN_KPT_VERSION:-1.0.0-beta.56}"
if command -v kpt >/dev/null 2>&1 && [[ "$(kpt version 2>/dev/null)" == "$want" ]]; then
  exit 0
fi
case "$(host_arch)" in
  amd64 | arm64) ;;
  *) die "no kpt release binary for $(host_arch)" ;;
esac
dest="${VENV:-.venv}/bin/kpt"
mkdir -p "$(dirname "$dest")"
url="https://github.com/kptdev/kpt/releases/download/v$want/kpt_linux_$(host_arch)"
log "downloading kpt $want ($url)"
curl -fsSL --retry 3 -o "$dest.tmp" "$url" || die "downloading $url failed"
chmod +x "$dest.tmp"
mv "$dest.tmp" "$dest"
[[ "$("$dest" version)" == "$want" ]] || die "$dest is not kpt $want"
