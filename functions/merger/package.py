"""Packages on disk, read and written by kpt's conventions (one file per path annotation)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from krmfn.tko.merge import is_kpt_internal

from krmlib import ANN_INDEX, ANN_LEGACY_INDEX, KrmError, KubeObject, default_file_name, read_files


def package_files(root: Path) -> list[Path]:
    """The YAML files of the package at ``root`` (subpackages and hidden folders excluded)."""
    files: list[Path] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if not path.is_file() or not (path.suffix in (".yaml", ".yml") or path.name == "Kptfile"):
            continue
        if any(
            (root / Path(*rel.parts[:depth]) / "Kptfile").is_file()
            for depth in range(1, len(rel.parts))
        ):
            continue  # a subpackage's file
        files.append(path)
    return files


def read_package(root: Path) -> list[KubeObject]:
    """The objects of the package at ``root``, with path annotations relative to it."""
    objects: list[KubeObject] = []
    for path in package_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            found = read_files([str(path)])
        except KrmError as exc:
            raise KrmError(f"{path}: {exc}", file=rel) from None
        for obj in found:
            obj.set_path(rel)
            objects.append(obj)
    return objects


def read_inputs(paths: Iterable[Path]) -> list[KubeObject]:
    """Merge inputs from files or folders, in the order given."""
    objects: list[KubeObject] = []
    for path in paths:
        if not path.exists():
            raise KrmError(f"merge file {path} not found")
        try:
            found = read_files([str(path)])
        except KrmError as exc:
            raise KrmError(f"merge file {path}: {exc}") from None
        if not found:
            raise KrmError(f"merge file {path} holds no resources")
        objects.extend(found)
    return objects


def write_files(root: Path, objects: Iterable[KubeObject], paths: set[str]) -> None:
    """Write the files ``paths`` of the package at ``root`` from ``objects``.

    Every file gets the objects whose path annotation names it, in index order, joined by
    ``---``, without kpt's internal annotations (kpt adds them again when it reads the files).
    """
    groups: dict[str, list[tuple[int, int, KubeObject]]] = {}
    for order, obj in enumerate(objects):
        path = obj.path or default_file_name(obj.kind, obj.name)
        if path in paths:
            groups.setdefault(path, []).append((_index(obj), order, obj))
    for path in sorted(paths):
        entries = sorted(groups.get(path, []), key=lambda e: (e[0], e[1]))
        docs = []
        for *_, obj in entries:
            clean = obj.copy()
            annotations = clean.annotations
            for key in [k for k in annotations if is_kpt_internal(k)]:
                del annotations[key]
            docs.append(clean.to_yaml())
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("---\n".join(docs), encoding="utf-8")


def _index(obj: KubeObject) -> int:
    raw = obj.annotations.get(ANN_INDEX) or obj.annotations.get(ANN_LEGACY_INDEX)
    return int(raw) if raw and raw.isdigit() else 1 << 30
