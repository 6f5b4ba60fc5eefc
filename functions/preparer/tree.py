"""A package tree on disk, read and written the way kpt does it, for ``krmfn prepare-all``."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from krmfn.tko.merge import is_kpt_internal

from krmlib import (
    ANN_INDEX,
    ANN_LEGACY_INDEX,
    ANN_PACKAGE_PATH,
    ANN_PATH,
    KrmError,
    KubeObject,
    ResourceList,
    default_file_name,
    is_kptfile,
)

PREPARER_MARKERS = ("krmfn-preparer", "krmfn/preparer")


def is_yaml_file(path: Path) -> bool:
    return path.is_file() and (path.suffix in (".yaml", ".yml") or path.name == "Kptfile")


def packages_under(root: Path, skip: Path | None) -> list[Path]:
    """Every folder with a Kptfile under ``root`` (``skip`` and hidden folders left out),
    children before parents (kpt renders subpackages first)."""
    found = [
        k.parent
        for k in root.rglob("Kptfile")
        if not any(part.startswith(".") for part in k.relative_to(root).parts)
        and not (skip is not None and k.parent.resolve().is_relative_to(skip))
    ]
    return sorted(found, key=lambda p: (-len(p.parts), str(p)))


def preparer_step(kptfile: KubeObject) -> dict[str, Any] | None:
    """The pipeline step of a Kptfile that runs the preparer, if any."""
    for section in ("mutators", "validators"):
        for step in kptfile.get(f"pipeline.{section}", []) or []:
            if not isinstance(step, dict):
                continue
            runner = str(step.get("exec") or step.get("image") or "")
            if any(marker in runner for marker in PREPARER_MARKERS):
                return step
    return None


def strip_internal(data: dict[str, Any]) -> dict[str, Any]:
    """A plain object without kpt's location and id annotations (to compare content)."""
    meta = dict(data.get("metadata") or {})
    annotations = {
        k: v for k, v in (meta.get("annotations") or {}).items() if not is_kpt_internal(k)
    }
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return {**data, "metadata": meta}


@dataclass
class LoadedPackage:
    """A package's files (its subpackages included) as items, and what was on disk."""

    folder: Path
    items: list[KubeObject]
    original: dict[str, list[tuple[dict[str, Any], str]]] = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path) -> LoadedPackage:
        items: list[KubeObject] = []
        original: dict[str, list[tuple[dict[str, Any], str]]] = {}
        files = sorted(p for p in folder.rglob("*") if is_yaml_file(p))
        for file in files:
            rel = file.relative_to(folder).as_posix()
            if any(part.startswith(".") for part in rel.split("/")):
                continue
            try:
                parsed = ResourceList.parse(file.read_text(encoding="utf-8"))
            except UnicodeDecodeError:
                raise KrmError(f"{file}: not UTF-8") from None
            except KrmError as exc:
                raise KrmError(f"{file}: {exc}") from None
            docs = original.setdefault(rel, [])
            for index, obj in enumerate(parsed.items):
                docs.append((obj.to_dict(), obj.to_yaml()))
                work = KubeObject.from_yaml(obj.to_yaml())
                annotations = work.annotations
                annotations[ANN_PACKAGE_PATH] = str(folder)
                work.set_path(rel)
                annotations[ANN_INDEX] = str(index)
                annotations[ANN_LEGACY_INDEX] = str(index)
                items.append(work)
        return cls(folder, items, original)

    def kptfile(self) -> KubeObject | None:
        return next((o for o in self.items if is_kptfile(o) and o.path == "Kptfile"), None)

    def write(self, items: list[KubeObject]) -> list[str]:
        """Write the items back; files whose content did not change stay as they are.
        Returns the files written or removed (relative)."""
        by_file: dict[str, list[tuple[int, int, KubeObject]]] = {}
        for position, obj in enumerate(items):
            rel = _file_of(obj, self.folder)
            raw = obj.annotations.get(ANN_INDEX, "")
            index = int(raw) if raw.isdigit() else 1 << 30
            by_file.setdefault(rel, []).append((index, position, obj))
        changed: list[str] = []
        for rel, entries in by_file.items():
            objects = [obj for _, _, obj in sorted(entries, key=lambda e: (e[0], e[1]))]
            texts = []
            same = len(objects) == len(self.original.get(rel, []))
            for number, obj in enumerate(objects):
                content = strip_internal(obj.to_dict())
                old = self.original.get(rel, [])
                if number < len(old) and strip_internal(old[number][0]) == content:
                    texts.append(old[number][1])
                    continue
                same = False
                texts.append(_clean_text(obj))
            if same:
                continue
            target = self.folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("---\n".join(texts), encoding="utf-8")
            changed.append(rel)
        for rel in self.original:
            if rel not in by_file:
                (self.folder / rel).unlink(missing_ok=True)
                changed.append(rel)
        return changed


def _file_of(obj: KubeObject, folder: Path) -> str:
    path = obj.path or default_file_name(obj.kind, obj.name)
    pkg = obj.package_path
    if pkg and Path(pkg) != folder:
        path = posixpath.join(Path(pkg).relative_to(folder).as_posix(), path)
    return posixpath.normpath(path)


def _clean_text(obj: KubeObject) -> str:
    copy = obj.copy()
    annotations = copy.annotations
    for key in [k for k in annotations if is_kpt_internal(k) or k == ANN_PATH]:
        del annotations[key]
    return copy.to_yaml()
