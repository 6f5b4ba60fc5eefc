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

from pathlib import Path

from krmfn.topology_to_pvs import Config, process
from krmlib import ResourceList, run_resource_list
from krmlib.testing import kpt_source

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
