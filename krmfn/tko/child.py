"""A child deployment package: a template's resources, merged with inputs, and its Deployment."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from krmlib import (
    ANN_INDEX,
    ANN_LEGACY_INDEX,
    ANN_PACKAGE_PATH,
    Items,
    KrmError,
    KubeObject,
    Results,
    default_file_name,
    is_kptfile,
)
from krmlib.packages import without_annotations, without_kpt_internal

from .annotations import clear_marks
from .merge import merge_resources
from .resources import ANN_CATALOG_ID, find_deployment, new_deployment

_CATALOG_ID = frozenset({ANN_CATALOG_ID})
PREPARER_MARKERS = ("krmfn-preparer", "krmfn/preparer")


def preparer_step(kptfile: KubeObject) -> dict[str, Any] | None:
    """The pipeline step of a Kptfile that runs the preparer, if any. A pipeline that is not a
    map of lists is an error naming the field (the package cannot be told apart)."""
    pipeline = kptfile.to_dict().get("pipeline")
    if pipeline is None:
        return None
    if not isinstance(pipeline, dict):
        raise KrmError("Kptfile: pipeline must be a map (mutators, validators)")
    for section in ("mutators", "validators"):
        steps = pipeline.get(section) or []
        if not isinstance(steps, list):
            raise KrmError(f"Kptfile: pipeline.{section} must be a list of steps")
        for step in steps:
            if not isinstance(step, dict):
                continue
            runner = str(step.get("exec") or step.get("image") or "")
            if any(marker in runner for marker in PREPARER_MARKERS):
                return step
    return None


def is_deployment_package(objects: Iterable[KubeObject]) -> bool:
    """A deployment package, for every command (``prepare-all``, ``deployments list``): its own
    Kptfile runs the preparer, or it holds a Deployment resource. ``objects``: the package's
    own items (no subpackage's)."""
    own = list(objects)
    kptfile = next((o for o in own if is_kptfile(o) and o.path in (None, "Kptfile")), None)
    if kptfile is not None and preparer_step(kptfile) is not None:
        return True
    return find_deployment(own) is not None


def detached_copy(obj: KubeObject) -> KubeObject:
    """A copy without kpt's location and id annotations (for use in another package)."""
    return without_kpt_internal(obj)


def new_child(
    template: Sequence[KubeObject],
    merge: Sequence[KubeObject],
    *,
    folder: str,
    spec: Mapping[str, str],
    from_package: bool = True,
    results: Results | None = None,
) -> list[KubeObject]:
    """The objects of a new deployment package in ``folder`` (relative to the parent package,
    ``""`` for a package of its own): copies of the ``template`` objects merged with copies of
    ``merge`` (``nephio.org/prepare`` and ``nephio.org/metadata`` moved on when
    ``from_package``), its Kptfile named after the folder without the catalog id, and its
    Deployment resource with ``spec`` (empty values left out), not prepared nor approved.
    Documents are numbered per file. Nothing given is changed."""
    target = Items(KubeObject.from_yaml(o.to_yaml()) for o in template)  # lazy copies
    merge_resources(
        target,
        [detached_copy(o) for o in merge],
        from_package=from_package,
        results=results,
        file_dir="",
    )
    objects = list(target)
    deployment = find_deployment(objects)
    if deployment is None:
        deployment = new_deployment()
        objects.append(deployment)
    clear_marks(deployment)
    deployment.merge("spec", {k: v for k, v in spec.items() if v})
    name = posixpath.basename(folder)
    for index, item in enumerate(objects):
        obj = item
        if is_kptfile(obj) and obj.path in (None, "Kptfile"):
            if name:
                obj.set("metadata.name", name)
            if ANN_CATALOG_ID in obj.annotations:
                obj = objects[index] = without_annotations(obj, _CATALOG_ID.__contains__)
        rel = obj.path or default_file_name(obj.kind, obj.name)
        if ANN_PACKAGE_PATH in obj.annotations:
            del obj.annotations[ANN_PACKAGE_PATH]
        obj.set_path(posixpath.join(folder, rel) if folder else rel)
    _number_documents(objects)
    return objects


def _number_documents(objects: Sequence[KubeObject]) -> None:
    """Index annotations in order of appearance, per file (kpt needs them to tell documents of
    one file apart)."""
    counts: dict[str, int] = {}
    for obj in objects:
        path = obj.path or ""
        index = counts.get(path, 0)
        counts[path] = index + 1
        if obj.annotations.get(ANN_INDEX) != str(index):
            obj.annotations[ANN_INDEX] = str(index)
            obj.annotations[ANN_LEGACY_INDEX] = str(index)
