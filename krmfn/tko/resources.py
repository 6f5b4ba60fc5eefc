"""TKO's resources: the package's Deployment, the topology and catalog API names, metadata."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from krmlib import KrmError, KubeObject
from krmlib.packages import kptfile_folders, read_tree_file

from .annotations import HERE, METADATA

if TYPE_CHECKING:  # annotations only: a merge does not import pathlib
    from pathlib import Path

DEPLOYMENT_API = "deployment.nephio.org/v1alpha1"
DEPLOYMENT_KIND = "Deployment"
DEPLOYMENT_NAME = "deployment"  # always this name; one per package
DEPLOYMENT_FILE = "deployment.yaml"

TOPOLOGY = "topology.nephio.org/v1alpha1"
TKO_API = "tko.nephio.org/v1alpha1"  # inline catalog items
METADATA_GROUP = "metadata.nephio.org"

ANN_CATALOG_ID = "catalog.nephio.org/id"  # on a catalog package's Kptfile: its id
ANN_CATALOG_TEMPLATE = "catalog.nephio.org/template"  # on a site's Kptfile: its site template


def find_deployment(objects: Iterable[KubeObject]) -> KubeObject | None:
    """The package's ``deployment.nephio.org/v1alpha1 Deployment deployment``."""
    for obj in objects:
        if obj.is_kind(DEPLOYMENT_API, DEPLOYMENT_KIND) and obj.name == DEPLOYMENT_NAME:
            return obj
    return None


def new_deployment(spec: Mapping[str, Any] | None = None) -> KubeObject:
    """A new Deployment resource (path ``deployment.yaml``)."""
    data: dict[str, Any] = {
        "apiVersion": DEPLOYMENT_API,
        "kind": DEPLOYMENT_KIND,
        "metadata": {"name": DEPLOYMENT_NAME},
    }
    if spec:
        data["spec"] = dict(spec)
    obj = KubeObject.from_dict(data)
    obj.set_path(DEPLOYMENT_FILE)
    return obj


def object_reference(ref: Any, owner: KubeObject, field: str) -> tuple[str, str, str]:
    """``(apiVersion, kind, name)`` of an object reference (TKO needs all three: a reference
    without ``apiVersion`` is malformed)."""
    if not isinstance(ref, dict):
        raise KrmError("an object reference must be a map", obj=owner, field=field)
    missing = [k for k in ("apiVersion", "kind", "name") if not ref.get(k)]
    if missing:
        raise KrmError(
            f"malformed object reference: {', '.join(missing)} missing (needs apiVersion, "
            "kind and name)",
            obj=owner,
            field=field,
        )
    return str(ref["apiVersion"]), str(ref["kind"]), str(ref["name"])


def metadata_of(objects: Iterable[KubeObject]) -> dict[str, str]:
    """TKO's metadata of a package: ``<Kind>.<spec path>`` → value from its
    ``metadata.nephio.org/*`` resources (one value per key, a later resource wins); resources
    marked ``nephio.org/metadata`` other than ``Here`` do not count (``Postpone``: only once
    merged elsewhere; ``Never``)."""
    out: dict[str, str] = {}
    for obj in objects:
        if obj.group != METADATA_GROUP:
            continue
        if obj.annotations.get(METADATA, HERE) not in (HERE, ""):
            continue
        spec = obj.get("spec")
        if isinstance(spec, Mapping):
            _flatten(obj.kind, spec, out)
    return out


def _flatten(prefix: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}", item, out)
    elif isinstance(value, bool):
        out[prefix] = "true" if value else "false"
    elif value is None:
        out[prefix] = ""
    elif isinstance(value, list):
        out[prefix] = ",".join(str(v) for v in value)
    else:
        out[prefix] = str(value)


def deployment_id(own: Iterable[KubeObject]) -> str:
    """A deployment package's id: its parent's id (``spec.parentDeploymentId`` of its
    Deployment), ``/``, its Kptfile's name (``deployment`` without a Kptfile)."""
    objects = list(own)
    kptfile = next((o for o in objects if o.is_kind("kpt.dev/v1", "Kptfile")), None)
    name = kptfile.name if kptfile is not None else DEPLOYMENT_NAME
    deployment = find_deployment(objects)
    parent = str(deployment.get("spec.parentDeploymentId") or "") if deployment else ""
    return f"{parent}/{name}" if parent else name


def catalog_index(catalog: Path, section: str) -> dict[str, Path]:
    """The packages of a catalog folder's ``templates`` or ``sites`` by id: the Kptfile's
    ``catalog.nephio.org/id``, else the folder path below the section (outermost packages
    only, hidden folders skipped). Only Kptfiles are read."""
    root = catalog / section
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    packages: set[Path] = set()  # the outermost so far: a folder's parents are looked up
    for folder in kptfile_folders(root):  # the tree rules: no links, no hidden folders
        rel = folder.relative_to(root)
        if folder in packages or not packages.isdisjoint(folder.parents):
            continue
        packages.add(folder)
        try:
            obj = KubeObject.from_yaml(read_tree_file(folder / "Kptfile", str(folder / "Kptfile")))
            declared = obj.annotations.get(ANN_CATALOG_ID)
        except KrmError:
            declared = None
        entry_id = declared or rel.as_posix()
        first = found.setdefault(entry_id, folder)
        if first != folder:  # which one is meant would be a guess
            raise KrmError(
                f"two catalog packages have the id {entry_id}: {first.relative_to(root)} and "
                f"{rel} (in {root}; {ANN_CATALOG_ID} or the folder names the id)"
            )
    return found
