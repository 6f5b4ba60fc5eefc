"""ChildSync with thousands of children: no recursion over items (issue 27, bounded work).

topology-to-pvs places each new PackageVariantSet right after the one before it
(``in_desired_order``): a chain of anchors as long as the children, which once recursed once per
child and ended in "the input is nested too deeply" at about 1,000.
"""

from __future__ import annotations

import subprocess
import sys

import yaml

from krmlib import KubeObject, ResourceList
from krmlib.children import ChildSync, OwnerNameAnnotation, RemoveChild

COUNT = 1200


def _topology(count: int) -> str:
    instances = "".join(
        f"  - name: upf-{i}\n"
        f"    clusterSelector: {{matchLabels: {{cluster: edge-{i}}}}}\n"
        "    nfTemplate: {nfType: upf, className: upf-class}\n"
        for i in range(count)
    )
    return (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: NFClass\n"
        "  metadata:\n    name: upf-class\n"
        "  spec:\n    packageRef: {repository: catalog, packageName: free5gc-upf, revision: v1}\n"
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: NFTopology\n"
        "  metadata:\n    name: topo\n    namespace: nf\n"
        "  spec:\n    nfInstances:\n"
        + "\n".join("  " + line if line else "" for line in instances.split("\n"))
    )


def test_topology_to_pvs_makes_more_than_a_thousand_package_variant_sets() -> None:
    """The real function, as kpt runs it (stdin to stdout), on one NFTopology of 1,200
    instances: 1,200 PackageVariantSets, in the order of the instances."""
    run = subprocess.run(
        [sys.executable, "-m", "krmfn.topology_to_pvs"],
        input=_topology(COUNT),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr + run.stdout[-2000:]
    out = yaml.load(run.stdout, Loader=yaml.CSafeLoader)
    sets = [i for i in out["items"] if i["kind"] == "PackageVariantSet"]
    assert len(sets) == COUNT
    names = [s["metadata"]["name"] for s in sets]
    assert names == sorted(names, key=lambda n: int(n.rsplit("-", 1)[1])), names[:5]


def test_child_sync_chains_of_new_children_are_emitted_in_order_without_recursion() -> None:
    """The library alone: 5,000 new children of one owner, each anchored on the one before
    (far deeper than the interpreter's recursion limit), come out in order after the owner."""
    owner = KubeObject.from_dict({"apiVersion": "v1", "kind": "Owner", "metadata": {"name": "o"}})
    tail = KubeObject.from_dict({"apiVersion": "v1", "kind": "Other", "metadata": {"name": "t"}})
    rl = ResourceList()
    rl.items.append(owner)
    rl.items.append(tail)
    sync = ChildSync(
        rl.items,
        owns=[("v1", "Child")],
        ownership=OwnerNameAnnotation("example.com/owner", "Owner", ("",)),
        deletion=RemoveChild(),
        in_desired_order=True,
    )
    count = max(5000, sys.getrecursionlimit() * 3)
    desired = [
        KubeObject.from_dict({"apiVersion": "v1", "kind": "Child", "metadata": {"name": f"c{i}"}})
        for i in range(count)
    ]
    changes = sync.sync(owner, desired)
    sync.apply()
    assert [c.action for c in changes] == ["create"] * count
    assert [o.name for o in rl.items] == ["o", *(f"c{i}" for i in range(count)), "t"]
