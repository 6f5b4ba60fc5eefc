"""Rules of krmfn-topology-to-pvs that the golden cases do not show well."""

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from krmfn.topology_to_pvs import Config, process
from krmfn.topology_to_pvs.labelselector import check_selector, matches
from krmfn.topology_to_pvs.naming import dns_label, label_value
from krmlib import ConfigError, KubeObject, ResourceList, Result, parse_config
from krmlib.testing import run_resource_list, run_text

TESTDATA = Path(__file__).resolve().parent.parent / "testdata" / "topology-to-pvs"


# --- names -------------------------------------------------------------------------------------


def test_dns_label_cleans_and_keeps_short_names() -> None:
    assert dns_label("Topo_1", "UPF.One") == "topo-1-upf-one"
    assert dns_label("--a--", "b") == "a-b"
    assert len(dns_label("x" * 63)) == 63


def test_dns_label_cuts_long_names_to_54_plus_hash() -> None:
    full = "t" * 40 + "-" + "i" * 40
    name = dns_label("t" * 40, "i" * 40)
    digest = hashlib.sha1(full.encode()).hexdigest()[:8]
    assert name == full[:54] + "-" + digest
    assert len(name) == 63
    assert dns_label("t" * 40, "j" * 40) != name


def test_label_value_kept_when_valid_else_shortened() -> None:
    assert label_value("Short_Instance.1") == "Short_Instance.1"
    assert label_value("a" * 64) != "a" * 64
    assert len(label_value("a" * 64)) == 63
    assert label_value("-bad") == "bad"


# --- selectors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "labels", "expected"),
    [
        ({"key": "r", "operator": "In", "values": ["a", "b"]}, {"r": "b"}, True),
        ({"key": "r", "operator": "In", "values": ["a"]}, {}, False),
        ({"key": "r", "operator": "NotIn", "values": ["a"]}, {}, True),
        ({"key": "r", "operator": "NotIn", "values": ["a"]}, {"r": "a"}, False),
        ({"key": "r", "operator": "Exists"}, {"r": ""}, True),
        ({"key": "r", "operator": "Exists"}, {}, False),
        ({"key": "r", "operator": "DoesNotExist"}, {}, True),
        ({"key": "r", "operator": "DoesNotExist"}, {"r": "x"}, False),
    ],
)
def test_match_expressions(expr: dict[str, Any], labels: dict[str, str], expected: bool) -> None:
    selector = {"matchExpressions": [expr]}
    assert check_selector(selector, "s") == []
    assert matches(selector, labels) is expected


def test_match_labels_and_expressions_are_anded() -> None:
    selector = {
        "matchLabels": {"tier": "edge"},
        "matchExpressions": [{"key": "r", "operator": "In", "values": ["w"]}],
    }
    assert matches(selector, {"tier": "edge", "r": "w"})
    assert not matches(selector, {"tier": "edge", "r": "e"})
    assert not matches(selector, {"tier": "core", "r": "w"})


def test_empty_selectors_are_problems() -> None:
    selector: Any
    for selector in (None, {}, {"matchLabels": {}}, {"matchExpressions": []}):
        problems = check_selector(selector, "spec.x")
        assert problems and problems[0][0] == "spec.x"


# --- config ------------------------------------------------------------------------------------


def _configmap(data: dict[str, str]) -> KubeObject:
    return KubeObject.from_dict(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data}
    )


def test_configmap_wait_rules() -> None:
    config = parse_config(Config, _configmap({"wait-rules": "smf:upf, amf:smf"}))
    assert [(r.waiter, r.waits_for) for r in config.wait_rules] == [("smf", "upf"), ("amf", "smf")]
    none = parse_config(Config, _configmap({"wait-rules": ""}))
    assert none.wait_rules == ()
    assert Config().wait_rules[0].waiter == "smf"


def test_configmap_booleans_and_choices() -> None:
    data = {"list-planned": "true", "revision-type": "integer", "capacity-mode": "none"}
    config = parse_config(Config, _configmap(data))
    assert config.list_planned is True
    assert config.revision_type == "integer"
    with pytest.raises(ConfigError) as info:
        parse_config(Config, _configmap({"target-selector": "clusterSelector"}))
    assert info.value.field == "data.target-selector"


def test_a_type_cannot_wait_for_itself() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(Config, _configmap({"wait-rules": "smf:smf"}))
    assert info.value.field == "data.wait-rules"


# --- behaviour on rendered output --------------------------------------------------------------


def _run(text: str, config: str = "") -> ResourceList:
    output, code = run_text(process, Config, text + config)
    assert code == 0, output
    return ResourceList.parse(output)


def _source(case: str) -> str:
    from krmlib.testing import kpt_source

    return kpt_source(TESTDATA / case / "package")


def test_unchanged_sets_are_emitted_as_their_original_text() -> None:
    once = _run(_source("basic")).to_yaml(with_results=False)
    rl = ResourceList.parse(once)
    process(rl, Config())
    generated = [o for o in rl.items if o.kind in ("PackageVariantSet", "NFDeployed")]
    assert len(generated) == 6
    assert not any(o.changed for o in generated)


def test_gate_turns_true_only_when_every_repository_is_published() -> None:
    text = _source("package-revisions")
    extra = """- apiVersion: porch.kpt.dev/v1alpha1
  kind: PackageRevision
  metadata:
    name: edge-1b
    namespace: nf-test
    labels: {nf-deployment-name: topology-123, nfinstance: free5gc-upf-1}
  spec: {packageName: free5gc-upf, repository: edge-1b, lifecycle: Proposed}
"""
    assert "functionConfig:" not in text  # items come last: append one more
    text += extra
    rl = _run(text)
    smf = next(o for o in rl.items if o.name == "aggregation-33bb44")
    conditions = {c["type"]: c for c in smf.get("status.conditions")}
    gate = conditions["wait-for-upf-free5gc-upf-1"]
    assert gate["status"] == "False"
    assert "edge-1b" in gate["message"]
    nfdeployed = next(o for o in rl.items if o.kind == "NFDeployed")
    ids = [i["id"] for i in nfdeployed.get("spec.nfinstances")]
    assert ids == ["free5gc-upf-1-edge-1", "free5gc-smf-1-aggregation"]


def test_published_waiters_are_left_alone() -> None:
    rl = _run(_source("package-revisions"))
    published_smf = next(o for o in rl.items if o.name == "aggregation-11aa22")
    assert not published_smf.changed
    other = next(o for o in rl.items if o.name == "other-deployment")
    assert not other.changed


# --- documentation -------------------------------------------------------------------------------

README = Path(__file__).resolve().parent.parent / "krmfn" / "topology_to_pvs" / "README.md"


def _yaml_blocks(text: str) -> list[str]:
    return [block.split("```", 1)[0] for block in text.split("```yaml\n")[1:]]


def test_readme_config_examples_parse() -> None:
    blocks = [
        b for b in _yaml_blocks(README.read_text()) if "TopologyToPVS" in b or "function-input" in b
    ]
    assert len(blocks) == 2
    typed, configmap = (KubeObject.from_yaml(b) for b in blocks)
    assert parse_config(Config, typed) == Config()
    parsed = parse_config(Config, configmap)
    assert parsed.target_selector == "objectSelector"
    assert [(r.waiter, r.waits_for) for r in parsed.wait_rules] == [("smf", "upf"), ("amf", "smf")]
    assert (parsed.approval_policy, parsed.downstream_package) == ("initial", "{instance}")


def test_the_default_revision_is_an_integer_for_current_porch() -> None:
    assert Config().revision_type == "integer"


def test_an_unknown_downstream_placeholder_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(Config, _configmap({"downstream-package": "{cluster}-x"}))
    assert info.value.field == "data.downstream-package"
    assert "unknown placeholder {cluster}" in info.value.message


def test_a_package_without_topology_says_there_is_nothing_to_do() -> None:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    text += "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n"
    rl = run_resource_list(process, Config, text)
    [result] = list(rl.results)
    assert result.severity.value == "info"
    assert result.message.startswith("no NFTopology")
    assert [o.kind for o in rl.items] == ["ConfigMap"]


def _not_pin(results: Iterable[Result]) -> list[Result]:
    """The results but the warning that a class revision pins nothing in current Porch (it holds
    on every run without the catalog's PackageRevisions; tests/test_topology_to_pvs_porch_now)."""
    return [r for r in results if "ignores upstream.revision" not in r.message]


def test_a_rerun_creates_nothing_and_says_nothing() -> None:
    once = run_resource_list(process, Config, _source("basic"))
    assert [r.message for r in _not_pin(once.results)] == [
        "created 1 NFDeployed, 5 PackageVariantSets"
    ]
    twice = run_resource_list(process, Config, once.to_yaml(with_results=False))
    assert _not_pin(twice.results) == []


def test_workload_clusters_under_repository_selector_get_a_warning() -> None:
    text = _source("object-selector")  # WorkloadClusters, no Repository
    rl = run_resource_list(process, Config, text)
    [warning] = [r for r in _not_pin(rl.results) if r.severity.value == "warning"]
    assert warning.message.startswith("targetSelector is repositorySelector, but the package")
    assert warning.field_path == "spec.targetSelector"
