"""kpt packages on disk: read a package folder into items, write items back, read named files.

One place knows kpt's rules for a package on disk:

- which files belong to it (``*.yaml``, ``*.yml`` and ``Kptfile``; hidden files and folders and
  symbolic links left out, as kpt leaves them out; subpackages optional), in kpt's walk order;
- the annotations kpt gives every item it reads (path and index, new and legacy spelling, and the
  package folder) and the list of kpt-internal annotations (:func:`is_kpt_internal`), which a
  file on disk never carries;
- how items go back to files: one file per path annotation, documents in index order joined by
  ``---``, an unchanged document written as its original text, paths checked and never outside
  the package (symbolic links that leave it refused);
- which files a function or command may read when a config names them (:func:`read_named_file`):
  regular files inside the package tree or the root given on the command line, or a place the
  person running the command allowed with ``KRMFN_ALLOW_READ``.

Files are split into documents without parsing them (a document is parsed only when read, and
written back as its text when nothing changed it), so reading a big tree costs little more than
reading its bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from krmlib._base.errors import KrmError
from krmlib._base.pkgpath import check_relative_path, default_file_name
from krmlib._model.object import ANN_INDEX, ANN_LEGACY_INDEX, ANN_LEGACY_PATH, KubeObject
from krmlib._yaml import engines as _yaml

from . import reader as _reader
from . import tree as _tree
from . import treefs as _treefs
from .confine import _path, read_file_text, safe_target

if TYPE_CHECKING:
    from pathlib import Path


ANN_ID = "internal.config.kubernetes.io/id"
ANN_LEGACY_ID = "config.k8s.io/id"
# kpt's bookkeeping annotations: where an item came from and its identity in one run. They
# belong to one package and one run, never to a file: kpt adds them on read, drops them on write.
KPT_INTERNAL_KEYS = frozenset({ANN_LEGACY_PATH, ANN_LEGACY_INDEX, ANN_LEGACY_ID})
KPT_INTERNAL_PREFIXES = ("internal.config.kubernetes.io/", "internal.config.k8s.io/")


__all__ = [
    "ANN_ID",
    "ANN_LEGACY_ID",
    "KPT_INTERNAL_KEYS",
    "KPT_INTERNAL_PREFIXES",
    "MAX_TREE_FILE",
    "Package",
    "TreeError",
    "UnlistableFolder",
    "content_of",
    "is_kpt_internal",
    "is_package_file",
    "kptfile_folders",
    "package_files",
    "read_documents",
    "read_file",
    "read_objects",
    "read_package",
    "read_tree_bytes",
    "read_tree_file",
    "walk_tree",
    "without_kpt_internal",
    "write_package",
]


# --- kpt-internal annotations ------------------------------------------------------------------


def is_kpt_internal(key: str) -> bool:
    """kpt's bookkeeping annotations (file path, index, ids, package folder, seqindent)."""
    return key in KPT_INTERNAL_KEYS or key.startswith(KPT_INTERNAL_PREFIXES)


def without_kpt_internal(obj: KubeObject) -> KubeObject:
    """A copy of ``obj`` without kpt's internal annotations (for another package or a file)."""
    text = obj.to_yaml()
    stripped = _edit_annotation_text(text, is_kpt_internal, {})
    if stripped is not None and _yaml.load_plain(stripped) == content_of(obj):
        return KubeObject.from_yaml(stripped)  # kpt's layout: the lines cut from the text
    copy = KubeObject.from_yaml(text)
    annotations = copy.annotations
    for key in [k for k in annotations if is_kpt_internal(k)]:
        del annotations[key]
    return copy


def without_annotations(
    obj: KubeObject, drop: Callable[[str], bool], values: Mapping[str, str] | None = None
) -> KubeObject:
    """A copy of ``obj`` without the annotations ``drop`` says yes to, and with the new
    ``values`` of annotations it has (others are not added), as deleting and setting them on a
    copy leaves it (an annotations map left empty stays, empty). When the annotations are in
    kpt's layout (one ``key: value`` line each, simple values) and some are kept, their lines
    are edited in the text (a line comment keeps its column, as the round trip keeps it) and the
    rest of it stays as it was; otherwise the copy is edited through the round trip."""
    text = obj.to_yaml()
    data = obj.to_dict()
    metadata = data.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(metadata, dict) or not isinstance(annotations, dict):
        return KubeObject.from_yaml(text)
    dropped = [str(k) for k in annotations if drop(str(k))]
    changes = {k: v for k, v in (values or {}).items() if k in annotations and k not in dropped}
    changes = {k: v for k, v in changes.items() if annotations[k] != v}
    if not dropped and not changes:
        return KubeObject.from_yaml(text)
    kept = {k: changes.get(k, v) for k, v in annotations.items() if k not in dropped}
    if kept:
        edited = _edit_annotation_text(text, drop, changes)
        metadata["annotations"] = kept
        if edited is not None and _yaml.load_plain(edited) == data:
            return KubeObject.from_yaml(edited)
    copy = KubeObject.from_yaml(text)
    for key in dropped:
        del copy.annotations[key]
    for key, value in changes.items():
        copy.annotations[key] = value
    return copy


# The annotation block in kpt's layout: compiled on first use (re caches them), not at start-up.
_ANNOTATIONS_BLOCK = r"(?m)^metadata:\n(?:  .*\n)*?(  annotations:\n)((?:    \S.*\n)+)"
_ENTRY = r"    ([A-Za-z0-9][A-Za-z0-9._/-]*): [^\n]*\n"
_SIMPLE_VALUE = (
    r"(?P<value>[A-Za-z0-9][A-Za-z0-9._/-]*|'[A-Za-z0-9._/-]*'|\"[A-Za-z0-9._/-]*\")"
    r"(?:(?P<gap> +)(?P<comment>#.*))?"
)


def _edit_annotation_text(
    text: str, drop: Callable[[str], bool], values: Mapping[str, str]
) -> str | None:
    """``text`` without the lines of its ``metadata.annotations`` block whose key ``drop`` says
    yes to (the block's own line too when none is left) and with ``values`` on the lines of
    their keys, when the block is in kpt's layout (one ``key: value`` line per entry); None
    otherwise."""
    if not text.endswith("\n"):
        text += "\n"
    match = re.search(_ANNOTATIONS_BLOCK, text)
    if match is None:
        return None
    entries = match.group(2).splitlines(keepends=True)
    entry = re.compile(_ENTRY)
    if any(entry.fullmatch(line) is None for line in entries):
        return None
    if text.startswith("     ", match.end(2)):
        return None  # the last value goes on over more lines
    kept = []
    for line in entries:
        key = line.split(":", 1)[0].strip()
        if drop(key):
            continue
        edited = _with_value(line, key, values[key]) if key in values else line
        if edited is None:
            return None
        kept.append(edited)
    if kept == entries:
        return text
    start, end = (match.start(1), match.end(2)) if not kept else (match.start(2), match.end(2))
    return text[:start] + "".join(kept) + text[end:]


def _with_value(line: str, key: str, value: str) -> str | None:
    """An annotation line with a new simple value, written as the round trip writes it: the old
    quotes kept, a line comment at its column (one space after a value that reaches it)."""
    from krmlib._model.storage import render_scalar

    prefix = f"    {key}: "
    found = re.fullmatch(_SIMPLE_VALUE, line[len(prefix) : -1])
    if found is None or render_scalar(value) != value or not value:
        return None
    old = found.group("value")
    new = f"{old[0]}{value}{old[0]}" if old[0] in "'\"" else value
    comment = found.group("comment")
    if comment is None:
        return f"{prefix}{new}\n"
    column = len(prefix) + len(old) + len(found.group("gap"))
    at = len(prefix) + len(new)
    return f"{prefix}{new}{' ' * max(column - at, 1)}{comment}\n"


def content_of(obj: KubeObject) -> dict[str, Any]:
    """The object as plain values without kpt's internal annotations (to compare content)."""
    data = obj.to_dict()
    metadata = data.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(metadata, dict) and isinstance(annotations, dict):
        kept = {k: v for k, v in annotations.items() if not is_kpt_internal(str(k))}
        if kept:
            metadata["annotations"] = kept
        else:
            del metadata["annotations"]
    return data


# --- reading (krmlib._io.reader: kpt's rules of package content, the split, the checks) ----------

is_package_file = _tree.is_package_file
split_documents = _tree.split_documents

# The tree commands' one way to list a package tree and open its files (krmlib/_io/treefs.py).
MAX_TREE_FILE = _treefs.MAX_TREE_FILE
TreeError = _treefs.TreeError
UnlistableFolder = _treefs.UnlistableFolder
read_tree_file = _treefs.read_text
read_tree_bytes = _treefs.read_bytes
walk_tree = _treefs.walk
kptfile_folders = _treefs.kptfile_folders


def package_files(folder: Path, *, subpackages: bool = True) -> list[str]:
    """The resource files of the package at ``folder`` (relative, ``/``-separated), as kpt
    reads them: ``*.yaml``, ``*.yml``, ``*.json`` and ``Kptfile``, hidden entries included,
    symbolic links to files read through, each package's ``.krmignore`` applied, in kpt's
    order (a folder's entries by name, depth first); ``subpackages=False`` leaves out folders
    with their own Kptfile. The rules: ``krmlib/_io/reader.py``."""
    return _tree.package_files(folder, subpackages=subpackages)


def read_documents(text: str, where: str) -> list[KubeObject]:
    """The KRM objects of a file's text (a stream, a v1 List or a ResourceList: their items),
    every byte checked as a function's input is, each object checked as the items of a
    ResourceList are (apiVersion, kind, metadata.name, path annotations)."""
    return _tree.read_stream(text, where)


def read_file(path: Path, rel: str | None = None, *, tree: bool = False) -> list[KubeObject]:
    """The objects of one regular file, with path (``rel``, default the file's name) and index
    annotations, as kpt gives them. ``tree=True``: opened as the tree commands open a file
    (``krmlib/_io/treefs.py``: not through a symbolic link, within :data:`MAX_TREE_FILE`)."""
    name = rel or _path(path).name
    read = _treefs.read_text if tree else read_file_text
    objects = _tree.read_stream(read(path, str(path)), str(path))
    for index, obj in enumerate(objects):
        _tree.annotate(obj, name, index, None)
    return objects


def read_objects(path: Path, *, tree: bool = False) -> list[KubeObject]:
    """The objects of a file, or of every resource file of a folder (as :func:`read_package`);
    ``tree=True``: under the tree commands' rules, a symbolic link refused, not followed."""
    if tree and os.path.islink(path):
        raise _treefs.TreeError(f"{path} is a symbolic link; links are not followed")
    if os.path.isdir(path):
        return read_package(path, tree=tree)
    return read_file(path, tree=tree)


def read_package(
    folder: Path,
    *,
    subpackages: bool = True,
    package_path: bool = False,
    annotate: bool = True,
    tree: bool = False,
) -> list[KubeObject]:
    """The items of the package at ``folder`` as kpt reads them: every document of every
    resource file (a ``v1 List`` document kept as one item), with path and index annotations
    (both spellings) relative to ``folder``; ``package_path=True`` also names the folder
    (``internal.config.kubernetes.io/package-path``) on each item, as ``kpt fn render`` does.
    ``annotate=False``: the documents as the files hold them, without kpt's annotations (a
    quick look: cheaper, not for writing back). ``tree=True``: as the tree commands read a
    package (``krmlib/_io/treefs.py``: hidden entries and symbolic links left out, regular files
    within :data:`MAX_TREE_FILE`, an unlistable folder an error)."""
    if not annotate:
        read = _treefs.read_text if tree else read_file_text
        return [
            obj
            for rel in _tree.package_files(folder, subpackages=subpackages, tree=tree)
            for obj in _tree.read_stream(read(os.path.join(folder, rel), rel), rel, unwrap=False)
        ]
    return Package.read(folder, subpackages=subpackages, package_path=package_path, tree=tree).items


class _Original:
    """One document as read: its text, and the annotated text the item had after reading.

    A slotted class: a NamedTuple's postponed annotations would each make a ``typing.ForwardRef``,
    whose first ``compile()`` costs about 10 M instructions at every start (issue 37)."""

    __slots__ = ("annotated", "text")

    def __init__(self, text: str, annotated: str) -> None:
        self.text = text
        self.annotated = annotated


class Package:
    """A package read from disk: its items, and what each file held (to write back only what
    changed, unchanged documents as their original text)."""

    __slots__ = ("files", "folder", "items")

    def __init__(
        self,
        folder: Path,
        items: list[KubeObject],
        files: dict[str, list[_Original]] | None = None,
    ) -> None:
        self.folder = folder
        self.items = items
        self.files: dict[str, list[_Original]] = {} if files is None else files

    @classmethod
    def read(
        cls,
        folder: Path,
        *,
        subpackages: bool = True,
        package_path: bool = False,
        tree: bool = False,
    ) -> Package:
        """The package at ``folder`` as kpt reads it (:func:`read_package`; ``tree=True``: as
        the tree commands read it), with what each file held, to write back only what
        changed."""
        folder = _path(folder)
        package = str(folder.resolve()) if package_path else None
        items: list[KubeObject] = []
        files: dict[str, list[_Original]] = {}
        for rel, documents in _tree.read_tree(
            folder, subpackages=subpackages, package=package, tree=tree
        ):
            originals = files.setdefault(rel, [])
            for text, obj in documents:
                originals.append(_Original(text, obj.to_yaml()))
                items.append(obj)
        return cls(folder, items, files)

    def kptfile(self) -> KubeObject | None:
        """The package's own Kptfile (at path ``Kptfile``), by the one rule of
        :meth:`ResourceList.package`."""
        from .resourcelist import FunctionPackage

        return FunctionPackage.of(self.items).kptfile

    def file_of(self, obj: KubeObject) -> str:
        """The file an item goes to, relative to the package folder (checked)."""
        path = obj.path or default_file_name(obj.kind, obj.name)
        owner = obj.package_path
        if owner and _path(owner).resolve() != self.folder.resolve():
            base = os.path.relpath(_path(owner).resolve(), self.folder.resolve())
            path = f"{_path(base).as_posix()}/{path}"
        return check_relative_path(path, obj)

    def write(
        self, items: Iterable[KubeObject], *, dry_run: bool = False, last: Sequence[str] = ()
    ) -> list[str]:
        """Write ``items`` back; files whose documents did not change are left alone, files that
        lost every item are removed. Returns the files written or removed (relative). Every
        target is checked before anything is written; ``dry_run`` only checks and tells.
        ``last``: files written after every other (see :func:`write_package`)."""
        return write_package(self.folder, items, self.files, dry_run=dry_run, last=last)


def write_package(
    folder: Path,
    items: Iterable[KubeObject],
    originals: dict[str, list[_Original]] | None = None,
    *,
    dry_run: bool = False,
    last: Sequence[str] = (),
    files: Mapping[str, bytes] | None = None,
) -> list[str]:
    """Write ``items`` into the package at ``folder`` by their path annotations (documents in
    index order, kpt's internal annotations left out). ``originals`` (from :class:`Package`):
    what was read, so unchanged files stay untouched and files left without items are removed;
    without it every file named by an item is written. ``files``: other files to write with
    the items (relative path: bytes, e.g. a template's README). Returns the files written or
    removed.

    Crash-safe: every file is replaced atomically (a kill leaves its old or its new content);
    a folder that does not exist yet (``folder`` itself, or a new child package) is built aside
    and put in place whole; then the files of existing folders are written, deepest first (a
    child before its parent), then files are removed, and ``last`` (files the caller reads as
    "done", such as the one marking the package prepared) are written at the very end, in the
    order given. An I/O error is a :class:`KrmError` naming the file; a regular file where a
    folder must go is one too, found before anything is written."""
    folder = _path(folder)
    view = Package(folder, [], {})
    groups: dict[str, list[tuple[int, int, KubeObject]]] = {}
    for order, obj in enumerate(items):
        rel = view.file_of(obj)
        groups.setdefault(rel, []).append((_index(obj), order, obj))
    known = originals or {}
    plan: list[tuple[str, str | bytes | None]] = []  # (file, new text; None: remove it)
    for rel, entries in groups.items():
        entries.sort(key=lambda e: (e[0], e[1]))
        old = known.get(rel, [])
        texts: list[str] = []
        same = len(entries) == len(old)
        for number, (index, _order, obj) in enumerate(entries):
            before = old[index] if 0 <= index < len(old) else None
            text = _text_for(obj, before)
            same = same and before is not None and index == number and text == before.text
            texts.append(text)
        if not same:
            plan.append((rel, "---\n".join(texts)))
    planned = {rel for rel, _text in plan}
    removed = [rel for rel in known if rel not in groups]
    extra = (files or {}).items()
    plan.extend((rel, data) for rel, data in extra if rel not in planned and rel not in removed)
    plan.extend((rel, None) for rel in removed)
    targets = [(rel, safe_target(folder, rel), text) for rel, text in plan]
    new_folders = _new_folders(folder, [rel for rel, text in plan if text is not None])
    if not dry_run:
        _reader.gate()  # the input check's verdict before any write
        try:
            _apply(folder, targets, new_folders, last)
        except OSError as exc:
            raise KrmError(f"cannot write the package {folder}: {exc.strerror or exc}") from None
    return sorted(rel for rel, _target, _text in targets)


def _new_folders(folder: Path, rels: Sequence[str]) -> dict[str, str]:
    """For each file to write, the outermost folder of its path that does not exist yet
    (``""``: ``folder`` itself); files of existing folders are left out. A file or anything but
    a folder where a folder must go is an error."""
    if not os.path.isdir(folder):
        if os.path.lexists(folder):
            raise KrmError(f"cannot write the package {folder}: a file is in the way")
        return dict.fromkeys(rels, "")
    out: dict[str, str] = {}
    known: dict[str, bool] = {}  # folder -> exists
    for rel in rels:
        parts = rel.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            sub = "/".join(parts[:depth])
            exists = known.get(sub)
            if exists is None:
                path = os.path.join(folder, sub)
                if os.path.lexists(path) and not os.path.isdir(path):
                    raise KrmError(
                        f"cannot write {rel}: {sub} is a file, not a folder (move it away)"
                    )
                exists = known[sub] = os.path.isdir(path)
            if not exists:
                out[rel] = sub
                break
    return out


def _apply(
    folder: Path,
    targets: Sequence[tuple[str, Path, str | bytes | None]],
    new_folders: Mapping[str, str],
    last: Sequence[str],
) -> None:
    from . import atomic as _atomic

    aside: dict[str, list[tuple[str, str | bytes]]] = {}
    in_place: list[tuple[str, Path, str | bytes]] = []
    final: dict[str, tuple[Path, str | bytes]] = {}
    removed: list[Path] = []
    ends = set(last)
    for rel, target, content in targets:
        if content is None:
            removed.append(target)
        elif rel in new_folders:
            top = new_folders[rel]
            aside.setdefault(top, []).append((rel[len(top) + 1 :] if top else rel, content))
        elif rel in ends:
            final[rel] = (target, content)
        else:
            in_place.append((rel, target, content))
    for top, entries in sorted(aside.items(), key=lambda e: (-e[0].count("/"), e[0])):
        new = _atomic.NewFolder(safe_target(folder, top) if top else folder)
        try:
            for rel, content in entries:
                new.write(rel, content)
            new.publish()
        finally:
            new.discard()
    in_place.sort(key=lambda e: (-e[0].count("/"), e[0]))
    for _rel, target, content in in_place:
        _atomic.write_text(target, content)
    for target in removed:
        _atomic.remove_file(target)
    _atomic.sync_folders(t.parent for _r, t, _c in in_place)
    _atomic.sync_folders(t.parent for t in removed)
    for rel in last:
        if rel in final:
            target, content = final[rel]
            _atomic.write_text(target, content)
            _atomic.sync_folders([target.parent])


def _text_for(obj: KubeObject, before: _Original | None) -> str:
    """The document's text on disk: the original when the content is the same."""
    if before is not None:
        current = obj.to_yaml()
        if current == before.annotated:
            return before.text
        if content_of(obj) == content_of(KubeObject.from_yaml(before.text)):
            return before.text
    return without_kpt_internal(obj).to_yaml()


def _index(obj: KubeObject) -> int:
    annotations = obj.annotations
    raw = annotations.get(ANN_INDEX) or annotations.get(ANN_LEGACY_INDEX)
    return int(raw) if raw and raw.isdigit() else 1 << 30


# --- confinement --------------------------------------------------------------------------------
