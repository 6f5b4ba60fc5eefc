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

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krmfn.preparer import Config, process, validation
from krmlib import ConfigError, KubeObject, ResourceList, parse_config
from krmlib.testing import kpt_source, read_tree, run_kpt, run_resource_list

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


# The compiled yes/no check (validation._checker) against the detailed walk (validation._check):
# the walk runs only on an item the check refuses, so the check must accept exactly what the walk
# finds no problem in, on every vendored schema.

SCHEMA_KINDS = sorted(
    tuple(path.stem.split("_", 1)) for path in Path(validation.SCHEMAS).glob("*.json")
)


def _from_schema(schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[object]:
    """Values near a schema: what it describes, with now and then a wrong type, an unknown key,
    a missing required field or a value outside an enum."""
    junk = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.floats(allow_nan=False, width=32),
        st.text(max_size=3),
        st.dates(),
    )
    if depth > 6:
        return junk
    kinds = schema.get("type")
    names = [kinds] if isinstance(kinds, str) else list(kinds or [])
    options: list[st.SearchStrategy[object]] = [junk]
    if "enum" in schema:
        options.append(st.sampled_from(list(schema["enum"])))
    if "oneOf" in schema:
        options += [_from_schema(o, depth + 1) for o in schema["oneOf"]]
    properties = schema.get("properties") or {}
    if "object" in names or properties:
        fields = {key: _from_schema(sub, depth + 1) for key, sub in properties.items()}
        extra = schema.get("additionalProperties", True)
        known = st.fixed_dictionaries({}, optional=fields) if fields else st.just({})
        unknown = st.dictionaries(
            st.sampled_from(["bogus", "x", 1]),
            _from_schema(extra, depth + 1) if isinstance(extra, dict) else junk,
            max_size=2,
        )
        options.append(
            st.tuples(known, unknown, st.booleans()).map(
                lambda parts: {**parts[0], **parts[1]} if parts[2] else parts[0]
            )
        )
    if "array" in names and isinstance(schema.get("items"), dict):
        options.append(st.lists(_from_schema(schema["items"], depth + 1), max_size=3))
    if "string" in names:
        options.append(st.text(max_size=5))
    if "integer" in names or "number" in names:
        options.append(st.integers(-70000, 70000))
    return st.one_of(options)


def _plain(value: object) -> bool:
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return isinstance(value, str | int | float | bool | type(None))


@pytest.mark.parametrize(("api_version", "kind"), SCHEMA_KINDS)
def test_the_compiled_check_accepts_exactly_what_the_walk_finds_no_problem_in(
    api_version: str, kind: str
) -> None:
    schema = validation._schema(api_version, kind)
    assert schema is not None
    accepts = validation._checker(api_version, kind)
    assert accepts is not None
    seen = {True: 0, False: 0}

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(_from_schema(schema))
    def agree(value: object) -> None:
        problems: list[tuple[str, str]] = []
        validation._check(value, schema, (), problems)
        if _plain(value):
            assert accepts(value) == (not problems), problems
        else:
            assert not accepts(value)  # a value that is not plain data: the walk decides
        seen[not problems] += 1

    agree()
    assert seen[True] and seen[False]  # both answers were exercised


def test_the_compiled_check_leaves_a_timestamp_to_the_walk() -> None:
    accepts = validation._checker("v1", "ConfigMap")
    assert accepts is not None
    when = dt.date(2026, 11, 27)
    value = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"day": when}}
    problems: list[tuple[str, str]] = []
    validation._check(value, validation._schema("v1", "ConfigMap") or {}, (), problems)
    assert problems == []  # a string once the item is JSON, as kubeconform sees it
    assert not accepts(value)  # unsure: the walk says valid


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("Service", {"spec": {"ports": [{"port": 80, "targetPort": 8080}]}}),
        ("Service", {"spec": {"ports": [{"port": True}]}}),  # a bool is no integer
        ("Service", {"spec": {"ports": [{"port": 80.0}]}}),  # nor is a float
        ("Service", {"spec": {"ports": [{"port": 80, "targetPort": "http"}]}}),  # oneOf
        ("Service", {"spec": {"ports": [{"port": 80, "targetPort": True}]}}),
        ("Service", {"spec": {"ports": [{}]}}),  # port is required
        ("Service", {"spec": {"type": "Bogus"}}),
        ("Service", {"spec": {"ipFamilies": ["IPv4", 6]}}),
        ("ConfigMap", {"data": {"a": "b"}, "immutable": False}),
        ("ConfigMap", {"data": {"a": True}}),
        ("ConfigMap", {"immutable": 0}),
        ("ConfigMap", {"metadata": {"labels": None, "bogus": 1}}),
        ("ConfigMap", {"data": None, "binaryData": {"k": "AA=="}}),
    ],
)
def test_the_compiled_check_on_the_edges_of_types(kind: str, value: dict[str, object]) -> None:
    base = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "x"}}
    document = {**base, **value}
    accepts = validation._checker("v1", kind)
    assert accepts is not None
    problems: list[tuple[str, str]] = []
    validation._check(document, validation._schema("v1", kind) or {}, (), problems)
    assert accepts(document) == (not problems)
