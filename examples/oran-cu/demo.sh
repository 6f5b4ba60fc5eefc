#!/usr/bin/env bash
# make demo: prepare the oran-cu tree (a copy, given as $1) with krmfn prepare-all, twice:
# the first run prepares the topology and its six children, the second changes nothing.
set -euo pipefail
dir=${1:?usage: demo.sh COPY_OF_EXAMPLES_ORAN_CU}
echo "--- krmfn prepare-all $dir"
krmfn prepare-all "$dir"
echo "--- again (a fixpoint: nothing changes)"
krmfn prepare-all "$dir" 2>&1 | grep -E '^pass|^ID|yes|no' || true
