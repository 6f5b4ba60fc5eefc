"""topology-to-pvs against Porch as it behaves now (issue 38.2).

Upstream: nephio-project/porch 74d82d569e3745235ce34a7db71fa7e958c508ff,
controllers/packagevariants/pkg/controllers/packagevariant/packagevariant_controller.go
(``isValidUpstream`` resets ``upstream.Revision``; ``getUpstreamPR`` matches
``upstream.WorkspaceName`` or else the ``main`` revision: since 3499eaf7, 2025-05-01), and
controllers/packagevariantsets/api/v1alpha2/packagevariantset_types.go (``template.adoptionPolicy``,
values ``adoptExisting`` / ``adoptNone`` from controllers/packagevariants/api/v1alpha1/
packagevariant_types.go).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from krmfn.topology_to_pvs import Config, process
from krmfn.topology_to_pvs.pvs import CAPACITY_FIELDS, CAPACITY_FUNCTION
from krmlib import ResourceList
from krmlib.testing import kpt_source, run_resource_list

BASIC = Path(__file__).resolve().parent.parent / "testdata" / "topology-to-pvs" / "basic"


def _catalog_pr(name: str, package: str, revision: int, workspace: str) -> str:
    return (
        f"- apiVersion: porch.kpt.dev/v1alpha1\n  kind: PackageRevision\n"
        f"  metadata:\n    name: {name}\n    namespace: default\n"
        f"  spec:\n    repository: catalog\n    packageName: {package}\n"
        f"    revision: {revision}\n    workspaceName: {workspace}\n    lifecycle: Published\n"
    )


CATALOG = "".join(
    [
        _catalog_pr("catalog-upf-1", "free5gc-upf", 1, "v1"),
        _catalog_pr("catalog-upf-2", "free5gc-upf", 2, "ws-upf-2"),
        _catalog_pr("catalog-smf-2", "free5gc-smf", 2, "ws-smf-2"),
        _catalog_pr("catalog-amf-3", "free5gc-amf", 3, "ws-amf-3"),
    ]
)


def _run(extra: str = "", config: str = "") -> ResourceList:
    text = kpt_source(BASIC / "package")
    head, sep, tail = text.partition("items:\n")
    text = head + sep + extra + tail
    if config:
        text += "functionConfig:\n" + config
    return run_resource_list(process, Config, text)


def _upstreams(rl: ResourceList) -> dict[str, dict[str, object]]:
    return {o.name: dict(o.get("spec.upstream")) for o in rl.items if o.kind == "PackageVariantSet"}


def test_without_the_catalog_each_revision_pin_gets_a_warning() -> None:
    rl = _run()
    pins = [r for r in rl.results if "ignores upstream.revision" in r.message]
    assert {(r.resource_ref or {}).get("name") for r in pins} == {
        "upf-class-1",
        "smf-class-1",
        "amf-class-1",
    }
    assert all(r.severity.value == "warning" for r in pins)
    assert all(r.field_path == "spec.packageRef.revision" for r in pins)
    assert all("workspaceName" not in u for u in _upstreams(rl).values())


def test_with_the_catalog_the_pin_is_its_workspace_name() -> None:
    rl = _run(CATALOG)
    assert not [r for r in rl.results if r.severity.value in ("warning", "error")]
    ups = _upstreams(rl)
    upf = ups["topology-123-free5gc-upf-1"]
    assert upf == {
        "repo": "catalog",
        "package": "free5gc-upf",
        "revision": 1,
        "workspaceName": "v1",
    }
    smf = ups["topology-123-free5gc-smf-1"]
    assert smf["workspaceName"] == "ws-smf-2" and smf["revision"] == 2
    # a second run on the output changes nothing
    again = run_resource_list(process, Config, rl.to_yaml(with_results=False))
    assert _upstreams(again) == ups
    assert not any(o.changed for o in again.items)


def test_a_revision_the_catalog_lacks_is_an_error_and_nothing_is_written() -> None:
    catalog = CATALOG.replace(
        "revision: 2\n    workspaceName: ws-smf-2", "revision: 1\n    workspaceName: ws-smf-1"
    )
    rl = _run(catalog)
    errors = [r for r in rl.results if r.severity.value == "error"]
    assert len(errors) == 1
    [error] = errors
    assert error.resource_ref is not None and error.resource_ref["name"] == "smf-class-1"
    assert error.field_path == "spec.packageRef.revision"
    assert "published revisions are 1" in error.message
    assert not [o for o in rl.items if o.kind == "PackageVariantSet"]


def test_a_revision_without_a_number_is_one_error_and_no_pin_warning() -> None:
    """``revision: main`` is an error under revisionType integer; a warning that the class
    pins revision main as well would tell the user to fix a pin that cannot exist."""
    amf = "packageName: free5gc-amf\n      revision: 3"
    for extra in ("", CATALOG):
        text = kpt_source(BASIC / "package")
        assert amf in text
        head, sep, tail = text.replace(amf, amf[:-1] + "main").partition("items:\n")
        rl = run_resource_list(process, Config, head + sep + extra + tail)
        on_amf = [r for r in rl.results if (r.resource_ref or {}).get("name") == "amf-class-1"]
        assert [r.severity.value for r in on_amf] == ["error"], [r.message for r in on_amf]
        assert "has no revision number" in on_amf[0].message


def _held(adopt: str = "") -> ResourceList:
    repo = (
        "- apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: Repository\n"
        "  metadata:\n    name: edge-1\n    namespace: nf-test\n"
        "    labels: {region: us-west-1, cluster: edge-1}\n"
    )
    other = (
        "- apiVersion: porch.kpt.dev/v1alpha1\n  kind: PackageRevision\n"
        "  metadata:\n    name: edge-1-hand-made\n    namespace: nf-test\n"
        "  spec:\n    repository: edge-1\n    packageName: free5gc-upf\n"
        "    revision: 1\n    lifecycle: Published\n"
    )
    config = ""
    if adopt:
        config = (
            "  apiVersion: krmfn.dev/v1alpha1\n  kind: TopologyToPVS\n  metadata:\n    name: c\n"
            f"  spec:\n    adoptionPolicy: {adopt}\n"
        )
    return _run(CATALOG + repo + other, config)


def test_a_target_that_already_holds_the_package_is_reported() -> None:
    rl = _held()
    [held] = [r for r in rl.results if "already hold" in r.message]
    assert held.severity.value == "warning"
    assert "edge-1 already hold package free5gc-upf" in held.message
    assert "adoptionPolicy: adoptExisting" in held.message
    assert held.field_path == "spec.nfInstances[0].clusterSelector"


def test_adopt_existing_is_a_config_choice_written_to_the_template() -> None:
    rl = _held("adoptExisting")
    [held] = [r for r in rl.results if "already hold" in r.message]
    assert held.severity.value == "info"
    pvs = [o for o in rl.items if o.kind == "PackageVariantSet"]
    assert pvs and all(
        o.get("spec.targets[0].template.adoptionPolicy") == "adoptExisting" for o in pvs
    )


# --- capacity to where Nephio's blueprints read it ------------------------------------------
# nephio-project/catalog 5e1a968e8cbd09a6b930405e38ee6a2ef066c8eb: workloads/free5gc/
# pkg-example-{upf,smf,amf}-bp/capacity.yaml hold a local-config req.nephio.org/v1alpha1
# Capacity; its CRD is nephio/core/nephio-operator/crd/bases/req.nephio.org_capacities.yaml
# (vendored: testdata/crds/req.nephio.org_Capacity_v1alpha1.json). search-replace sets a field by
# an absolute by-path as a plain scalar, its tag left empty so YAML implies the type
# (kptdev/krm-functions-catalog functions/go/search-replace/searchreplace/search_replace.go
# putValueByPath @0c8f75d9).

CRDS = BASIC.parent.parent / "crds"
PORCH_NOW = BASIC.parent / "porch-now"
UPF_BLUEPRINT_CAPACITY: dict[str, Any] = {
    "apiVersion": "req.nephio.org/v1alpha1",
    "kind": "Capacity",
    "metadata": {"name": "dataplane", "annotations": {"config.kubernetes.io/local-config": "true"}},
    "spec": {"maxUplinkThroughput": "5G", "maxDownlinkThroughput": "5G"},
}


def _capacity_schema() -> dict[str, Any]:
    data = json.loads((CRDS / "req.nephio.org_Capacity_v1alpha1.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_capacity_fields_are_the_crds() -> None:
    assert set(CAPACITY_FIELDS) == set(_capacity_schema()["properties"]["spec"]["properties"])


def _search_replace(obj: dict[str, Any], mutator: dict[str, Any]) -> None:
    """What search-replace does with an absolute by-path and a put-value (no by-value)."""
    selector = mutator["selectors"][0]
    if (obj["apiVersion"], obj["kind"]) != (selector["apiVersion"], selector["kind"]):
        return
    *parents, last = mutator["configMap"]["by-path"].split(".")
    node = obj
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = yaml.safe_load(mutator["configMap"]["put-value"])  # a plain scalar


def test_capacity_resource_mode_sets_a_valid_capacity_in_the_blueprint() -> None:
    """porch-now's PVSs carry capacity as template.pipeline search-replace mutators selecting
    the Capacity; applied to the UPF blueprint's Capacity they give one the CRD accepts, with
    the topology's values."""
    out = yaml.safe_load((PORCH_NOW / "expected" / "output.yaml").read_text(encoding="utf-8"))
    [upf] = [o for o in out["items"] if o["metadata"]["name"] == "topology-123-free5gc-upf-1"]
    mutators = upf["spec"]["targets"][0]["template"]["pipeline"]["mutators"]
    assert all(m["image"] == CAPACITY_FUNCTION for m in mutators)
    assert all(
        "." not in m["name"] for m in mutators
    )  # Porch names them PackageVariant.<pv>.<name>.<i>
    capacity = copy.deepcopy(UPF_BLUEPRINT_CAPACITY)
    for mutator in mutators:
        _search_replace(capacity, mutator)
    assert capacity["spec"] == {
        "maxUplinkThroughput": "10G",
        "maxDownlinkThroughput": "10G",
        "maxSessions": 1000,
        "maxSubscribers": 1000,
        "maxNFConnections": 50,
    }
    jsonschema.Draft7Validator(_capacity_schema()).validate(capacity)
    assert "packageContext" not in upf["spec"]["targets"][0]["template"]


def test_a_capacity_key_the_capacity_lacks_is_a_warning() -> None:
    text = kpt_source(BASIC / "package").replace("maxNFConnections", "maxPonies", 1)
    text += (
        "functionConfig:\n  apiVersion: krmfn.dev/v1alpha1\n  kind: TopologyToPVS\n"
        "  metadata:\n    name: c\n  spec:\n    capacityMode: capacityResource\n"
    )
    rl = run_resource_list(process, Config, text)
    [warning] = [r for r in rl.results if "maxPonies" in r.message]
    assert warning.severity.value == "warning"
    assert warning.field_path is not None and warning.field_path.endswith(".nfTemplate.capacity")


def test_two_workspaces_for_one_revision_are_an_error_naming_both() -> None:
    catalog = CATALOG + _catalog_pr("catalog-upf-1-again", "free5gc-upf", 1, "v1-again")
    rl = _run(catalog)
    [error] = [r for r in rl.results if r.severity.value == "error"]
    assert "v1, v1-again" in error.message
    assert error.resource_ref is not None and error.resource_ref["name"] == "upf-class-1"
