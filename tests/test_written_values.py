"""What the functions write is valid where it lands (issue 35, item 1): each field a function
writes from its input is checked against the rule of the place it lands, before it is written,
and a refusal names the source item and field.

The rules, per function, are the tables "Fields written" of the function READMEs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from krmfn.nad_generator import Config as NadConfig
from krmfn.nad_generator import process as nad_process
from krmlib import KrmError, ResourceList, get_conditions
from krmlib.testing import kpt_source, run_resource_list

ROOT = Path(__file__).resolve().parent.parent
NAD_CASE = ROOT / "testdata/nad-generator/nad-updated-in-place/package"
NAD = "k8s.cni.cncf.io/v1.NetworkAttachmentDefinition"


def _nad_run(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> ResourceList:
    """nad-generator on a copy of the nad-updated-in-place package, ``edits``: file -> (old,
    new) text replaced in it."""
    package = tmp_path / "package"
    shutil.copytree(NAD_CASE, package)
    for name, (old, new) in edits.items():
        path = package / name
        text = path.read_text()
        assert old in text, (name, old)
        path.write_text(text.replace(old, new))
    return run_resource_list(nad_process, NadConfig, kpt_source(package))


def _nad_n3(rl: ResourceList) -> tuple[str, str, str]:
    """(status, message, spec.config of NAD upf-cluster01-n3)."""
    kptfile = rl.package().kptfile
    assert kptfile is not None
    condition = {c.type: c for c in get_conditions(kptfile)}[f"{NAD}.n3"]
    nad = rl.items.find(None, "NetworkAttachmentDefinition", "upf-cluster01-n3")
    assert nad is not None
    return condition.status, condition.message, str(nad.get("spec.config"))


def test_the_vlan_id_as_written_tags_the_master(tmp_path: Path) -> None:
    status, _, config = _nad_n3(_nad_run(tmp_path, {}))
    assert status == "True"
    assert '"master":"eth1.100"' in config


@pytest.mark.parametrize(
    ("value", "shown"),
    [('"100"', '"100"'), ("100.0", "100.0"), ("5000", "5000"), ("-5", "-5"), ("true", "true")],
)
def test_a_vlan_id_that_is_not_a_vlan_id_writes_no_nad(
    tmp_path: Path, value: str, shown: str
) -> None:
    """A quoted ``"100"`` was read as no VLAN: the NAD's master became ``eth1`` (untagged) and
    its condition True. 5000 and -5 were written."""
    rl = _nad_run(tmp_path, {"vlanclaim-n3.yaml": ("vlanID: 100", f"vlanID: {value}")})
    status, message, config = _nad_n3(rl)
    assert status == "False"
    assert f"status.vlanID is {shown}" in message
    assert '"master":"eth1"' not in config  # never untagged
    warnings = [r for r in rl.results if r.field_path == "status.vlanID"]
    assert warnings and warnings[0].resource_ref is not None
    assert warnings[0].resource_ref["name"] == "n3"
    assert warnings[0].resource_ref["kind"] == "VLANClaim"


@pytest.mark.parametrize(
    ("old", "new", "field", "words"),
    [
        ("gateway: 172.2.0.1", "gateway: 2001:db8::1", "status.gateway", "an IPv6 address"),
        ("gateway: 172.2.0.1", "gateway: not-an-ip", "status.gateway", "not an IP address"),
        ("prefix: 172.2.0.254/24", "prefix: 172.2.0.254/40", "status.prefix", "prefix length"),
        ("prefix: 172.2.0.254/24", "prefix: 172.2.0.254", "status.prefix", "no prefix length"),
    ],
)
def test_a_gateway_or_prefix_that_is_no_address_writes_no_nad(
    tmp_path: Path, old: str, new: str, field: str, words: str
) -> None:
    rl = _nad_run(tmp_path, {"ipclaim_n3-ipv4.yaml": (old, new)})
    status, message, _ = _nad_n3(rl)
    assert status == "False"
    assert words in message
    refs = [r for r in rl.results if r.field_path == field]
    assert refs and refs[0].resource_ref is not None
    assert refs[0].resource_ref["name"] == "n3-ipv4"


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        (
            "specializer.nephio.org/namespace: dummy",
            "specializer.nephio.org/namespace: Not_A_Namespace",
            'metadata.annotations["specializer.nephio.org/namespace"]',
        ),
        (
            "specializer.nephio.org/owner: workload.nephio.org/v1alpha1.NFDeployment.upf-cluster01",
            "specializer.nephio.org/owner: workload.nephio.org/v1alpha1.NFDeployment.UPF_1",
            'metadata.annotations["specializer.nephio.org/for"]',
        ),
    ],
)
def test_a_nad_name_or_namespace_an_api_server_refuses_is_not_written(
    tmp_path: Path, old: str, new: str, field: str
) -> None:
    rl = _nad_run(tmp_path, {"interface-n3.yaml": (old, new)})
    status, message, _ = _nad_n3(rl)
    assert status == "False"
    assert "an API server refuses" in message
    assert any(r.field_path == field for r in rl.results), [
        (r.message, r.field_path) for r in rl.results
    ]


def test_a_gateway_outside_its_prefix_is_a_warning_naming_the_claim(tmp_path: Path) -> None:
    """Written as nad-fn writes it (Nephio's own IPv6 test claims have one), never silently."""
    rl = _nad_run(tmp_path, {"ipclaim_n3-ipv4.yaml": ("gateway: 172.2.0.1", "gateway: 10.9.9.1")})
    status, _, config = _nad_n3(rl)
    assert status == "True"
    assert '"gateway":"10.9.9.1"' in config
    warnings = [r for r in rl.results if r.field_path == "status.gateway"]
    assert [w.severity for w in warnings] == ["warning"]
    assert "outside status.prefix 172.2.0.254/24" in warnings[0].message
    assert warnings[0].resource_ref is not None
    assert warnings[0].resource_ref["name"] == "n3-ipv4"


def test_a_single_address_prefix_takes_an_on_link_gateway_without_a_warning(
    tmp_path: Path,
) -> None:
    rl = _nad_run(
        tmp_path, {"ipclaim_n3-ipv4.yaml": ("prefix: 172.2.0.254/24", "prefix: 10.0.6.10/32")}
    )
    assert _nad_n3(rl)[0] == "True"
    assert not [r for r in rl.results if r.field_path == "status.gateway"]


@pytest.mark.parametrize(
    ("prefix", "gateway"),
    [("2001:db8:0:12::5/64", "fe80::1"), ("10.1.0.5/24", "169.254.1.1")],
)
def test_a_link_local_gateway_takes_no_warning(tmp_path: Path, prefix: str, gateway: str) -> None:
    """A link-local next hop is on-link whatever the prefix (an IPv6 router's usual address,
    RFC 4861; Calico's 169.254.1.1): outside the prefix, but nothing to check."""
    old = "prefix: 172.2.0.254/24\n  gateway: 172.2.0.1"
    new = f"prefix: {prefix}\n  gateway: {gateway}"
    rl = _nad_run(tmp_path, {"ipclaim_n3-ipv4.yaml": (old, new)})
    status, _, config = _nad_n3(rl)
    assert status == "True"
    assert f'"gateway":"{gateway}"' in config
    assert not [r for r in rl.results if r.field_path == "status.gateway"]


# --- merger ------------------------------------------------------------------------------------

MERGE_TARGET = """apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm
    annotations:
      team: a
      config.kubernetes.io/path: sub/cm.yaml
      internal.config.kubernetes.io/path: sub/cm.yaml
  data:
    a: b
"""


def _merge(resource: dict[str, object]) -> ResourceList:
    from krmfn.merger.config import Config as MergerConfig
    from krmfn.merger.process import process as merger_process
    from krmlib import parse_config_value

    rl = ResourceList.parse(MERGE_TARGET)
    try:
        merger_process(rl, parse_config_value(MergerConfig, {"resources": [resource]}))
    except KrmError as exc:  # as the runner reports it
        rl.results.from_error(exc)
    return rl


def test_merged_annotations_null_keeps_kpts_path() -> None:
    """``annotations: null`` dropped kpt's path annotations: the item moved to another file."""
    rl = _merge(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "annotations": None}}
    )
    assert not rl.results.has_errors, [r.message for r in rl.results]
    (cm,) = list(rl.items)
    assert cm.path == "sub/cm.yaml"
    assert "team" not in cm.annotations  # the user's annotations are removed, as asked


@pytest.mark.parametrize("key", ["labels", "annotations"])
def test_merged_labels_that_are_not_a_map_are_refused(key: str) -> None:
    rl = _merge({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", key: "x"}})
    assert rl.results.has_errors
    assert any(
        (r.field_path or "").endswith(f"metadata.{key}") and "must be a map" in r.message
        for r in rl.results
    ), [r.message for r in rl.results]
    (cm,) = list(rl.items)
    assert not isinstance(cm.get(f"metadata.{key}"), str)  # never written as a string


def test_an_appended_input_with_an_invalid_name_is_refused() -> None:
    rl = _merge({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Not_Valid"}})
    assert rl.results.has_errors
    assert any("an API server refuses" in r.message for r in rl.results)
    assert [o.name for o in rl.items] == ["cm"]


# --- applyset-labeler --------------------------------------------------------------------------

APPLYSET = """apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/path: Kptfile
- apiVersion: v1
  kind: List
  metadata:
    name: list
    annotations:
      config.kubernetes.io/path: list.yaml
  items:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: a  # keep me
      namespace: ns
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: d
      namespace: ns
      labels:
        app: d
"""


def _applyset(spec: dict[str, object]) -> ResourceList:
    from krmfn.applyset_labeler import Config as ApplySetConfig
    from krmfn.applyset_labeler import process as applyset_process
    from krmlib import ConfigError, parse_config_value

    rl = ResourceList.parse(APPLYSET)
    try:
        config = parse_config_value(ApplySetConfig, spec)
    except ConfigError as exc:
        rl.results.error(exc.message, field=exc.field)
        return rl
    applyset_process(rl, config)
    return rl


def test_a_v1_lists_contents_are_labelled_not_the_list() -> None:
    rl = _applyset({"toolLabels": {"team": "net"}})
    assert not rl.results.has_errors, [r.message for r in rl.results]
    holder = rl.items.find("v1", "List", "list")
    assert holder is not None
    assert not holder.labels
    for element in holder.get("items"):
        labels = element["metadata"]["labels"]
        assert labels["team"] == "net"
        assert labels["applyset.kubernetes.io/part-of"].startswith("applyset-")
    assert "name: a  # keep me" in rl.to_yaml()
    parent = rl.items.find("v1", "Secret", "pkg")
    assert parent is not None
    kinds = parent.annotations["applyset.kubernetes.io/contains-group-kinds"]
    assert kinds == "ConfigMap,Deployment.apps"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"toolLabels": {"bad key!": "x"}}, "the label key"),
        ({"toolLabels": {"team": "edge 1"}}, 'the value of team, "edge 1"'),
        ({"parent": {"apiVersion": "", "kind": "Secret"}}, "parent.apiVersion: Value error"),
        ({"parent": {"apiVersion": "kpt.dev/v1", "kind": "Kptfile"}}, "the Kptfile is kpt's"),
    ],
)
def test_applyset_values_written_must_be_valid_where_they_land(
    spec: dict[str, object], words: str
) -> None:
    rl = _applyset(spec)
    assert rl.results.has_errors
    assert any(words in r.message for r in rl.results), [r.message for r in rl.results]


# --- interface-expander ------------------------------------------------------------------------

IE_CASE = ROOT / "testdata/interface-expander/configmap-config"


def _expand(tmp_path: Path, old: str, new: str) -> ResourceList:
    from krmfn.interface_expander import Config as ExpanderConfig
    from krmfn.interface_expander import process as expander_process

    package = tmp_path / "package"
    shutil.copytree(IE_CASE / "package", package)
    path = package / "cluster-context.yaml"
    path.write_text(path.read_text().replace(old, new))
    return run_resource_list(
        expander_process, ExpanderConfig, kpt_source(package, IE_CASE / "config.yaml")
    )


def _selectors(rl: ResourceList) -> list[object]:
    return [
        labels.get("nephio.org/site")
        for o in rl.items
        if isinstance(labels := o.get("spec.selector.matchLabels"), dict)
    ]


@pytest.mark.parametrize("site", ["'edge 1'", "edge_", "-edge", '"a/b"'])
def test_a_site_code_that_is_no_label_value_is_refused_naming_the_field(
    tmp_path: Path, site: str
) -> None:
    """``siteCode: 'edge 1'`` was written into the claims' selectors, which the IPAM
    controller cannot parse."""
    rl = _expand(tmp_path, "siteCode: edge1", f"siteCode: {site}")
    errors = [r for r in rl.results if r.severity.value == "error"]
    assert any(
        r.field_path == "spec.siteCode"
        and r.resource_ref is not None
        and r.resource_ref["kind"] == "ClusterContext"
        and "not a label value" in r.message
        for r in errors
    ), [r.message for r in rl.results]
    assert not _selectors(rl)  # no claim written


def test_a_yaml_11_looking_site_code_is_copied_as_written(tmp_path: Path) -> None:
    rl = _expand(tmp_path, "siteCode: edge1", "siteCode: 1.10")
    assert not rl.results.has_errors, [r.message for r in rl.results]
    assert set(_selectors(rl)) == {"1.10"}


# --- topology-to-pvs ---------------------------------------------------------------------------

PVS_CASE = ROOT / "testdata/topology-to-pvs/basic/package"


@pytest.mark.parametrize("key", ["'max sessions'", "'a/b'", "-ports", "'x'"])
def test_a_capacity_key_that_cannot_be_a_key_is_refused(tmp_path: Path, key: str) -> None:
    """It landed as ``capacity.krmfn.dev/<key>`` or ``capacity.<key>`` without the rules."""
    from krmfn.topology_to_pvs import Config as PvsConfig
    from krmfn.topology_to_pvs import process as pvs_process

    package = tmp_path / "package"
    shutil.copytree(PVS_CASE, package)
    topology = next(p for p in package.glob("*.yaml") if "NFTopology" in p.read_text())
    text = topology.read_text()
    assert "maxSessions: 1000" in text
    topology.write_text(text.replace("maxSessions: 1000", f"{key}: 1000", 1))
    rl = run_resource_list(pvs_process, PvsConfig, kpt_source(package))
    errors = [r.message for r in rl.results if r.severity.value == "error"]
    if key == "'x'":  # a valid key: written
        assert not errors, errors
        return
    assert any("capacity key" in m and "cannot be written" in m for m in errors), errors


def test_a_cluster_selector_number_is_refused_as_written(tmp_path: Path) -> None:
    """``cluster: 1.10`` (a number in YAML; matchLabels holds strings) was refused as ``1.1``."""
    from krmfn.topology_to_pvs import Config as PvsConfig
    from krmfn.topology_to_pvs import process as pvs_process

    package = tmp_path / "package"
    shutil.copytree(PVS_CASE, package)
    topology = package / "topology.yaml"
    text = topology.read_text()
    assert "cluster: edge-1}" in text
    topology.write_text(text.replace("cluster: edge-1}", "cluster: 1.10}", 1))
    rl = run_resource_list(pvs_process, PvsConfig, kpt_source(package))
    errors = [r for r in rl.results if r.severity.value == "error"]
    assert [r.message for r in errors] == [
        'label value must be a string, not the number 1.10 (quote it: "1.10")'
    ]
    assert errors[0].field_path == "spec.nfInstances[0].clusterSelector.matchLabels.cluster"
