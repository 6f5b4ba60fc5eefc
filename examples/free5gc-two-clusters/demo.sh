#!/usr/bin/env bash
# make demo: the free5gc tree (a copy, given as $1) specialized from git alone by krmfn
# specialize (render, allocate from network/, inject, render again, to a fixpoint), then checked
# by krmfn specialize --check (nothing left to do).
set -euo pipefail
dir=${1:?usage: demo.sh COPY_OF_EXAMPLES_FREE5GC_TWO_CLUSTERS}
echo "--- krmfn specialize: every package to its readiness gates"
krmfn specialize "$dir" -q
echo "--- the ledger: $(grep -c '^- {owner' "$dir/network/ledger.yaml") IP and $(grep -c '^- {index' "$dir/network/ledger.yaml") VLAN allocations"
echo "--- krmfn specialize --check (a second run changes nothing)"
krmfn specialize --check "$dir" -q 2>&1 | tail -1
