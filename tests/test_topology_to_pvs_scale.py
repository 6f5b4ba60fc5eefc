"""topology-to-pvs does bounded work on big topologies (issue 37, item 5).

The check that two instances do not clone one package into one repository asked every pair of
instances with the same downstream package: an NFTopology of 4,000 instances took 32 s of CPU
(10,000: about 200 s). It now asks only the pairs that may land together; these tests hold that
the pairs left out are exactly pairs whose answer is "no", and that the count of pairs asked
grows with the instances, not with their square.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from krmfn.topology_to_pvs import Config, process
from krmfn.topology_to_pvs.labelselector import clean, may_overlap, pinned
from krmlib.testing import run_text

# the module (the package exports its `process` function under the same name)
topology_process = importlib.import_module("krmfn.topology_to_pvs.process")

KEYS = st.sampled_from(["cluster", "region", "tier"])
VALUES = st.sampled_from(["a", "b", "c"])
EXPRESSION = st.builds(
    lambda key, operator, values: (
        {"key": key, "operator": operator, "values": values}
        if operator in ("In", "NotIn")
        else {"key": key, "operator": operator}
    ),
    KEYS,
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]),
    st.lists(VALUES, min_size=1, max_size=2, unique=True),
)
SELECTOR = st.builds(
    lambda labels, expressions: {
        **({"matchLabels": labels} if labels else {}),
        **({"matchExpressions": expressions} if expressions else {}),
    },
    st.dictionaries(KEYS, VALUES, max_size=2),
    st.lists(EXPRESSION, max_size=2),
).filter(bool)


@settings(max_examples=400, deadline=None)
@given(st.lists(SELECTOR, min_size=2, max_size=12))
def test_the_pairs_left_out_never_overlap(selectors: list[dict[str, Any]]) -> None:
    pins = [pinned(s) for s in selectors]
    asked = set(topology_process._unpinned_pairs(list(range(len(selectors))), pins))
    assert all(a < b for a, b in asked)
    for a in range(len(selectors)):
        for b in range(a + 1, len(selectors)):
            if (a, b) in asked:
                continue
            assert not may_overlap(selectors[a], selectors[b]), (selectors[a], selectors[b])
            assert clean(selectors[a]) != clean(selectors[b])


def _instance(name: str, selector: str) -> str:
    return (
        f"    - name: {name}\n      clusterSelector: {selector}\n"
        "      nfTemplate: {nfType: upf, className: upf-class}\n"
    )


def _topology(instances: str) -> str:
    return (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: NFClass\n"
        "  metadata:\n    name: upf-class\n"
        "  spec:\n    packageRef: {repository: catalog, packageName: free5gc-upf, revision: v1}\n"
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: NFTopology\n"
        "  metadata:\n    name: topo\n    namespace: nf\n"
        "  spec:\n    nfInstances:\n" + instances
    )


def _run(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], int]:
    """Run the function in this process on ``text``: (its output, the pairs it asked about)."""
    asked = [0]
    real = topology_process._landing_together

    def counting(*args: Any) -> Any:
        asked[0] += 1
        return real(*args)

    monkeypatch.setattr(topology_process, "_landing_together", counting)
    out, code = run_text(process, Config, text)
    assert code in (0, 1), out[-2000:]
    return yaml.load(out, Loader=yaml.CSafeLoader), asked[0]


def test_ten_thousand_instances_each_on_its_own_cluster_ask_no_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    instances = "".join(
        _instance(f"upf-{i}", f"{{matchLabels: {{cluster: edge-{i}}}}}") for i in range(10_000)
    )
    out, asked = _run(_topology(instances), monkeypatch)
    assert sum(1 for i in out["items"] if i["kind"] == "PackageVariantSet") == 10_000
    assert asked == 0  # every pair pins `cluster` to two values: none can land together


def test_instances_sharing_a_cluster_are_still_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """300 instances on 150 clusters (two each) and one that selects every cluster: the 150
    equal pairs are errors, and the unpinned one may overlap with all 300 (warnings)."""
    instances = "".join(
        _instance(f"upf-{i}", f"{{matchLabels: {{cluster: edge-{i // 2}}}}}") for i in range(300)
    )
    instances += _instance("upf-all", "{matchExpressions: [{key: cluster, operator: Exists}]}")
    out, asked = _run(_topology(instances), monkeypatch)
    results = out.get("results") or []
    errors = [r for r in results if r.get("severity") == "error"]
    warnings = [r for r in results if "may both clone" in r.get("message", "")]
    assert len(errors) == 2 * 150  # each pair is named from both sides
    assert len(warnings) == 2 * 300
    assert asked == 150 + 300
