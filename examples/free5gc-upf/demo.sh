#!/usr/bin/env bash
# make demo: the free5gc UPF package (a copy, given as $1) through the stages Porch takes it:
# rendered with its claims not yet filled (the readiness gate False), then filled by the IPAM/VLAN
# specializer and rendered again (the NADs, the DataNetwork's pools and the NFDeployment's spec
# appear, every condition and the gate become True), then rendered once more (nothing changes).
set -euo pipefail
dir=${1:?usage: demo.sh COPY_OF_EXAMPLES_FREE5GC_UPF}
here=$(cd "$(dirname "$0")" && pwd)
conditions() { grep -c 'status: "True"' "$dir/Kptfile" || true; }
gate() {
  grep -A2 'type: nephio.org.Specializer.specialize' "$dir/Kptfile" | grep -o 'status: "[A-Za-z]*"' \
    | head -1
}
echo "--- kpt fn render: claims without status"
kpt fn render --allow-exec "$dir" >&2
echo "    Kptfile conditions True: $(conditions); readiness gate nephio.org.Specializer.specialize: $(gate)"
echo "--- the specializer fills the claims (kpt fn eval --exec specializer.py), kpt fn render"
kpt fn eval "$dir" --exec "$here/specializer.py" >&2
kpt fn render --allow-exec "$dir" >&2
echo "    Kptfile conditions True: $(conditions), NADs: $(cd "$dir" && ls networkattachmentdefinition_*.yaml | tr '\n' ' ')"
echo "    readiness gate nephio.org.Specializer.specialize: $(gate)"
echo "--- kpt fn render again (settled: nothing changes)"
before=$(cat "$dir"/*.yaml "$dir/Kptfile" | cksum)
kpt fn render --allow-exec "$dir" >&2
[ "$(cat "$dir"/*.yaml "$dir/Kptfile" | cksum)" = "$before" ] && echo "    unchanged"
