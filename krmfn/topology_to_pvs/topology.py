"""Reading the inputs: NFTopology and its classes, in both shapes, with field paths for errors.

Shapes accepted (the group may be ``topology.nephio.org`` or ``req.nephio.org``, any version):

- class reference: ``nfTemplate.className`` or the design's ``nfTemplate.classRef.name``;
- interfaces: ``nfTemplate.nfInterfaces`` or the 2023 ``nfTemplate.nfAttachments``, each with
  ``networkInstanceName`` or ``networkInstanceRef.name``;
- classes: ``NFClass`` (any nfType) or the per-type ``UPFClass``, ``SMFClass``, ``AMFClass``.
"""

from __future__ import annotations

from typing import Any

from krmlib import (
    Items,
    KubeObject,
    Results,
    format_path,
    label_key_problem,
    parse_path,
    scalar_text,
)

from .config import NF_TYPES
from .labelselector import check_selector

GROUPS = ("topology.nephio.org", "req.nephio.org")
TOPOLOGY_KIND = "NFTopology"
CLASS_KINDS = {"NFClass": None, "UPFClass": "upf", "SMFClass": "smf", "AMFClass": "amf"}


class NFClass:
    """A class an instance names (immutable: nothing assigns to it after it is read)."""

    __slots__ = ("obj", "package", "repository", "revision", "vendor", "version", "workspace")

    def __init__(
        self,
        obj: KubeObject,
        vendor: str,
        version: str,
        repository: str,
        package: str,
        revision: Any,  # as written: str, int, or None when the class gives a workspaceName
        workspace: str | None,
    ) -> None:
        self.obj = obj
        self.vendor = vendor
        self.version = version
        self.repository = repository
        self.package = package
        self.revision = revision
        self.workspace = workspace

    @property
    def name(self) -> str:
        return self.obj.name


class Instance:
    """One ``spec.nfInstances`` entry, resolved (immutable: nothing assigns to it after it is
    read; a slotted class, not a NamedTuple: ``index`` would hide ``tuple.index``)."""

    __slots__ = ("capacity", "index", "name", "networks", "nf_class", "nf_type", "selector")

    def __init__(
        self,
        index: int,
        name: str,
        nf_type: str,
        nf_class: NFClass,
        selector: dict[str, Any],
        capacity: dict[str, Any],
        networks: frozenset[str],
    ) -> None:
        self.index = index
        self.name = name
        self.nf_type = nf_type
        self.nf_class = nf_class
        self.selector = selector
        self.capacity = capacity
        self.networks = networks

    @property
    def path(self) -> str:
        return f"spec.nfInstances[{self.index}]"


class Topology:
    __slots__ = ("instances", "obj")

    def __init__(self, obj: KubeObject, instances: list[Instance] | None = None) -> None:
        self.obj = obj
        self.instances: list[Instance] = [] if instances is None else instances

    @property
    def name(self) -> str:
        return self.obj.name

    @property
    def namespace(self) -> str:
        return self.obj.namespace


def is_ours(obj: KubeObject) -> bool:
    return obj.group in GROUPS


def topologies(items: Items) -> list[KubeObject]:
    return [o for o in items.where(kind=TOPOLOGY_KIND) if is_ours(o)]


def class_objects(items: Items) -> list[KubeObject]:
    return [o for o in items if o.kind in CLASS_KINDS and is_ours(o)]


def read_topology(obj: KubeObject, classes: list[KubeObject], results: Results) -> Topology | None:
    """The topology with its instances resolved; None (and error results) when it is unusable."""
    raw = obj.get("spec.nfInstances")
    if not isinstance(raw, list) or not raw:
        results.error(
            "the NFTopology has no instances (spec.nfInstances must be a non-empty list)",
            obj,
            "spec.nfInstances",
        )
        return None
    before = len([r for r in results if r.severity == "error"])
    topology = Topology(obj)
    first_index: dict[str, int] = {}
    for index, entry in enumerate(raw):
        instance = _read_instance(obj, index, entry, classes, results)
        if instance is None:
            continue
        if instance.name in first_index:
            results.error(
                f"duplicate instance name {instance.name!r} "
                f"(first used by spec.nfInstances[{first_index[instance.name]}])",
                obj,
                f"{instance.path}.name",
                current=instance.name,
            )
            continue
        first_index[instance.name] = index
        topology.instances.append(instance)
    errors = len([r for r in results if r.severity == "error"])
    return topology if errors == before else None


def _read_instance(
    obj: KubeObject, index: int, entry: Any, classes: list[KubeObject], results: Results
) -> Instance | None:
    path = f"spec.nfInstances[{index}]"
    if not isinstance(entry, dict):
        results.error("an instance must be a map", obj, path)
        return None
    ok = True
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        results.error("the instance has no name", obj, f"{path}.name")
        ok = False
    selector = entry.get("clusterSelector")
    labels = selector.get("matchLabels") if isinstance(selector, dict) else None
    labels = labels if isinstance(labels, dict) else {}
    for key, value in labels.items():
        if isinstance(value, int | float) and not isinstance(value, bool):  # shown as written
            where = (*parse_path(path), "clusterSelector", "matchLabels", key)
            text = scalar_text(obj, where) or str(value)
            results.error(
                f'label value must be a string, not the number {text} (quote it: "{text}")',
                obj,
                format_path(where),
            )
            labels[key] = text  # reported once
            ok = False
    for field_path, message in check_selector(
        entry.get("clusterSelector"), f"{path}.clusterSelector"
    ):
        results.error(message, obj, field_path)
        ok = False
    template = entry.get("nfTemplate")
    if not isinstance(template, dict):
        results.error("the instance has no nfTemplate", obj, f"{path}.nfTemplate")
        return None
    nf_type = template.get("nfType")
    if nf_type not in NF_TYPES:
        results.error(
            f"unknown nfType {_shown(nf_type)}: expected one of {', '.join(NF_TYPES)}",
            obj,
            f"{path}.nfTemplate.nfType",
            current=nf_type,
        )
        ok = False
    nf_class = _resolve_class(obj, path, template, str(nf_type), classes, results)
    if nf_class is None or not ok:
        return None
    capacity = template.get("capacity") or {}
    if not isinstance(capacity, dict):
        results.error("capacity must be a map", obj, f"{path}.nfTemplate.capacity")
        return None
    for key in capacity:  # a key lands in an annotation key or a ConfigMap key: label rules
        problem = "it has a '/'" if "/" in str(key) else label_key_problem(str(key))
        if problem is not None:
            results.error(
                f"capacity key {_shown(key)} cannot be written (capacity.krmfn.dev/<key> or "
                f"capacity.<key>): {problem}",
                obj,
                f"{path}.nfTemplate.capacity",
            )
            return None
    for key, value in capacity.items():  # a number is copied as written: 1e3, not 1000.0
        if isinstance(value, int | float) and not isinstance(value, bool):
            where = (*parse_path(path), "nfTemplate", "capacity", key)
            capacity[key] = scalar_text(obj, where) or value
    return Instance(
        index=index,
        name=str(name),
        nf_type=str(nf_type),
        nf_class=nf_class,
        selector=dict(entry["clusterSelector"]),
        capacity=capacity,
        networks=frozenset(_networks(template)),
    )


def _networks(template: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for key in ("nfInterfaces", "nfAttachments"):
        for attachment in template.get(key) or []:
            if not isinstance(attachment, dict):
                continue
            ref = attachment.get("networkInstanceRef")
            name = attachment.get("networkInstanceName") or (
                ref.get("name") if isinstance(ref, dict) else None
            )
            if isinstance(name, str) and name:
                names.append(name)
    return names


def _resolve_class(
    obj: KubeObject,
    path: str,
    template: dict[str, Any],
    nf_type: str,
    classes: list[KubeObject],
    results: Results,
) -> NFClass | None:
    ref = template.get("classRef")
    if template.get("className"):
        class_name, field_path = template["className"], f"{path}.nfTemplate.className"
    elif isinstance(ref, dict) and ref.get("name"):
        class_name, field_path = ref["name"], f"{path}.nfTemplate.classRef.name"
    else:
        results.error(
            "the instance names no class (nfTemplate.className or nfTemplate.classRef.name)",
            obj,
            f"{path}.nfTemplate.className",
        )
        return None
    named = [c for c in classes if c.name == class_name]
    usable = [c for c in named if CLASS_KINDS[c.kind] in (None, nf_type)]
    if not usable:
        if named:
            kinds = ", ".join(sorted({c.kind for c in named}))
            message = f"class {class_name!r} is a {kinds}, which does not fit nfType {nf_type!r}"
        else:
            message = (
                f"unknown class {class_name!r}: no NFClass or {nf_type.upper()}Class of that "
                "name in the package"
            )
        results.error(message, obj, field_path, current=class_name)
        return None
    return _read_class(usable[0], results)


def _read_class(obj: KubeObject, results: Results) -> NFClass | None:
    ref = obj.get("spec.packageRef")
    if not isinstance(ref, dict):
        results.error("the class has no spec.packageRef", obj, "spec.packageRef")
        return None
    ok = True
    for key in ("repository", "packageName"):
        if not isinstance(ref.get(key), str) or not ref.get(key):
            results.error(f"the class has no packageRef.{key}", obj, f"spec.packageRef.{key}")
            ok = False
    revision = ref.get("revision")
    workspace = ref.get("workspaceName")
    if revision in (None, "") and not workspace:
        results.error(
            "the class has no packageRef.revision (or workspaceName)",
            obj,
            "spec.packageRef.revision",
        )
        ok = False
    if not ok:
        return None
    return NFClass(
        obj=obj,
        vendor=str(obj.get("spec.vendor", "")),
        version=str(obj.get("spec.version", "")),
        repository=ref["repository"],
        package=ref["packageName"],
        revision=None if revision in (None, "") else revision,
        workspace=str(workspace) if workspace else None,
    )


def _shown(value: object) -> str:
    """A value for a message: a string quoted, anything else as JSON (never a Python repr)."""
    if isinstance(value, str):
        return f"'{value}'"
    import json  # a wrong value only

    return json.dumps(value, default=str)
