"""``krmfn deployment create``: a deployment package = a template copy + merges + Deployment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from krmfn.tko import (
    ANN_CATALOG_ID,
    ANN_CATALOG_TEMPLATE,
    APPROVED,
    PREPARED,
    TRUE,
    catalog_index,
    clear_marks,
    deployment_id,
    find_deployment,
    new_deployment,
)
from krmfn.tko.merge import merge_planned, plan
from krmlib import Items, KrmError, KubeObject, is_kptfile
from krmlib.packages import Package, read_package, write_package

from .package import read_inputs, template_files


class CreateOptions:
    """TKO's ``deployment create`` options."""

    __slots__ = (
        "approved",
        "catalog",
        "merge_files",
        "merge_objects",
        "metadata",
        "parent",
        "prepared",
        "site_id",
    )

    def __init__(
        self,
        merge_files: Sequence[Path] = (),
        merge_objects: Sequence[KubeObject] = (),  # --stdin, merged after the files
        site_id: str | None = None,
        parent: Path | None = None,
        metadata: Mapping[str, str] | None = None,
        prepared: bool = False,
        approved: bool = False,
        catalog: Path | None = None,
    ) -> None:
        self.merge_files = merge_files
        self.merge_objects = merge_objects
        self.site_id = site_id
        self.parent = parent
        self.metadata: Mapping[str, str] = {} if metadata is None else metadata
        self.prepared = prepared
        self.approved = approved
        self.catalog = catalog


def create(template: str | Path, out_dir: Path, options: CreateOptions) -> None:
    """Check and compute everything first; only then copy the template and write files."""
    template_dir, catalog = _template_folder(template, options.catalog)
    stale = out_dir.is_dir() and not out_dir.is_symlink() and any(out_dir.iterdir())
    in_the_way = out_dir.exists() and (not out_dir.is_dir() or stale)
    if in_the_way and not (stale and _partial_copy(out_dir, template_dir)):
        raise KrmError(f"{out_dir} exists and is not an empty folder")
    if out_dir.resolve().is_relative_to(template_dir.resolve()):
        raise KrmError(f"{out_dir} is inside the template {template_dir}")
    if (
        options.site_id
        and catalog is not None
        and options.site_id not in catalog_index(catalog, "sites")
    ):
        raise KrmError(f"unknown site {options.site_id}: not in the catalog {catalog}")
    parent_id = _parent_id(options.parent) if options.parent is not None else ""
    package = Package.read(template_dir, subpackages=False, tree=True)
    items = Items(package.items)
    template_id = _template_id(items, template_dir)
    inputs = [*read_inputs(options.merge_files), *options.merge_objects]
    merge_planned(items, plan(inputs), from_package=False, results=None, file_dir="")
    _kptfile(items, out_dir.resolve().name)
    deployment = _deployment(items, template_id, options.site_id)
    if parent_id:
        deployment.set("spec.parentDeploymentId", parent_id)
    if options.metadata:
        deployment.merge("spec.metadata", dict(options.metadata))
    if options.prepared:
        deployment.annotations[PREPARED] = TRUE
    if options.approved:
        deployment.annotations[APPROVED] = TRUE
    if out_dir.is_dir():  # empty, or a killed older create's partial copy: made again whole
        import shutil

        shutil.rmtree(out_dir)
    # The new package is built aside and appears whole (krmlib's crash-safe writer).
    write_package(out_dir, items, package.files, files=template_files(template_dir))


def _partial_copy(out_dir: Path, template_dir: Path) -> bool:
    """``out_dir`` holds nothing but byte-identical copies of some of the template's files:
    what an older version's ``create`` killed mid-copy left (nothing in it is anyone's work),
    made again whole. Read by the copying walker (:func:`template_files`): a link or a special
    file in it is no copy of ours."""
    try:
        found = template_files(out_dir)
    except KrmError:
        return False
    for rel, data in found.items():
        mine = template_dir / rel
        if not mine.is_file() or mine.read_bytes() != data:
            return False
    return True


def _template_folder(template: str | Path, catalog: Path | None) -> tuple[Path, Path | None]:
    """The template's folder and the catalog it belongs to (given, or the folder above the
    ``templates`` folder holding it). A template that is not a folder is a catalog id."""
    path = Path(template)
    if path.is_dir():
        if catalog is None:
            above = next((p for p in path.resolve().parents if p.name == "templates"), None)
            catalog = above.parent if above is not None else None
        return path, catalog
    if catalog is None:
        raise KrmError(
            f"template {template} is not a folder (give --catalog DIR to find a template by "
            "its catalog id)"
        )
    found = catalog_index(catalog, "templates").get(str(template))
    if found is None:
        raise KrmError(f"unknown template {template}: not in the catalog {catalog}")
    return found, catalog


def _parent_id(parent: Path) -> str:
    """The id of the parent deployment package (it must be one: Kptfile and Deployment)."""
    if not (parent / "Kptfile").is_file():
        raise KrmError(f"unknown parent deployment {parent}: not a package folder")
    objects = read_package(parent, subpackages=False, tree=True)
    if find_deployment(objects) is None:
        raise KrmError(
            f"unknown parent deployment {parent}: it has no deployment.nephio.org Deployment"
        )
    return deployment_id(objects)


def _template_id(items: Items, template_dir: Path) -> str:
    """The catalog id (the Kptfile's ``catalog.nephio.org/id``), else the template's own
    Deployment's ``spec.templateId``, else the folder's name."""
    kptfile = next((o for o in items if is_kptfile(o) and o.path == "Kptfile"), None)
    if kptfile is not None and kptfile.annotations.get(ANN_CATALOG_ID):
        return kptfile.annotations[ANN_CATALOG_ID]
    deployment = find_deployment(items)
    if deployment is not None:
        value = deployment.get("spec.templateId")
        if value:
            return str(value)
    return template_dir.resolve().name


def _kptfile(items: Items, name: str) -> KubeObject:
    """The new package's Kptfile, named after its folder; not a catalog entry any more."""
    kptfile = next((o for o in items if is_kptfile(o) and o.path == "Kptfile"), None)
    if kptfile is None:
        kptfile = KubeObject.from_dict(
            {
                "apiVersion": "kpt.dev/v1",
                "kind": "Kptfile",
                "metadata": {
                    "name": name,
                    "annotations": {"config.kubernetes.io/local-config": "true"},
                },
            }
        )
        kptfile.set_path("Kptfile")
        objects = list(items)
        items.replace_all([kptfile, *objects])
    kptfile.set("metadata.name", name)
    for key in (ANN_CATALOG_ID, ANN_CATALOG_TEMPLATE):
        if key in kptfile.annotations:
            del kptfile.annotations[key]
    return kptfile


def _deployment(items: Items, template_id: str, site_id: str | None) -> KubeObject:
    """The package's Deployment resource: templateId, siteId, and not prepared yet."""
    deployment = find_deployment(items)
    if deployment is None:
        deployment = new_deployment()
        items.append(deployment)
    clear_marks(deployment)  # merged content: the new package is prepared anew
    deployment.set("spec.templateId", template_id)
    if site_id:
        deployment.set("spec.siteId", site_id)
    return deployment
