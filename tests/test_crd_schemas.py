"""What the functions (interface-expander, topology-to-pvs, nad-generator, dnn-generator, nfdeploy)
write is what an API server accepts.

Every object a golden case or an example of these functions creates or changes is validated
against the published CRD schema of its kind (testdata/crds, sources in testdata/crds/SOURCES.md)
with a JSON Schema validator, and against Kubernetes' rules for names, namespaces, labels,
annotations and ownerReferences. Kinds without a published CRD (the design's ``ipam.nephio.org``
allocations, the 2023 ``ipam.alloc`` ones) get the Kubernetes rules only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from krmfn.interface_expander import Config as ExpanderConfig
from krmfn.interface_expander import process as expand
from krmfn.nad_generator import Config as NadConfig
from krmfn.nad_generator import process as nad_generator
from krmfn.registry import BY_NAME
from krmfn.topology_to_pvs import Config as TopologyConfig
from krmfn.topology_to_pvs import process as topology
from krmlib import ResourceList
from krmlib.testing import DEFAULT_ENV, golden_cases, kpt_source, run_text

ROOT = Path(__file__).resolve().parent.parent
CRDS = ROOT / "testdata" / "crds"
Runner = Callable[[str], tuple[str, int]]
FUNCTIONS: dict[str, Runner] = {
    "interface-expander": lambda text: run_text(expand, ExpanderConfig, text),
    "topology-to-pvs": lambda text: run_text(topology, TopologyConfig, text),
    "nad-generator": lambda text: run_text(nad_generator, NadConfig, text),
    "dnn-generator": lambda text: run_text(*BY_NAME["dnn-generator"].load(), text),
    "nfdeploy": lambda text: run_text(*BY_NAME["nfdeploy"].load(), text),
}
EXAMPLES = {
    "interface-expander": ["upf"],
    "topology-to-pvs": ["topology"],
    "nad-generator": ["free5gc-upf"],
    "dnn-generator": ["free5gc-upf"],
    "nfdeploy": ["free5gc-upf"],
}

DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
ANNOTATIONS_MAX = 256 * 1024


OLD_PORCH = "-porch-v4.0.0"  # revisionType: string is for Porch v4.0.0 and older


@cache
def validator(
    api_version: str, kind: str, variant: str = ""
) -> jsonschema.protocols.Validator | None:
    group, _, version = api_version.rpartition("/")
    path = CRDS / f"{group}_{kind}_{version}{variant}.json"
    if variant and not path.exists():
        path = CRDS / f"{group}_{kind}_{version}.json"
    if not path.exists():
        return None
    schema = json.loads(path.read_text())
    if kind == "Kptfile":  # kpt's swagger document: its root is definitions/kptfile
        schema = {"$ref": "#/definitions/kptfile", "definitions": schema["definitions"]}
    return jsonschema.Draft7Validator(schema)


def qualified_key_problems(key: str) -> list[str]:
    prefix, slash, name = key.rpartition("/")
    problems = []
    if slash and (len(prefix) > 253 or not DNS_SUBDOMAIN.match(prefix)):
        problems.append(f"key {key!r}: prefix is not a DNS subdomain")
    if not name or len(name) > 63 or not QUALIFIED_NAME.match(name):
        problems.append(f"key {key!r}: name part is not a qualified name (63 characters)")
    return problems


def kubernetes_problems(item: dict[str, Any]) -> list[str]:
    """Kubernetes' object metadata rules (apimachinery's validation)."""
    meta = item.get("metadata") or {}
    problems: list[str] = []
    name = meta.get("name", "")
    if item["kind"] != "Kptfile" and (len(name) > 253 or not DNS_SUBDOMAIN.match(name)):
        problems.append(f"metadata.name {name!r} is not a DNS-1123 subdomain")
    namespace = meta.get("namespace")
    if namespace is not None and (len(namespace) > 63 or not DNS_LABEL.match(namespace)):
        problems.append(f"metadata.namespace {namespace!r} is not a DNS-1123 label")
    for key, value in (meta.get("labels") or {}).items():
        problems += qualified_key_problems(key)
        if not isinstance(value, str) or len(value) > 63 or not LABEL_VALUE.match(value):
            problems.append(f"label {key}: value {value!r} is not a label value")
    annotations = meta.get("annotations") or {}
    size = 0
    for key, value in annotations.items():
        problems += qualified_key_problems(key)
        if not isinstance(value, str):
            problems.append(f"annotation {key}: value {value!r} is not a string")
        size += len(key) + len(str(value))
    if size > ANNOTATIONS_MAX:
        problems.append(f"annotations are {size} bytes, more than 256 KiB")
    for ref in meta.get("ownerReferences") or []:
        missing = [k for k in ("apiVersion", "kind", "name", "uid") if not ref.get(k)]
        if missing:
            problems.append(f"ownerReference {ref} lacks {', '.join(missing)}")
    return problems


def _plain_items(text: str) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    out = {}
    for obj in ResourceList.parse(text).items:
        plain = obj.to_dict()
        key = (obj.api_version, obj.kind, obj.namespace, obj.name)
        out[key] = plain
    return out


def written_items(
    function: str, package: Path, config: Path | None
) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(object, its input form or None) for every object the function created or changed."""
    source = kpt_source(package, config)
    output, _ = FUNCTIONS[function](source)
    before = _plain_items(source)
    after = _plain_items(output)
    return [(item, before.get(key)) for key, item in after.items() if before.get(key) != item]


def schema_problems(item: dict[str, Any], before: dict[str, Any] | None, variant: str) -> list[str]:
    """Schema errors in what the function wrote (an input's unchanged fields are not its doing:
    Nephio's own test Interfaces use ``dualstack``, which the published CRD does not list)."""
    check = validator(item["apiVersion"], item["kind"], variant)
    if check is None:
        return []
    problems = []
    for error in check.iter_errors(item):
        path = list(error.absolute_path)
        top = str(path[0]) if path else ""
        if before is not None and top and item.get(top) == before.get(top):
            continue
        problems.append(f"{'.'.join(map(str, path))}: {error.message}")
    return problems


def packages() -> Iterator[tuple[str, str, Path, Path | None]]:
    for function in FUNCTIONS:
        for case in golden_cases(ROOT / "testdata", function):
            if case.exit_code == 0:
                yield function, str(case), case.package, case.config
        for example in EXAMPLES[function]:
            yield function, f"examples/{example}", ROOT / "examples" / example, None


PACKAGES = list(packages())


@pytest.mark.parametrize(
    ("function", "package", "config"),
    [(f, p, c) for f, _, p, c in PACKAGES],
    ids=[name for _, name, _, _ in PACKAGES],
)
def test_written_objects_are_valid(
    function: str, package: Path, config: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in DEFAULT_ENV.items():
        monkeypatch.setenv(name, value)
    text = config.read_text() if config is not None else ""
    variant = OLD_PORCH if re.search(r"revision(Type|-type): string", text) else ""
    items = written_items(function, package, config)
    problems = []
    for item, before in items:
        where = f"{item['kind']} {item.get('metadata', {}).get('name')}"
        problems += [f"{where}: {p}" for p in kubernetes_problems(item)]
        problems += [f"{where}: {p}" for p in schema_problems(item, before, variant)]
    assert not problems, "\n".join(problems)


def test_every_kind_the_functions_write_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in DEFAULT_ENV.items():
        monkeypatch.setenv(name, value)
    written = {
        (item["apiVersion"], item["kind"])
        for function, _, package, config in PACKAGES
        for item, _ in written_items(function, package, config)
    }
    with_schema = {
        "ipam.resource.nephio.org/v1alpha1 IPClaim",
        "vlan.resource.nephio.org/v1alpha1 VLANClaim",
        "req.nephio.org/v1alpha1 Interface",
        "kpt.dev/v1 Kptfile",
        "config.porch.kpt.dev/v1alpha2 PackageVariantSet",
        "workload.nephio.org/v1alpha1 NFDeployed",
        "k8s.cni.cncf.io/v1 NetworkAttachmentDefinition",
        "req.nephio.org/v1alpha1 DataNetwork",
        "workload.nephio.org/v1alpha1 NFDeployment",
    }
    assert with_schema <= {" ".join(k) for k in written}
    for kind in with_schema:
        assert validator(*kind.split(" ")) is not None, kind


def test_the_schemas_catch_what_current_porch_rejects() -> None:
    check = validator("config.porch.kpt.dev/v1alpha2", "PackageVariantSet")
    assert check is not None
    pvs: dict[str, Any] = {
        "apiVersion": "config.porch.kpt.dev/v1alpha2",
        "kind": "PackageVariantSet",
        "metadata": {"name": "x"},
        "spec": {"upstream": {"repo": "r", "package": "p", "revision": "v1"}},
    }
    assert [e.message for e in check.iter_errors(pvs)] == ["'v1' is not of type 'integer'"]
    claim = validator("ipam.resource.nephio.org/v1alpha1", "IPClaim")
    assert claim is not None
    bad: dict[str, Any] = {
        "apiVersion": "ipam.resource.nephio.org/v1alpha1",
        "kind": "IPClaim",
        "spec": {},
    }
    assert list(claim.iter_errors(bad)), "an IPClaim without its required fields must fail"


def test_the_kubernetes_rules_catch_what_an_api_server_rejects() -> None:
    item = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "-n3-ipv4",
            "labels": {"nephio.org/x": "a" * 64},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Interface", "name": "n3"}],
        },
    }
    assert len(kubernetes_problems(item)) == 3
