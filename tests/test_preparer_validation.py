"""TKO validates a package when it becomes prepared; so does the preparer.

TKO (nephio-experimental/tko 5973960c0cd3038aa27f68e8719cc57e375a6950):
``backend/memory/deployments.go`` EndDeploymentModification calls ``validation/packages.go``
ValidatePackage with ``complete`` = prepared and refuses the modification on an error; a resource
with no validate plugin is checked by kubeconform, strict, missing schemas ignored
(``validation/validation.go``, ``validation/kubeconform.go``); validate plugins are TKO command
plugins (``validation/plugins.go``; the rule of the one below is TKO's
``examples/plugins/validate_free5gc_smf.py``: ``spec.blahBlah`` an int, required, below 10).
Inputs: testdata/preparer-validation (nephio-project/catalog 5e1a968, named there).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from krmfn.preparer import Config, process
from krmlib import ConfigError, KubeObject, ResourceList, parse_config, run_resource_list
from krmlib.testing import kpt_source, read_tree, run_kpt

DATA = Path(__file__).resolve().parent.parent / "testdata" / "preparer-validation"
KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: free5gc-cp
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
  - exec: krmfn-preparer
    configPath: preparer.yaml
"""
PREPARER = """\
apiVersion: krmfn.dev/v1alpha1
kind: Preparer
metadata:
  name: preparer
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  plugins: []
"""


def package(tmp_path: Path) -> Path:
    pkg = tmp_path / "free5gc-cp"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE)
    (pkg / "preparer.yaml").write_text(PREPARER)
    for source in DATA.glob("*.yaml"):
        shutil.copy(source, pkg / source.name)
    return pkg


def prepare(pkg: Path) -> ResourceList:
    return run_resource_list(process, Config, kpt_source(pkg, pkg / "preparer.yaml"))


def deployment_prepared(rl: ResourceList) -> bool:
    found = [o for o in rl.items if o.kind == "Deployment" and o.name == "deployment"]
    return bool(found) and found[0].annotations.get("nephio.org/prepared") == "true"


def edit(path: Path, field: str | tuple[str, ...], value: object) -> None:
    obj = KubeObject.from_yaml(path.read_text())
    obj.set(field, value)
    path.write_text(obj.to_yaml())


def errors(rl: ResourceList) -> list[tuple[str, str | None, str]]:
    return [
        ((r.resource_ref or {}).get("name", ""), r.field_path, r.message)
        for r in rl.results
        if r.severity.value == "error"
    ]


def test_the_catalog_resources_are_valid_and_the_package_is_prepared(tmp_path: Path) -> None:
    rl = prepare(package(tmp_path))
    assert errors(rl) == []
    assert deployment_prepared(rl)


def test_a_number_as_a_configmap_value_is_not_prepared(tmp_path: Path) -> None:
    pkg = package(tmp_path)
    edit(pkg / "webui-configmap.yaml", ("data", "webuiPort"), 5000)
    rl = prepare(pkg)
    assert not deployment_prepared(rl)
    [(name, field, message)] = errors(rl)
    assert (name, field) == ("webui-configmap", "data.webuiPort")
    assert "integer 5000, expected string" in message
    assert "not marked prepared" in message


def test_an_unknown_field_is_refused_as_strict_kubeconform_does(tmp_path: Path) -> None:
    pkg = package(tmp_path)
    edit(pkg / "namespace.yaml", "metadata.labelz", {"a": "b"})
    edit(pkg / "webui-configmap.yaml", "immutable", "yes please")
    rl = prepare(pkg)
    assert not deployment_prepared(rl)
    found = {(name, field) for name, field, _ in errors(rl)}
    assert found == {("example", "metadata.labelz"), ("webui-configmap", "immutable")}


def test_local_config_and_kinds_without_a_schema_are_not_checked(tmp_path: Path) -> None:
    pkg = package(tmp_path)
    # the catalog's own local-config ConfigMap (pkg-example-amf-bp/cm-namespace.yaml) with a
    # number, and an apps/v1 Deployment (no schema vendored) with an unknown field
    (pkg / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: namespace\n  annotations:\n"
        '    config.kubernetes.io/local-config: "true"\ndata:\n  namespace: 1\n'
    )
    (pkg / "web.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: webui}\nbogus: 1\n"
    )
    rl = prepare(pkg)
    assert errors(rl) == []
    assert deployment_prepared(rl)


@pytest.mark.kpt
def test_kpt_render_fails_and_writes_nothing(tmp_path: Path) -> None:
    pkg = package(tmp_path)
    edit(pkg / "webui-configmap.yaml", ("data", "webuiPort"), 5000)
    before = read_tree(pkg)
    done = run_kpt(["fn", "render", str(pkg), "--allow-exec", "--truncate-output=false"])
    assert done.returncode != 0
    assert "data.webuiPort" in done.stderr
    assert read_tree(pkg) == before


# --- validate plugins (TKO's command executor) --------------------------------------------------

VALIDATE_SMF = """\
import sys, yaml

document = yaml.safe_load(sys.stdin)
target = document["targetResourceIdentifier"]
error = ""
for resource in document["package"]:
    if resource.get("kind") == target["kind"] and resource["metadata"]["name"] == target["name"]:
        value = (resource.get("spec") or {}).get("blahBlah")
        if not isinstance(value, int):
            error = '"resource.spec.blahBlah" must be an int'
        elif value >= 10:
            error = f'"resource.spec.blahBlah" failed validation function: {value}'
        if not document.get("complete"):
            error = "expected complete: true"
yaml.safe_dump({"error": error}, sys.stdout)
"""
SMF = """\
apiVersion: free5gc.plugin.nephio.org/v1alpha1
kind: SMF
metadata:
  name: free5gc-smf
spec:
  blahBlah: {value}
"""


def with_validate_plugin(tmp_path: Path, value: int) -> Path:
    pkg = package(tmp_path)
    (pkg / "validate_smf.py").write_text(VALIDATE_SMF)
    (pkg / "smf.yaml").write_text(SMF.format(value=value))
    config = KubeObject.from_yaml(PREPARER)
    config.set(
        "spec.plugins",
        [
            {
                "type": "validate",
                "apiVersion": "free5gc.plugin.nephio.org/v1alpha1",
                "kind": "SMF",
                "exec": "free5gc-cp/validate_smf.py",
                "protocol": "tko",
            }
        ],
    )
    (pkg / "preparer.yaml").write_text(config.to_yaml())
    return pkg


def test_a_validate_plugin_accepts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # kpt fn source gives no package-path: the plugin is found here
    rl = prepare(with_validate_plugin(tmp_path, 5))
    assert errors(rl) == []
    assert deployment_prepared(rl)


def test_a_validate_plugin_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rl = prepare(with_validate_plugin(tmp_path, 20))
    assert not deployment_prepared(rl)
    [(name, _field, message)] = errors(rl)
    assert name == "free5gc-smf"
    assert "failed validation function: 20" in message


def test_schedule_plugins_are_refused_clearly() -> None:
    spec = {"type": "schedule", "apiVersion": "a.b/v1", "kind": "K", "exec": "x.py"}
    with pytest.raises(ConfigError, match="meta-scheduler"):
        parse_config(
            Config,
            KubeObject.from_dict(
                {
                    "apiVersion": "krmfn.dev/v1alpha1",
                    "kind": "Preparer",
                    "metadata": {"name": "p"},
                    "spec": {"plugins": [spec]},
                }
            ),
        )


def test_validate_plugins_need_tko_command_protocol() -> None:
    spec = {"type": "validate", "apiVersion": "a.b/v1", "kind": "K", "python": "m:f"}
    with pytest.raises(ConfigError, match="protocol: tko"):
        parse_config(
            Config,
            KubeObject.from_dict(
                {
                    "apiVersion": "krmfn.dev/v1alpha1",
                    "kind": "Preparer",
                    "metadata": {"name": "p"},
                    "spec": {"plugins": [spec]},
                }
            ),
        )
