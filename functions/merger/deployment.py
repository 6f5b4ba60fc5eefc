"""``krmfn deployment create``: a deployment package = a template copy + merges + Deployment."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from krmfn.tko import PREPARED, find_deployment, new_deployment
from krmfn.tko.merge import merge_planned, plan

from krmlib import Items, KrmError, KubeObject, is_kptfile

from .package import read_inputs, read_package, write_files


def create(
    template_dir: Path, merge_files: Sequence[Path], out_dir: Path, *, site_id: str | None
) -> None:
    """Check and compute everything first; only then copy the template and write files."""
    if not template_dir.is_dir():
        raise KrmError(f"template {template_dir} is not a folder")
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise KrmError(f"{out_dir} exists and is not an empty folder")
    if out_dir.resolve().is_relative_to(template_dir.resolve()):
        raise KrmError(f"{out_dir} is inside the template {template_dir}")
    items = Items(read_package(template_dir))
    template_id = _template_id(items, template_dir)
    changed: list[KubeObject] = []
    changed.extend(
        merge_planned(
            items,
            plan(read_inputs(merge_files)),
            from_package=False,
            results=None,
            file_dir="",
        )
    )
    changed.append(_kptfile(items, out_dir.resolve().name))
    changed.append(_deployment(items, template_id, site_id))
    shutil.copytree(template_dir, out_dir, dirs_exist_ok=True)
    write_files(out_dir, items, {obj.path or "" for obj in changed})


def _template_id(items: Items, template_dir: Path) -> str:
    deployment = find_deployment(items)
    if deployment is not None:
        value = deployment.get("spec.templateId")
        if value:
            return str(value)
    return template_dir.resolve().name


def _kptfile(items: Items, name: str) -> KubeObject:
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
    return kptfile


def _deployment(items: Items, template_id: str, site_id: str | None) -> KubeObject:
    """The package's Deployment resource: templateId, siteId, and not prepared yet."""
    deployment = find_deployment(items)
    if deployment is None:
        deployment = new_deployment()
        items.append(deployment)
    if PREPARED in deployment.annotations:
        del deployment.annotations[PREPARED]  # merged content: the new package is prepared anew
    deployment.set("spec.templateId", template_id)
    if site_id:
        deployment.set("spec.siteId", site_id)
    return deployment
