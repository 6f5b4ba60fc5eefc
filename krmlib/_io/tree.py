"""Files and package trees: a file's stream of documents and kpt's rules of package content.

A file's text (a config-named file, a file of a package) goes through :func:`read_stream`:
the reader's whole-input check, split at its ``---`` lines, the same checks per object. A
package tree goes through :func:`package_files` (kpt's rules of package content, listed in
:mod:`krmlib._io.reader`) and :func:`annotate` (kpt's path and index annotations, and the
package folder).
"""

from __future__ import annotations

import os
import re
import stat

from krmlib._base.errors import InputError, KrmError
from krmlib._model import storage as _storage
from krmlib._model.object import (
    ANN_INDEX,
    ANN_LEGACY_INDEX,
    ANN_LEGACY_PATH,
    ANN_PACKAGE_PATH,
    ANN_PATH,
    KubeObject,
)
from krmlib._yaml import engines as _yaml
from krmlib._yaml import syntax as _syntax

from . import treefs as _treefs
from .reader import KPTFILE, KRMIGNORE, _node_object, _read, check_item, without_boms

# Patterns of the file and tree routes (and of a BOM): compiled on first use (re caches them),
# so a function reading stdin does not pay for them at start-up.
# A CRLF file's line ends in "\r" before the "\n" (kpt reads CRLF files as LF ones).
_MARKER = r"(?m)^(?:---|\.\.\.)(?=[ \t\r]|$)"
_MARKER_REST = r"[ \t]*(?:#[^\r]*)?\r?"
_BLANK_OR_COMMENT = r"(?:[ \t\r]*(?:#[^\n]*)?(?:\n|$))*"
_LIST_KIND = r"(?m)^kind:[ \t]*['\"]?(?:List|ResourceList)['\"]?[ \t]*(?:#.*)?$"


def split_documents(text: str) -> list[str] | None:
    """The documents of a YAML stream as text, cut at its ``---`` lines without parsing; empty
    documents dropped. None when the stream has directives or markers with content (the caller
    parses it for real)."""
    text = without_boms(text)
    if text.startswith("%") or "\n%" in text:
        return None
    docs: list[str] = []
    start = 0
    for match in re.finditer(_MARKER, text):
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        rest = re.compile(_MARKER_REST).fullmatch(text, match.end(), line_end)
        if match.group(0) == "..." or rest is None:
            return None  # document end markers, `--- |`, `--- !tag`: unusual; parse for real
        docs.append(text[start : match.start()])
        start = line_end + 1
    docs.append(text[start:])
    out = []
    for doc in docs:
        if re.fullmatch(_BLANK_OR_COMMENT, doc):
            continue
        out.append(doc if doc.endswith("\n") else doc + "\n")
    return out


def read_stream(text: str, where: str, *, unwrap: bool = True) -> list[KubeObject]:
    """The KRM objects of a file's text, every byte checked as stdin's are, each object checked
    as the items of a ResourceList are (apiVersion, kind, metadata.name, path annotations).

    ``unwrap``: a file that is one ``v1 List`` or ResourceList gives its items (a file a config
    names); without it, as kpt reads a package's files, a ``v1 List`` document is one item.
    kpt's path annotations in a file are not checked: its objects take the path of the file
    they are read from (a package's), or are placed by the function that reads them."""
    text = without_boms(text)
    try:
        _yaml.check_bounds(text)
        outline = _syntax.check_syntax(text, paths=False)
        docs = split_documents(text)
        if unwrap and (docs is None or any(re.search(_LIST_KIND, doc) for doc in docs)):
            return _read(text, outline, paths=False).items
        headers = outline.check(False)
        if docs is None:  # directives, markers with content: each document parsed for real
            objects = [
                _node_object(doc, f"document {n + 1}")
                for n, doc in enumerate(_yaml.load_rt_all(text))
            ]
        else:
            objects = [KubeObject.from_yaml(doc) for doc in docs]
    except KrmError as exc:
        raise InputError(f"{where}: {exc.message}", line=exc.line, file=where) from None
    heads = outline.docs if len(outline.docs) == len(objects) and docs is not None else None
    for index, obj in enumerate(objects):
        if heads is not None:
            _storage.of(obj).offer_header(headers[index])
        if obj.api_version == "v1" and obj.kind == "List":
            continue  # kpt keeps a List whole; it has no name of its own
        try:
            check_item(obj, index)
        except KrmError as exc:
            raise InputError(f"{where}: {exc.message}", obj=obj, file=where) from None
    return objects


def read_file_text(path: os.PathLike[str] | str, where: str | None = None) -> str:
    """A regular file's text: FIFOs, devices and other special files are refused before they are
    opened for reading, a file over the input cap before it is read, and the text must be UTF-8."""
    label = where or str(path)
    cap = _yaml.MAX_INPUT
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise KrmError(f"cannot read {label}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise KrmError(f"cannot read {label}: not a regular file")
        if info.st_size > cap:
            raise KrmError(
                f"cannot read {label}: {info.st_size} bytes, over the input cap of {cap}"
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(cap + 1)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise KrmError(f"cannot read {label}: over the input cap of {cap} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KrmError(
            f"{label}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def is_package_file(name: str) -> bool:
    """A file kpt reads as resources: ``*.yaml``, ``*.yml``, ``*.json`` or ``Kptfile``."""
    return name == KPTFILE or name.endswith((".yaml", ".yml", ".json"))


def package_files(
    folder: os.PathLike[str] | str, *, subpackages: bool = True, tree: bool = False
) -> list[str]:
    """The resource files of the package at ``folder`` (relative, ``/``-separated) in kpt's
    order (``*.yaml``, ``*.yml``, ``*.json``, ``Kptfile``): each folder's entries by name,
    depth first, listed by ``krmlib/_io/treefs.py`` under kpt's rules (hidden files and folders
    included, symbolic links to files read through, links to folders not followed); each package's
    ``.krmignore`` applied to its own files; ``subpackages=False`` leaves out folders with their
    own Kptfile. ``tree=True``: the tree commands' rules instead (``krmlib/_io/treefs.py``: hidden
    entries and every link left out, regular files only, an unlistable folder an error)."""
    found: list[str] = []

    def walk(directory: str, prefix: str, ignore: _Ignore | None, base: str) -> None:
        for entry in _treefs.entries(directory, kpt=not tree):
            rel = f"{prefix}{entry.name}"
            if _treefs.is_folder(entry):
                if ignore is not None and ignore.ignored(rel[len(base) :], True):
                    continue
                if os.path.lexists(os.path.join(entry.path, KPTFILE)):
                    if subpackages:
                        walk(entry.path, rel + "/", _Ignore.of(entry.path), rel + "/")
                    continue
                walk(entry.path, rel + "/", ignore, base)
            elif (
                is_package_file(entry.name)
                and _treefs.is_file(entry, kpt=not tree)
                and (ignore is None or not ignore.ignored(rel[len(base) :], False))
            ):
                found.append(rel)

    walk(os.fspath(folder), "", _Ignore.of(os.fspath(folder)), "")
    return found


class _Ignore:
    """A package's ``.krmignore``: gitignore rules, matched against paths relative to the
    package folder (the last matching rule decides; ``!`` re-includes; a trailing ``/`` matches
    folders only; a rule with a ``/`` before its end is anchored to the package folder)."""

    __slots__ = ("rules",)

    def __init__(self, rules: list[tuple[re.Pattern[str], bool, bool]]) -> None:
        self.rules = rules

    @classmethod
    def of(cls, folder: str) -> _Ignore | None:
        path = os.path.join(folder, KRMIGNORE)
        if not os.path.isfile(path):
            return None
        rules = []
        for raw in read_file_text(path).splitlines():
            rule = _ignore_rule(raw)
            if rule is not None:
                rules.append(rule)
        return cls(rules) if rules else None

    def ignored(self, rel: str, is_dir: bool) -> bool:
        result = False
        for pattern, negate, dir_only in self.rules:
            if (is_dir or not dir_only) and pattern.fullmatch(rel):
                result = not negate
        return result


def _ignore_rule(line: str) -> tuple[re.Pattern[str], bool, bool] | None:
    line = line.rstrip(" \t\r") if not line.endswith("\\ ") else line
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate or line.startswith("\\"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    body = _glob(line)
    return re.compile(body if anchored else f"(?:.*/)?{body}"), negate, dir_only


def _glob(pattern: str) -> str:
    """A gitignore glob as a regular expression over a relative path."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            close = pattern.find("]", index + 2)
            if close < 0:
                out.append(re.escape(char))
            else:
                inner = pattern[index + 1 : close]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append(f"[{inner.replace(chr(92), chr(92) * 2)}]")
                index = close
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def read_tree(
    folder: os.PathLike[str] | str,
    *,
    subpackages: bool = True,
    package: str | None = None,
    tree: bool = False,
) -> list[tuple[str, list[tuple[str, KubeObject]]]]:
    """The package tree at ``folder`` as kpt reads it (:func:`package_files`): each file
    (relative to ``folder``) with its documents, each as (its text as read, the item annotated
    by :func:`annotate` with its path, its index in the file and, given ``package``, that
    package folder). ``tree=True``: the tree commands' rules (:func:`package_files`), each file
    opened by ``_treefs.read_text``."""
    base = os.fspath(folder)
    read = _treefs.read_text if tree else read_file_text
    found: list[tuple[str, list[tuple[str, KubeObject]]]] = []
    for rel in package_files(base, subpackages=subpackages, tree=tree):
        documents = []
        objects = read_stream(read(os.path.join(base, rel), rel), rel, unwrap=False)
        for index, obj in enumerate(objects):
            text = obj.to_yaml()
            annotate(obj, rel, index, package)
            documents.append((text, obj))
        found.append((rel, documents))
    return found


def annotate(obj: KubeObject, rel: str, index: int, package: str | None) -> None:
    """kpt's path and index annotations (both spellings) and, given ``package``, the package
    folder, as kpt gives them to an item it reads."""
    text = _storage.of(obj).unparsed_text()
    fresh = text is not None and not re.search(_LOCATION, text)
    annotations = obj.annotations
    annotations[ANN_PATH] = rel
    if not (fresh and _insert_after_path(obj, rel, str(index))):
        annotations[ANN_LEGACY_PATH] = rel
        annotations[ANN_INDEX] = str(index)
        annotations[ANN_LEGACY_INDEX] = str(index)
    if package is not None and not _insert_package_path(obj, package):
        annotations[ANN_PACKAGE_PATH] = package


_LOCATION = r"kubernetes\.io/(?:path|index)"
_PATH_LINE = r"(?m)^( +)internal\.config\.kubernetes\.io/path: "
_PLAIN_PATH = r"/[A-Za-z0-9._/+@-]*"


def _insert_after_path(obj: KubeObject, rel: str, index: str) -> bool:
    """The legacy path and both index annotations written into the text right after the path
    annotation the splicer just added as the last of the item's annotations (none of them was
    there): the lines the splicer would add one by one, in one edit (reading a package sets
    four annotations on every item)."""
    store = _storage.of(obj)
    src = store.unparsed_text()
    if src is None:
        return False
    found = list(re.finditer(_PATH_LINE, src))
    rendered = _storage.render_scalar(index)
    end = src.find("\n", found[0].end()) + 1 if len(found) == 1 else 0
    if not end or rendered is None:
        return False
    pad = found[0].group(1)
    value = src[found[0].end() : end - 1]  # the path as the splicer wrote it
    lines = (
        f"{pad}{ANN_LEGACY_PATH}: {value}\n{pad}{ANN_INDEX}: {rendered}\n"
        f"{pad}{ANN_LEGACY_INDEX}: {rendered}\n"
    )
    store.replace_text(src[:end] + lines + src[end:])
    annotations = obj.annotations
    if (annotations.get(ANN_LEGACY_PATH), annotations.get(ANN_INDEX)) == (rel, index) and (
        annotations.get(ANN_LEGACY_INDEX) == index
    ):
        return True
    store.replace_text(src)
    return False


def _insert_package_path(obj: KubeObject, package: str) -> bool:
    """The package-path annotation written into the item's text next to its path annotation, as
    kpt writes it (single-quoted): an absolute path is no simple scalar for the text splicer, and
    the round trip would parse every item of the tree."""
    store = _storage.of(obj)
    src = store.unparsed_text()
    if src is None or not re.fullmatch(_PLAIN_PATH, package):
        return False
    found = list(re.finditer(_PATH_LINE, src))
    if len(found) != 1:
        return False
    at = found[0]
    line = f"{at.group(1)}{ANN_PACKAGE_PATH}: '{package}'\n"
    store.replace_text(src[: at.start()] + line + src[at.start() :])
    return obj.annotations.get(ANN_PACKAGE_PATH) == package
