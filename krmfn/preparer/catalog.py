"""The template and site catalog: package folders on disk, or inline ``tko.nephio.org`` items."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from krmfn.tko import (
    ANN_CATALOG_ID,
    ANN_CATALOG_TEMPLATE,
    TKO_API,
    from_kubernetes_names,
    id_forms,
    merge_resources,
    metadata_of,
)
from krmfn.tko.patterns import value_pattern
from krmlib import Items, KrmError, KubeObject, Results, default_file_name, is_kptfile, text_of
from krmlib.packages import check_readable, kptfile_folders, read_package

if TYPE_CHECKING:  # pathlib (urllib, ipaddress) where a path is made: not a start-up cost
    from pathlib import Path

KINDS = {"templates": "Template", "sites": "Site"}
SPEC_ID = {"templates": "templateId", "sites": "siteId"}


class CatalogEntry:
    """One template or site: its id, metadata (``Kind.spec.path`` → value) and resources."""

    __slots__ = ("id", "load", "metadata")

    def __init__(
        self,
        id: str,
        metadata: dict[str, str],
        load: Callable[[], list[KubeObject]],
    ) -> None:
        self.id = id
        self.metadata = metadata
        self.load = load

    def matches(self, select: Mapping[str, Any]) -> bool:
        """Every ``key: pattern`` of ``select`` matches the key's value (``*`` wildcard)."""
        for key, pattern in select.items():
            value = self.metadata.get(str(key))
            if value is None or not value_pattern(str(pattern)).fullmatch(value):
                return False
        return True


def entry_metadata(objects: Iterable[KubeObject], labels: Mapping[str, str]) -> dict[str, str]:
    """An entry's metadata: the catalog labels, then the package's own metadata resources
    (they win, as in TKO where the package's metadata overrides the registration's)."""
    return {**{str(k): str(v) for k, v in labels.items()}, **metadata_of(objects)}


class Catalog:
    """Templates and sites, by id (sorted by id: selection is deterministic)."""

    def __init__(self, templates: list[CatalogEntry], sites: list[CatalogEntry]) -> None:
        self.templates = sorted(templates, key=lambda e: e.id)
        self.sites = sorted(sites, key=lambda e: e.id)
        self._index: dict[str, tuple[list[CatalogEntry], dict[str, CatalogEntry]]] = {}

    def entries(self, section: str) -> list[CatalogEntry]:
        return self.templates if section == "templates" else self.sites

    def find(self, section: str, entry_id: str) -> CatalogEntry | None:
        entries = self.entries(section)
        index = self._index.get(section)
        if index is None or index[0] is not entries:  # built once per list of entries
            by_id: dict[str, CatalogEntry] = {}
            for entry in entries:
                by_id.setdefault(entry.id, entry)  # the first of an id, as a scan finds it
            index = self._index[section] = (entries, by_id)
        for form in id_forms(entry_id):  # as written, then as TKO's escaped name stands for
            found = index[1].get(form)
            if found is not None:
                return found
        return None

    def select(self, section: str, select: Mapping[str, Any]) -> list[CatalogEntry]:
        return [e for e in self.entries(section) if e.matches(select)]

    def add(self, section: str, entry: CatalogEntry) -> None:
        """Register (or replace) an entry, as TKO's registerSite does."""
        entries = [e for e in self.entries(section) if e.id != entry.id]
        entries = sorted([*entries, entry], key=lambda e: e.id)
        if section == "templates":
            self.templates = entries
        else:
            self.sites = entries


# A folder's entries and the warnings reading it gave, while a command reads the catalog once
# for every package (``cached_catalogs``); outside it every call reads the folder.
_Read = tuple[list[CatalogEntry], list[tuple[str, str, bool]]]  # (message, file, is an error)
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
    must lie inside one of them after symbolic links (see ``krmlib.packages.check_readable``)."""
    found: dict[str, dict[str, CatalogEntry]] = {"templates": {}, "sites": {}}
    if folder is not None:
        if roots is not None:
            folder = check_readable(folder, roots, "catalog")
        for section, entries in found.items():
            for entry in _cached_entries(folder / section, results, found["templates"]):
                entries[entry.id] = entry
    inline_ids: dict[tuple[str, str], KubeObject] = {}
    for obj in inline:
        for section, kind in KINDS.items():
            if obj.is_kind(TKO_API, kind):
                entry = _inline_entry(obj, section)
                first = inline_ids.setdefault((section, entry.id), obj)
                if first is not obj:  # which one a selection gets would be a guess (27.6)
                    raise KrmError(
                        f"two catalog {section} have the id {entry.id}: {kind} {first.name} "
                        f"and {kind} {obj.name}",
                        obj=obj,
                        field=f"spec.{SPEC_ID[section]}",
                    )
                found[section][entry.id] = entry
    return Catalog(list(found["templates"].values()), list(found["sites"].values()))


def _cached_entries(
    folder: Path, results: Results, templates: Mapping[str, CatalogEntry]
) -> list[CatalogEntry]:
    cache = _CACHE.get()
    key = folder.resolve()
    read = cache.get(key) if cache is not None else None
    if read is None:
        read = _folder_entries(folder, templates)
        if cache is not None:
            cache[key] = read
    entries, warnings = read
    for message, file, error in warnings:
        if error:
            results.error(message, file=file)
        else:
            results.warning(message, file=file)
    return entries


def _folder_entries(folder: Path, templates: Mapping[str, CatalogEntry]) -> _Read:
    if not folder.is_dir():
        return [], []
    roots: list[Path] = []
    outermost: set[Path] = set()  # the roots so far, to look a folder's parents up in
    for pkg in kptfile_folders(folder):  # the tree rules: no links, no hidden folders
        if pkg not in outermost and outermost.isdisjoint(pkg.parents):
            roots.append(pkg)
            outermost.add(pkg)
    entries = []
    warnings: list[tuple[str, str, bool]] = []
    folders: dict[str, Path] = {}  # id -> the package that has it
    for pkg in roots:
        try:
            objects = read_package(pkg, tree=True)
        except KrmError as exc:
            # A file that cannot be read (an I/O error) is an error: the entry is not "missing".
            # A malformed package is skipped with a warning.
            unreadable = str(exc).startswith("cannot read")
            verb = "cannot be read" if unreadable else "skipped"
            warnings.append(
                (f"catalog package {pkg.name} {verb}: {exc}", str(pkg.name), unreadable)
            )
            continue
        kptfile = next((o for o in objects if is_kptfile(o) and o.path == "Kptfile"), None)
        labels = dict(kptfile.labels) if kptfile is not None else {}
        declared = kptfile.annotations.get(ANN_CATALOG_ID) if kptfile is not None else None
        entry_id = declared or pkg.relative_to(folder).as_posix()
        metadata = entry_metadata(objects, labels)
        base_id = kptfile.annotations.get(ANN_CATALOG_TEMPLATE) if kptfile is not None else None
        if base_id:
            base = templates.get(base_id)
            if base is None:
                warnings.append(
                    (
                        f"catalog package {pkg.name}: its template {base_id} "
                        f"({ANN_CATALOG_TEMPLATE}) is not in the catalog; skipped",
                        str(pkg.name),
                        False,
                    )
                )
                continue
            entry = with_template(entry_id, base, objects, metadata)
        else:
            entry = CatalogEntry(entry_id, metadata, _loader(objects))
        first = folders.setdefault(entry_id, pkg)
        if first != pkg:  # which one a selection gets would be a guess (issue 27.6)
            raise KrmError(
                f"two catalog packages have the id {entry_id}: {first.relative_to(folder)} "
                f"and {pkg.relative_to(folder)} (in {folder}; {ANN_CATALOG_ID} or the folder "
                "names the id)"
            )
        entries.append(entry)
    return entries, warnings


def with_template(
    entry_id: str, base: CatalogEntry, objects: list[KubeObject], metadata: Mapping[str, str]
) -> CatalogEntry:
    """A site made from a site template (TKO's MergeTemplate): the template's resources merged
    with the site's own, the template's metadata overridden by the site's."""
    merged = Items(base.load())
    own = [o for o in objects if not is_kptfile(o)]
    merge_resources(merged, own, file_dir="")
    resources = list(merged)
    return CatalogEntry(entry_id, {**base.metadata, **metadata}, _loader(resources))


def _loader(objects: list[KubeObject]) -> Callable[[], list[KubeObject]]:
    texts = [o.to_yaml() for o in objects]

    def load() -> list[KubeObject]:
        return [KubeObject.from_yaml(text) for text in texts]  # independent, parsed when read

    return load


def _inline_entry(obj: KubeObject, section: str) -> CatalogEntry:
    # TKO's API names the object after its escaped id (k8s-002fhello-003av1.0.0) and escapes
    # its labels; its spec id, when given, is written as it is (0123 stays 0123).
    entry_id = text_of(obj, f"spec.{SPEC_ID[section]}") or id_forms(obj.name)[-1]
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
    labels = from_kubernetes_names(dict(obj.labels))
    return CatalogEntry(entry_id, entry_metadata(objects, labels), _loader(objects))


__all__ = [
    "ANN_CATALOG_ID",
    "TKO_API",
    "Catalog",
    "CatalogEntry",
    "cached_catalogs",
    "entry_metadata",
    "load_catalog",
]
