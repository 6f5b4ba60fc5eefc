"""TKO fidelity of preparer and merger (issue 15): one test (or more) per numbered behaviour,
TKO's plugin protocols, several preparers per GVK, TOSCA, approval."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from krmfn.preparer import Config, Outcome, PluginContext, process
from krmfn.preparer.catalog import CatalogEntry, load_catalog
from krmfn.preparer.executors import containers_allowed
from krmfn.tko import merge_resources, metadata_of, moved_on
from krmlib import Items, KrmError, KubeObject, ResourceList, Results, parse_config_value

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
SCENARIO_PLUGINS = Path(__file__).parent.parent / "testdata" / "tko-scenario" / "plugins"


@pytest.fixture(autouse=True)
def allow_tmp_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Plugins and catalogs of these tests live in tmp_path, outside the working tree that
    configs may name (SECURITY.md): the person running the preparer allows it."""
    monkeypatch.setenv("KRMFN_ALLOW_READ", str(tmp_path))


def run(items: str, config: dict[str, Any] | None = None) -> ResourceList:
    rl = ResourceList.parse(HEAD + items)
    process(rl, parse_config_value(Config, config or {}))
    return rl


def errors(rl: ResourceList) -> list[str]:
    return [r.message for r in rl.results if r.severity.value == "error"]


def infos(rl: ResourceList) -> list[str]:
    return [r.message for r in rl.results if r.severity.value == "info"]


def item(rl: ResourceList, kind: str, name: str) -> KubeObject:
    found = [o for o in rl.items if o.kind == kind and o.name == name]
    assert len(found) == 1, [repr(o) for o in rl.items]
    return found[0]


def prepared(obj: KubeObject) -> bool:
    return obj.annotations.get("nephio.org/prepared") == "true"


def widget(name: str, annotations: str = "", spec: str = "{size: 1}") -> str:
    meta = f"\n    annotations: {{{annotations}}}" if annotations else ""
    return (
        f"- apiVersion: example.com/v1\n  kind: Widget\n  metadata:\n    name: {name}{meta}\n"
        f"  spec: {spec}\n"
    )


def inline_site(site_id: str) -> str:
    return (
        "- apiVersion: tko.nephio.org/v1alpha1\n  kind: Site\n"
        f"  metadata:\n    name: s-{site_id.replace('/', '-')}\n"
        '    annotations: {config.kubernetes.io/local-config: "true"}\n'
        f"  spec: {{siteId: {site_id}}}\n"
    )


INLINE_TEMPLATE = """- apiVersion: tko.nephio.org/v1alpha1
  kind: Template
  metadata:
    name: nf
    annotations: {config.kubernetes.io/local-config: "true"}
  spec:
    templateId: nf/x:v1
    package:
      resources:
      - {apiVersion: kpt.dev/v1, kind: Kptfile, metadata: {name: nf}}
      - {apiVersion: v1, kind: ConfigMap, metadata: {name: nf}, data: {a: "1"}}
- apiVersion: topology.nephio.org/v1alpha1
  kind: Template
  metadata: {name: nf}
  spec: {templateId: nf/x:v1}
"""


def placement(sites: str = "[edge]", merge: str = "") -> str:
    return (
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: Placement\n  metadata: {name: p}\n"
        f"  spec:\n    templates:\n    - template: nf\n      sites: {sites}\n{merge}"
    )


def site(name: str, spec: str) -> str:
    return (
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: Site\n"
        f"  metadata: {{name: {name}}}\n  spec: {spec}\n"
    )


# --- 15.1 merge identity ---------------------------------------------------------------------


def test_1_a_v2_input_is_added_beside_the_v1_resource() -> None:
    target = Items(
        [KubeObject.from_dict({"apiVersion": "x.io/v1", "kind": "K", "metadata": {"name": "a"}})]
    )
    v2 = KubeObject.from_dict(
        {"apiVersion": "x.io/v2", "kind": "K", "metadata": {"name": "a"}, "spec": {"v": 2}}
    )
    merge_resources(target, [v2])
    assert [o.api_version for o in target] == ["x.io/v1", "x.io/v2"]
    assert target[0].get("spec") is None


# --- 15.2 a merge reference needs apiVersion ----------------------------------------------


def test_2_a_merge_reference_without_api_version_is_malformed() -> None:
    merge = "      merge:\n      - {kind: ConfigMap, name: extra}\n"
    extra = "- {apiVersion: v1, kind: ConfigMap, metadata: {name: extra}}\n"
    rl = run(
        INLINE_TEMPLATE
        + inline_site("lab/1")
        + site("edge", "{siteId: lab/1}")
        + extra
        + placement(merge=merge)
    )
    (message,) = errors(rl)
    assert "malformed object reference: apiVersion missing" in message
    error = next(r for r in rl.results if r.severity.value == "error")
    assert error.field_path == "spec.templates[0].merge[0]"
    assert not prepared(item(rl, "Placement", "p"))


# --- 15.3 metadata -----------------------------------------------------------------------------


def md(name: str, spec: str, annotation: str = "") -> KubeObject:
    text = (
        f"apiVersion: metadata.nephio.org/v1alpha1\nkind: Site\nmetadata:\n  name: {name}\n"
        + (f"  annotations: {{nephio.org/metadata: {annotation}}}\n" if annotation else "")
        + f"spec: {spec}\n"
    )
    return KubeObject.from_yaml(text)


def test_3_metadata_is_one_value_per_key_and_skips_never_and_postpone() -> None:
    objects = [
        md("a", "{region: chicago, tier: {size: small}}"),
        md("b", "{region: bangalore}"),
        md("c", "{region: never}", "Never"),
        md("d", "{zone: later}", "Postpone"),
        md("e", "{flag: true}", ""),
    ]
    assert metadata_of(objects) == {
        "Site.region": "bangalore",
        "Site.tier.size": "small",
        "Site.flag": "true",
    }


def test_3_a_sites_own_metadata_overrides_its_templates(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    base = catalog / "templates" / "gdce"
    own = catalog / "sites" / "blr"
    base.mkdir(parents=True)
    own.mkdir(parents=True)
    (base / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: gdce\n"
        "  annotations: {catalog.nephio.org/id: site/gdce}\n"
    )
    (base / "md.yaml").write_text(md("m", "{cloud: GDC-E, region: chicago}").to_yaml())
    (own / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: blr\n"
        "  labels: {Site.region: bangalore}\n"
        "  annotations: {catalog.nephio.org/id: in/blr, catalog.nephio.org/template: site/gdce}\n"
    )
    cat = load_catalog(catalog, [], Results())
    entry = cat.find("sites", "in/blr")
    assert entry is not None
    assert entry.metadata == {"Site.cloud": "GDC-E", "Site.region": "bangalore"}
    assert [o.name for o in entry.load() if o.kind == "Site"] == ["m"]  # the template's resources


def test_3_a_merge_moves_nephio_org_metadata_like_prepare() -> None:
    inputs = [md("a", "{x: 1}", "Postpone"), md("b", "{x: 2}", "Here"), md("c", "{x: 3}", "Never")]
    target = Items([])
    merge_resources(target, inputs, from_package=True)
    assert [o.annotations["nephio.org/metadata"] for o in target] == ["Here", "Never", "Never"]
    kept = Items([])
    merge_resources(kept, inputs)  # at creation time: as written
    assert [o.annotations["nephio.org/metadata"] for o in kept] == ["Postpone", "Here", "Never"]


# --- 15.4 nephio.org/prepare: "" ---------------------------------------------------------------


def test_4_an_empty_prepare_is_not_here() -> None:
    config = {"plugins": [{"apiVersion": "example.com/v1", "kind": "Widget", "exec": "false"}]}
    rl = run(widget("w", 'nephio.org/prepare: ""'), config)
    assert not errors(rl)  # the plugin (which would fail) never ran
    assert not prepared(item(rl, "Widget", "w"))
    assert prepared(item(rl, "Deployment", "deployment"))
    obj = item(rl, "Widget", "w")
    assert moved_on(obj, "nephio.org/prepare") == "Never"


# --- 15.6 waiting quietly, and one resource's error does not block the others --------------


def test_6_a_site_with_nothing_to_resolve_waits_quietly() -> None:
    rl = run(site("edge", "{}"))
    assert not errors(rl)
    assert any("no spec.siteId, spec.select or spec.provisionIfNotFound" in m for m in infos(rl))
    assert not prepared(item(rl, "Site", "edge"))
    assert "nephio.org/prepared" not in item(rl, "Deployment", "deployment").annotations


def fail_on_bad(ctx: PluginContext) -> Outcome:
    if ctx.target.name == "bad":
        raise KrmError("cannot prepare this one")
    ctx.target.set("status.done", True)
    return Outcome.done()


def test_6_an_error_in_one_resource_does_not_block_the_others() -> None:
    plugin = {"apiVersion": "example.com/v1", "kind": "Widget", "python": f"{__name__}:fail_on_bad"}
    rl = run(widget("bad") + widget("good") + widget("also-good"), {"plugins": [plugin]})
    assert errors(rl) == ["cannot prepare this one"]
    assert not prepared(item(rl, "Widget", "bad"))
    for name in ("good", "also-good"):
        assert prepared(item(rl, "Widget", name))
        assert item(rl, "Widget", name).get("status.done") is True
    assert "nephio.org/prepared" not in item(rl, "Deployment", "deployment").annotations


# --- 15.7 a property the target lacks --------------------------------------------------------


def test_7_a_missing_property_is_an_error_and_the_target_is_not_prepared() -> None:
    plugin = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "exec": "true",
        "properties": {"namespace": "spec.namespace"},
    }
    rl = run(widget("w"), {"plugins": [plugin]})
    (message,) = errors(rl)
    assert "property not provided: namespace reads spec.namespace" in message
    assert not prepared(item(rl, "Widget", "w"))


# --- 15.8 unknown site -----------------------------------------------------------------------


def test_8_no_child_for_a_site_not_in_the_catalog() -> None:
    rl = run(INLINE_TEMPLATE + inline_site("lab/1") + site("edge", "{siteId: lab/9}") + placement())
    (message,) = errors(rl)
    assert "site lab/9 is not in the catalog" in message
    assert not any("/" in (o.path or "") for o in rl.items), "no child written"


def test_8_a_child_for_a_catalog_site() -> None:
    rl = run(INLINE_TEMPLATE + inline_site("lab/1") + site("edge", "{siteId: lab/1}") + placement())
    assert not errors(rl)
    assert any(o.path == "nf-lab-1/Kptfile" for o in rl.items)
    assert any("created child deployment nf-lab-1" in m for m in infos(rl))


# --- 15.10 site provisioning --------------------------------------------------------------------


def test_10_provisioning_needs_a_catalog_folder() -> None:
    rl = run(site("edge", "{provisionIfNotFound: true}"))
    (message,) = errors(rl)
    assert "no catalog folder is configured" in message


def test_10_provisioning_waits_for_unprepared_merge_inputs(tmp_path: Path) -> None:
    (tmp_path / "catalog" / "sites").mkdir(parents=True)
    config = {
        "catalog": str(tmp_path / "catalog"),
        "plugins": [
            {"apiVersion": "example.com/v1", "kind": "Widget", "python": f"{__name__}:later"}
        ],
    }
    merge = (
        "{provisionIfNotFound: true, merge: [{apiVersion: example.com/v1, kind: Widget, name: w}]}"
    )
    rl = run(site("edge", merge) + widget("w"), config)
    assert not errors(rl)
    assert any("waiting for Widget w" in m for m in infos(rl))
    assert not (tmp_path / "catalog" / "sites" / "provisioned").exists()


def later(ctx: PluginContext) -> Outcome:
    return ctx.wait("not yet")


# --- 15.11 approval ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("approve", "auto", "approved"),
    [("", True, True), ("Manual", True, False), ("Auto", False, True), ("Default", False, False)],
)
def test_11_approval(approve: str, auto: bool, approved: bool) -> None:
    annotations = f"\n    annotations: {{nephio.org/approve: {approve}}}" if approve else ""
    deployment = (
        "- apiVersion: deployment.nephio.org/v1alpha1\n  kind: Deployment\n"
        f"  metadata:\n    name: deployment{annotations}\n"
    )
    rl = run(deployment, {"autoApprove": auto})
    obj = item(rl, "Deployment", "deployment")
    assert prepared(obj)
    assert (obj.annotations.get("nephio.org/approved") == "true") is approved


def test_11_a_bad_approve_value_is_an_error() -> None:
    deployment = (
        "- apiVersion: deployment.nephio.org/v1alpha1\n  kind: Deployment\n"
        "  metadata:\n    name: deployment\n    annotations: {nephio.org/approve: manual}\n"
    )
    with pytest.raises(KrmError, match="expected Auto, Manual or Default"):
        run(deployment)


# --- 15.12 TKO's plugin protocols ----------------------------------------------------------


SMF = (
    "- apiVersion: free5gc.plugin.nephio.org/v1alpha1\n  kind: SMF\n"
    "  metadata:\n    name: smf # my SMF\n  spec:\n    blahBlah: 2\n"
)


def tko_plugin(command: str) -> dict[str, Any]:
    return {
        "plugins": [
            {
                "apiVersion": "free5gc.plugin.nephio.org/v1alpha1",
                "kind": "SMF",
                "exec": command,
                "protocol": "tko",
            }
        ]
    }


def test_12_a_tko_command_plugin_prepares_its_target() -> None:
    rl = run(SMF, tko_plugin(f"{SCENARIO_PLUGINS / 'prepare_smf.py'}"))
    assert not errors(rl)
    smf = item(rl, "SMF", "smf")
    assert prepared(smf) and smf.get("status.sessionCapacity") == 2000
    assert "name: smf # my SMF" in rl.to_yaml()  # the item was updated in place
    assert any("log: prepared SMF smf" in m for m in infos(rl))  # the plugin's logFile


def write_plugin(tmp_path: Path, body: str) -> str:
    path = tmp_path / "plugin.py"
    path.write_text("import sys, yaml\ndoc = yaml.safe_load(sys.stdin)\n" + body)
    return str(path)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("yaml.safe_dump({'error': 'no capacity left'}, sys.stdout)", "no capacity left"),
        ("print('not: [yaml')", "bad output"),
        ("print('- a list')", "expected a PluginOutput map"),
        ("sys.exit(3)", "exit code 3"),
    ],
)
def test_12_tko_plugin_failures_are_errors(tmp_path: Path, body: str, expected: str) -> None:
    rl = run(SMF, tko_plugin(write_plugin(tmp_path, body)))
    (message,) = errors(rl)
    assert expected in message and "SMF/smf" in message
    assert not prepared(item(rl, "SMF", "smf"))


def test_12_a_tko_plugin_reads_a_prepare_plugin_input(tmp_path: Path) -> None:
    """The PluginInput a prepare plugin reads: its fields in order, the package as
    ``deploymentPackage`` (a validate plugin's has ``package`` and ``complete``)."""
    body = (
        "t = doc['targetResourceIdentifier']\n"
        "fields = ' '.join(doc) + ' ' + t['kind'] + '/' + t['name']\n"
        "fields += ' ' + ','.join(r['kind'] for r in doc['deploymentPackage'])\n"
        "yaml.safe_dump({'error': fields}, sys.stdout)"
    )
    rl = run(SMF, tko_plugin(write_plugin(tmp_path, body)))
    (message,) = errors(rl)
    assert (
        "grpc logFile logAddressPort deploymentId deploymentPackage targetResourceIdentifier "
        "SMF/smf " in message
    ), message
    assert "SMF" in message.rsplit(" ", 1)[1].split(","), message


def test_12_a_tko_plugin_answering_not_prepared_waits(tmp_path: Path) -> None:
    body = "yaml.safe_dump({'prepared': False, 'package': []}, sys.stdout)"
    rl = run(SMF, tko_plugin(write_plugin(tmp_path, body)))
    assert not errors(rl)
    assert any("answered prepared: false" in m for m in infos(rl))
    assert item(rl, "SMF", "smf").get("spec.blahBlah") == 2  # the package is not replaced


def test_12_a_tko_sdk_style_plugin_runs_when_the_sdk_is_importable(tmp_path: Path) -> None:
    """A plugin written against TKO's SDK (`import tko`, `tko.prepare(f)`) runs as is when a
    `tko` module is importable (PYTHONPATH); here a small stand-in of our own for the SDK."""
    sdk = tmp_path / "sdk"
    sdk.mkdir()
    (sdk / "tko.py").write_text(
        "import copy, sys, yaml\n"
        "_input = {}\n_output = {}\n"
        "def get_target_resource():\n"
        "    t = _input['targetResourceIdentifier']\n"
        "    for r in _output['package']:\n"
        "        if r['kind'] == t['kind'] and r['metadata']['name'] == t['name']:\n"
        "            return r\n"
        "def set_prepared(r):\n"
        "    r['metadata'].setdefault('annotations', {})['nephio.org/prepared'] = 'true'\n"
        "def prepare(f):\n"
        "    _input.update(yaml.safe_load(sys.stdin))\n"
        "    _output['package'] = copy.deepcopy(_input['deploymentPackage'])\n"
        "    _output['prepared'] = bool(f())\n"
        "    yaml.safe_dump(_output, sys.stdout)\n"
    )
    plugin = tmp_path / "prepare_smf.py"
    plugin.write_text(
        "import tko\n\ndef prepare():\n    smf = tko.get_target_resource()\n"
        "    smf.setdefault('status', {})['test'] = 'hi'\n    tko.set_prepared(smf)\n"
        "    return True\n\nif __name__ == '__main__':\n    tko.prepare(prepare)\n"
    )
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(sdk)
    try:
        rl = run(SMF, tko_plugin(str(plugin)))
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    assert not errors(rl)
    assert item(rl, "SMF", "smf").get("status.test") == "hi"
    assert prepared(item(rl, "SMF", "smf"))


NAMESPACE = (
    "- apiVersion: workload.plugin.nephio.org/v1alpha1\n  kind: Namespace\n"
    "  metadata: {name: smf}\n  spec: {namespace: smf}\n"
    "- {apiVersion: apps/v1, kind: Deployment, metadata: {name: app}}\n"
)
IMAGE_PLUGIN = {
    "plugins": [
        {
            "apiVersion": "workload.plugin.nephio.org/v1alpha1",
            "kind": "Namespace",
            "image": "gcr.io/kpt-fn/set-namespace:v0.4.1",
            "properties": {"namespace": "spec.namespace"},
        }
    ]
}


def test_12_an_image_plugin_under_kpt_is_a_clear_error() -> None:
    rl = run(NAMESPACE, IMAGE_PLUGIN)
    (message,) = errors(rl)
    assert "image plugins run in `krmfn prepare-all` only" in message


def test_12_an_image_plugin_without_a_runtime_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KRMFN_CONTAINER_TOOL", "no-such-container-tool")
    with containers_allowed():
        rl = run(NAMESPACE, IMAGE_PLUGIN)
    (message,) = errors(rl)
    assert "no container runtime" in message


def test_12_an_image_plugin_runs_through_the_runtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The executor's side of the runtime call: `TOOL run --rm -i --network none IMAGE` with the
    package and the properties as the functionConfig (a fake tool runs a local function)."""
    tool = tmp_path / "fake-podman"
    tool.write_text(
        f"#!/bin/sh\n"
        f'[ "$1 $2 $3 $4 $5 $6" = "run --rm -i --network none gcr.io/kpt-fn/set-namespace:v0.4.1" ]'
        f" || exit 9\nexec {sys.executable} {SCENARIO_PLUGINS / 'set_namespace.py'}\n"
    )
    tool.chmod(0o755)
    monkeypatch.setenv("KRMFN_CONTAINER_TOOL", str(tool))
    with containers_allowed():
        rl = run(NAMESPACE, IMAGE_PLUGIN)
    assert not errors(rl), errors(rl)
    assert item(rl, "Deployment", "app").namespace == "smf"
    assert prepared(item(rl, "Namespace", "smf"))


def runtime() -> str | None:
    for tool in ("podman", "docker"):
        if shutil.which(tool):
            done = subprocess.run([tool, "info"], capture_output=True, check=False)
            if done.returncode == 0:
                return tool
    return None


@pytest.mark.skipif(
    runtime() is None,
    reason="no working container runtime (podman or docker) on this machine: `make images` "
    "installs podman; the executor's side is tested with a fake runtime above",
)
def test_12_an_image_plugin_with_a_real_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = runtime()
    assert tool is not None
    images = subprocess.run(
        [tool, "images", "--format", "{{.Repository}}:{{.Tag}}"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    # krmfn-merger with no inputs: a KRM function image that leaves the package as it is. The
    # one `make images` builds (a tag of its own), not a dangling copy another test pulled from
    # its registry (`127.0.0.1:PORT/krmfn/merger:<none>`, not a reference podman can run).
    image = next(
        (i for i in images if i.startswith("localhost/krmfn/merger:") and "<none>" not in i),
        None,
    )
    if image is None:
        pytest.skip("no local krmfn/merger image to run (`make images` builds it)")
    monkeypatch.setenv("KRMFN_CONTAINER_TOOL", tool)
    config = {
        "plugins": [
            {
                "apiVersion": "workload.plugin.nephio.org/v1alpha1",
                "kind": "Namespace",
                "image": image,
            }
        ]
    }
    with containers_allowed():
        rl = run(NAMESPACE, config)
    assert not errors(rl), errors(rl)
    assert prepared(item(rl, "Namespace", "smf"))
    assert item(rl, "Deployment", "app").namespace == ""


# --- 15.13 several preparers per GVK -----------------------------------------------------------


def record(tag: str) -> Any:
    def plugin(ctx: PluginContext) -> None:
        seen = ctx.target.get("status.seen") or []
        ctx.target.set("status.seen", [*seen, tag])

    return plugin


first = record("first")
second = record("second")


def test_13_several_preparers_run_in_registration_order() -> None:
    plugins = [
        {"apiVersion": "example.com/v1", "kind": "Widget", "python": f"{__name__}:{name}"}
        for name in ("first", "second")
    ]
    rl = run(widget("w"), {"plugins": plugins})
    assert item(rl, "Widget", "w").get("status.seen") == ["first", "second"]
    assert prepared(item(rl, "Widget", "w"))


def test_13_built_ins_run_first_unless_configured() -> None:
    site_plugin = {"apiVersion": "topology.nephio.org/v1alpha1", "kind": "Site"}
    after = {"plugins": [{**site_plugin, "python": f"{__name__}:first"}]}
    rl = run(inline_site("lab/1") + site("edge", "{siteId: lab/1}"), after)
    edge = item(rl, "Site", "edge")
    assert edge.get("status") == {"siteId": "lab/1", "seen": ["first"]}
    before = {
        "plugins": [
            {**site_plugin, "python": f"{__name__}:first"},
            {**site_plugin, "builtin": "site"},
        ]
    }
    rl = run(inline_site("lab/1") + site("edge", "{siteId: lab/1}"), before)
    assert list(item(rl, "Site", "edge").get("status")) == ["seen", "siteId"]


# --- 15.14 TOSCA -------------------------------------------------------------------------------


def test_14_a_tosca_topology_is_an_error_and_stays_unprepared() -> None:
    tosca = (
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: TOSCA\n  metadata: {name: du}\n"
        "  spec: {url: /tmp/du.csar}\n"
    )
    rl = run(tosca)
    (message,) = errors(rl)
    assert "TOSCA topologies are not supported by krmfn (/tmp/du.csar)" in message
    assert not prepared(item(rl, "TOSCA", "du"))
    assert "nephio.org/prepared" not in item(rl, "Deployment", "deployment").annotations


def test_catalog_entries_match_one_value_per_key() -> None:
    entry = CatalogEntry("x", {"Site.region": "bangalore"}, list)
    assert entry.matches({"Site.region": "bang*"})
    assert not entry.matches({"Site.region": "chicago"})
