"""The template and site catalog: package folders on disk, or inline ``tko.nephio.org`` items."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from krmlib import (
    KrmError,
    KubeObject,
    Results,
    check_readable,
    default_file_name,
    is_kptfile,
    read_package,
)

TKO_API = "tko.nephio.org/v1alpha1"
METADATA_GROUP = "metadata.nephio.org"
ANN_CATALOG_ID = "catalog.nephio.org/id"
KINDS = {"templates": "Template", "sites": "Site"}
SPEC_ID = {"templates": "templateId", "sites": "siteId"}


@dataclass
class CatalogEntry:
    """One template or site: its id, metadata (``Kind.spec.path`` → values) and resources."""

    id: str
    metadata: dict[str, list[str]]
    load: Callable[[], list[KubeObject]] = field(repr=False)

    def matches(self, select: Mapping[str, Any]) -> bool:
        """Every ``key: pattern`` of ``select`` matches one of the key's values (``*`` wildcard)."""
        for key, pattern in select.items():
            regex = _pattern(str(pattern))
            if not any(regex.fullmatch(value) for value in self.metadata.get(str(key), [])):
                return False
        return True


@cache
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.S)


def metadata_of(objects: Iterable[KubeObject], labels: Mapping[str, str]) -> dict[str, list[str]]:
    """``<Kind>.<spec path>`` keys from ``metadata.nephio.org/*`` resources, plus the labels."""
    out: dict[str, list[str]] = {str(k): [str(v)] for k, v in labels.items()}
    for obj in objects:
        if obj.group != METADATA_GROUP:
            continue
        _flatten(obj.kind, obj.get("spec", {}), out)
    return out


def _flatten(prefix: str, value: Any, out: dict[str, list[str]]) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}", item, out)
    elif isinstance(value, list):
        for item in value:
            _flatten(prefix, item, out)
    elif value is not None:
        text = str(value).lower() if isinstance(value, bool) else str(value)
        out.setdefault(prefix, []).append(text)


class Catalog:
    """Templates and sites, by id (sorted by id: selection is deterministic)."""

    def __init__(self, templates: list[CatalogEntry], sites: list[CatalogEntry]) -> None:
        self.templates = sorted(templates, key=lambda e: e.id)
        self.sites = sorted(sites, key=lambda e: e.id)

    def entries(self, section: str) -> list[CatalogEntry]:
        return self.templates if section == "templates" else self.sites

    def find(self, section: str, entry_id: str) -> CatalogEntry | None:
        return next((e for e in self.entries(section) if e.id == entry_id), None)

    def select(self, section: str, select: Mapping[str, Any]) -> list[CatalogEntry]:
        return [e for e in self.entries(section) if e.matches(select)]


# A folder's entries and the warnings reading it gave, while a command reads the catalog once
# for every package (``cached_catalogs``); outside it every call reads the folder.
_Read = tuple[list[CatalogEntry], list[tuple[str, str]]]
_CACHE: ContextVar[dict[Path, _Read] | None] = ContextVar("krmfn_catalog_cache", default=None)


@contextmanager
def cached_catalogs() -> Iterator[None]:
    """Within the block each catalog folder is read once (``krmfn prepare-all``: the catalog
    does not change while the tree is prepared)."""
    token = _CACHE.set({})
    try:
        yield
    finally:
        _CACHE.reset(token)


def load_catalog(
    folder: Path | None,
    inline: Iterable[KubeObject],
    results: Results,
    roots: Sequence[Path] | None = None,
) -> Catalog:
    """The catalog from a folder (``templates/``, ``sites/``) and inline items (both may be
    given; an inline entry wins over a folder entry with the same id). With ``roots`` the folder
    must lie inside one of them after symbolic links (see ``krmlib.check_readable``)."""
    found: dict[str, dict[str, CatalogEntry]] = {"templates": {}, "sites": {}}
    if folder is not None:
        if roots is not None:
            folder = check_readable(folder, roots, "catalog")
        for section, entries in found.items():
            for entry in _cached_entries(folder / section, results):
                entries[entry.id] = entry
    for obj in inline:
        for section, kind in KINDS.items():
            if obj.is_kind(TKO_API, kind):
                entry = _inline_entry(obj, section)
                found[section][entry.id] = entry
    return Catalog(list(found["templates"].values()), list(found["sites"].values()))


def _cached_entries(folder: Path, results: Results) -> list[CatalogEntry]:
    cache = _CACHE.get()
    key = folder.resolve()
    read = cache.get(key) if cache is not None else None
    if read is None:
        read = _folder_entries(folder)
        if cache is not None:
            cache[key] = read
    entries, warnings = read
    for message, file in warnings:
        results.warning(message, file=file)
    return entries


def _folder_entries(folder: Path) -> _Read:
    if not folder.is_dir():
        return [], []
    roots: list[Path] = []
    for found in sorted(folder.rglob("Kptfile")):
        pkg = found.parent
        if not any(pkg.is_relative_to(root) for root in roots):
            roots.append(pkg)
    entries = []
    warnings: list[tuple[str, str]] = []
    for pkg in roots:
        try:
            objects = read_package(pkg)
        except KrmError as exc:
            warnings.append((f"catalog package {pkg.name} skipped: {exc}", str(pkg.name)))
            continue
        kptfile = next((o for o in objects if is_kptfile(o) and o.path == "Kptfile"), None)
        labels = dict(kptfile.labels) if kptfile is not None else {}
        declared = kptfile.annotations.get(ANN_CATALOG_ID) if kptfile is not None else None
        entry_id = declared or pkg.relative_to(folder).as_posix()
        entries.append(CatalogEntry(entry_id, metadata_of(objects, labels), _loader(objects)))
    return entries, warnings


def _loader(objects: list[KubeObject]) -> Callable[[], list[KubeObject]]:
    texts = [o.to_yaml() for o in objects]

    def load() -> list[KubeObject]:
        return [KubeObject.from_yaml(text) for text in texts]  # independent, parsed when read

    return load


def _inline_entry(obj: KubeObject, section: str) -> CatalogEntry:
    entry_id = str(obj.get(f"spec.{SPEC_ID[section]}") or obj.name)
    raw = obj.get("spec.package.resources", []) or []
    if not isinstance(raw, list):
        raise KrmError("spec.package.resources must be a list", obj=obj)
    objects: list[KubeObject] = []
    for index, data in enumerate(raw):
        if not isinstance(data, dict):
            raise KrmError(
                "a package resource must be a map",
                obj=obj,
                field=f"spec.package.resources[{index}]",
            )
        item = KubeObject.from_dict(data)
        item.validate()
        if item.path is None:
            name = "Kptfile" if is_kptfile(item) else default_file_name(item.kind, item.name)
            item.set_path(name)
        objects.append(item)
    labels = {k: v for k, v in obj.labels.items()}
    return CatalogEntry(entry_id, metadata_of(objects, labels), _loader(objects))


__all__ = [
    "ANN_CATALOG_ID",
    "TKO_API",
    "Catalog",
    "CatalogEntry",
    "cached_catalogs",
    "load_catalog",
    "metadata_of",
]
