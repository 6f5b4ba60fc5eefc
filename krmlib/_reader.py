"""The reader: the one way from text to items, for stdin, files and package trees.

Reading one ResourceList from stdin goes, in order: ``runner`` (the bytes, decoded) →
``resourcelist`` (:meth:`ResourceList.parse`) → this module: :func:`read_input` checks the size
bounds (``_yaml``), runs the whole-input check over every byte (``_syntax``, or in a forked child
for a big input: ``_background``), splits kpt's layout into items without parsing them (or parses
an irregular text once, ``_rt``), checks each item's apiVersion, kind and name and its path
annotations (``pkgpath``), and hands back a :class:`Parsed`; ``resourcelist`` makes the
``ResourceList`` of it, and the function runs.

A file's text (a config-named file, a file of a package) goes through :func:`read_stream`: the
same whole-input check, split at its ``---`` lines, the same checks per object. A package tree
goes through :func:`package_files` (kpt's rules of package content, below) and
:func:`annotate` (kpt's path and index annotations, and the package folder).

kpt's rules of package content, as kpt 1.0.0-beta.56 applies them (``kpt fn source``, ``kpt fn
render``; kyaml ``kio/pkgio_reader.go``, kpt ``internal/pkg/pkg.go``), each checked against the
binary by ``tests/test_kpt_content.py``:

- files named ``*.yaml``, ``*.yml``, ``*.json`` and ``Kptfile``;
- hidden files and hidden folders are read (``.git`` too: kpt skips nothing by name);
- a symbolic link to a file is read through; a symbolic link to a folder is not followed;
- ``.krmignore`` (gitignore syntax) at the root of a package and at the root of each subpackage,
  each applying to its own package only (a subpackage's folder itself is matched by its parent's
  rules);
- a ``v1 List`` document of a package file stays one item (no unwrapping);
- a subpackage is a folder with a ``Kptfile``; the walk is depth first, each folder's entries
  in name order.

A BOM may start any document of a stream (YAML 1.2, section 5.2): kpt reads one there, libyaml
only at the start of the stream, so the reader drops those marks before anything reads the text.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
from typing import TYPE_CHECKING, Any

from . import _background, _storage, _syntax, _treefs, _yaml
from .errors import InputError, KrmError, internal_error
from .object import (
    ANN_INDEX,
    ANN_LEGACY_INDEX,
    ANN_LEGACY_PATH,
    ANN_PACKAGE_PATH,
    ANN_PATH,
    KubeObject,
    doc_to_item,
    node_object,
    span_object,
)
from .pkgpath import check_path_annotations

if TYPE_CHECKING:
    from .results import Result

RL_API_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")
RL_KIND = "ResourceList"
KPTFILE = "Kptfile"
KRMIGNORE = ".krmignore"


class Parsed:
    """What :func:`read_input` read: the form, the items, the functionConfig, the sections it
    keeps as text, and the whole-input check's pending verdict (checked in a child)."""

    __slots__ = (
        "api_version",
        "extra",
        "form",
        "function_config",
        "input_results",
        "items",
        "pending",
    )

    def __init__(self, form: str, api_version: str = "config.kubernetes.io/v1") -> None:
        self.form = form  # "resourcelist", "list" or "stream"
        self.api_version = api_version
        self.items: list[KubeObject] = []
        self.function_config: KubeObject | None = None
        self.extra: list[tuple[str, str]] = []  # top-level sections not interpreted, as text
        self.input_results = ""  # earlier functions' results, as text
        self.pending: _background.Pending | None = None


class CheckFailed(InputError):
    """The input check (run apart) refused the input; ``results`` are its error results."""

    def __init__(self, results: list[Result]) -> None:
        super().__init__(results[0].message if results else "the input check failed")
        self.results = results


# --- text -------------------------------------------------------------------------------------

_LATER_BOM = r"(?m)^((?:---|\.\.\.)[ \t]*(?:#[^\n]*)?\n)\ufeff|^\ufeff(?=---|\.\.\.|%)"


def without_boms(text: str) -> str:
    """``text`` without the byte order marks that start its documents (the stream's first
    character, a line right after a ``---`` or ``...`` marker, or before a marker)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\ufeff" in text:
        text = re.sub(_LATER_BOM, r"\1", text)
    return text


# --- stdin: a ResourceList, a List or a stream ----------------------------------------------------


def read_input(text: str, *, background: bool = False) -> Parsed:
    """Read a ResourceList, a v1 List or a stream of objects.

    Every byte is checked (``_syntax``) before this returns, or, with ``background`` and a big
    input, in a forked child while the caller goes on (``_background``): ``Parsed.pending`` is
    then its verdict, which the ``ResourceList`` awaits before any write or plugin run."""
    text = without_boms(text)
    aliased = _yaml.check_bounds(text)
    if background and _START.match(text) is None and _background.wanted(len(text)):
        pending = _background.start(lambda: check_apart(text))
        try:
            parsed = _read(text, None, aliased)
        except Exception:
            failure = verdict(pending)
            if failure:
                raise CheckFailed(failure) from None
            return read_input(text)  # the check passed: the error as the checked read says
        parsed.pending = pending
        _OPEN[id(pending)] = (pending, None)
        return parsed
    return _read(text, _syntax.check_syntax(text), aliased)  # every byte, read or not


# The inputs read in this process whose check runs apart (a forked child) and that are still in
# use, with their verdict once known: the gate waits for them before any write or plugin run.
_OPEN: dict[int, tuple[_background.Pending, list[Result] | None]] = {}


def gate() -> None:
    """The one gate before a side effect (a write to disk, a plugin run): wait for the whole
    -input check of every input in use whose check runs apart, and raise :class:`CheckFailed`
    while one of them is refused. ``ResourceList.verify`` and every write of
    ``krmlib.package`` pass it; cheap once the verdicts are in."""
    for pending in list(_OPEN.values()):
        failure = settle(pending[0])
        if failure:
            raise CheckFailed(failure)


def settle(pending: _background.Pending, *, forget: bool = False) -> list[Result]:
    """The verdict of ``pending`` (waiting for it once); ``forget``: the run that read that
    input is over (its ResourceList has its verdict), the gate no longer waits for it."""
    key = id(pending)
    _pending, failure = _OPEN.get(key, (pending, None))
    if failure is None:
        failure = verdict(pending)
        if key in _OPEN:
            _OPEN[key] = (pending, failure)
    if forget:
        _OPEN.pop(key, None)
    return failure


def check_input(text: str) -> list[Result]:
    """What reading ``text`` with every byte checked says: ``[]``, or the error results the
    runner would write (the work of the background check)."""
    from .results import Results

    results = Results()
    try:
        read_input(text)
    except KrmError as exc:
        results.from_error(exc)
    except Exception as exc:
        results.error(internal_error(exc))
    return list(results)


def check_apart(text: str) -> list[Result]:
    """The forked check's work: what :func:`check_input` says of ``text`` for the parent, which
    reads the same text itself (split, item checks) and re-reads it in full when its own read
    fails. So the whole-input pass and the outline's type checks settle it for a single
    ResourceList or List whose items have no alias, merge key or tagged key (the pass checked
    their path annotations); anything else, or a refusal of the type checks (a parse error
    may come first), is :func:`check_input`. Saves the child a second split and item check
    (bench/SPECIALIZER.md)."""
    from .results import Results

    if without_boms(text) != text or _START.match(text) is not None:
        return check_input(text)
    results = Results()
    try:
        outline = _syntax.check_syntax(text)
    except KrmError as exc:  # the first thing check_input's read does: the same error
        results.from_error(exc)
        return list(results)
    except Exception as exc:
        results.error(internal_error(exc))
        return list(results)
    root = outline.docs[0] if outline.documents == 1 else None
    if root is None or root.values[1] not in (RL_KIND, "List"):
        return check_input(text)  # a stream, or no ResourceList: as before
    if any(head.merged for head in outline.items):
        return check_input(text)  # path annotations to read decoded
    try:
        outline.check(True)
    except KrmError:
        return check_input(text)  # refused: which error comes first is the full read's
    return []


def verdict(pending: _background.Pending) -> list[Result]:
    """The check's error results (``[]``: it passed), waiting for the child."""
    from .results import Result

    try:
        results: list[Result] = pending.result()
    except _background.ChildFailed as exc:
        return [Result(message=internal_error(exc))]
    return results


def _read(
    text: str, outline: _syntax.Outline | None, aliased: bool = True, *, paths: bool = True
) -> Parsed:
    """Split the text into items; ``outline``: what the check learned (None: checked apart,
    and the text does not start with a directive or ``---``); ``aliased``: the text may hold
    an alias (:func:`_yaml.check_bounds`); ``paths``: check kpt's path annotations."""
    start = _START.match(text)
    skipped = 0
    if start is not None and outline is not None and outline.documents == 1:
        # "%YAML 1.2" and "---" before the only document: read what follows them.
        skipped = text.count("\n", 0, start.end())
        text = text[start.end() :]
    if not aliased and _yaml.has_token(text, "*"):
        aliased = True  # an alias and no anchor (an undefined alias): the full parse refuses it
        fast = None
    else:
        fast = _split(text, skipped, aliased)
    try:
        parsed = fast if fast is not None else _parse_full(text)
    except InputError as exc:
        raise _in_item(exc, outline, skipped) from None
    items = parsed.items
    if outline is None:
        for index, obj in enumerate(items):
            check_item(obj, index)
        return parsed
    headers = outline.check(parsed.form != "stream")
    heads = outline.items if parsed.form != "stream" else outline.docs
    matched = len(heads) == len(items)
    for index, obj in enumerate(items):
        if matched:
            _storage.of(obj).offer_header(headers[index])
        check_item(obj, index)
    # The pass checked every path annotation as decoded (escapes, folded lines, flow maps);
    # an item with an alias, a merge key or a tagged key is decoded whole to be sure.
    for index, obj in enumerate(items):
        if paths and (not matched or heads[index].merged):
            check_path_annotations(obj)
    return parsed


# Directives (only %YAML: a %TAG handle would change what the items' text means) and the "---"
# before a single document.
_START = re.compile(r"(?:(?:%YAML[ \t]+1\.[0-9]+[ \t]*)?(?:#[^\n]*)?\n)*---[ \t]*\n")
_TOP_KEY = re.compile(r"([A-Za-z][A-Za-z0-9_]*):(.*)")
_SECTION = re.compile(r"\n(?=[^ \n-])")  # before column-0 lines other than list entries
_ODD_DASH = re.compile(r"\n-(?![ \n])")  # "---", "-x" at column 0: not kpt's layout
_ITEM_START = re.compile(r"\n-(?: |\n)")
_CONTENT = re.compile(r"\S")
_FIRST = re.compile(r"[^\n]")


def _split(text: str, skipped: int = 0, aliased: bool = True) -> Parsed | None:
    """The fast path: split kpt's regular ResourceList layout; None if the text is irregular.

    ``skipped``: lines before ``text`` in the input (a directive, ``---``)."""
    if _ODD_DASH.search(text) or (text.startswith("-") and not text.startswith(("- ", "-\n"))):
        return None
    if text and not text.endswith("\n"):
        text += "\n"
    sections: list[tuple[str, str, str]] = []  # (key, inline value, body text; "" for items)
    items_span = (0, 0)  # the items section's body, by offsets (not copied: it is most of the text)
    body_lines: dict[str, int] = {}  # key -> line number of the body's first line
    if not text or text[0] in " \n-":
        return None
    starts = [0] + [match.start() + 1 for match in _SECTION.finditer(text)]
    for index, start in enumerate(starts):
        line_end = text.find("\n", start)
        top = _TOP_KEY.fullmatch(text, start, line_end)
        if top is None:
            return None  # comments at column 0, document markers, flow style: full parse
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        if top.group(1) == "items":
            body_lines["items"] = text.count("\n", 0, line_end) + 2 + skipped
            items_span = (line_end + 1, end)
            sections.append((top.group(1), top.group(2).strip(), ""))
        else:
            sections.append((top.group(1), top.group(2).strip(), text[line_end + 1 : end]))
    keys = [key for key, _, _ in sections]
    if len(set(keys)) != len(keys):
        return None
    header = {key: value for key, value, _ in sections}
    kind = header.get("kind")
    api_version = header.get("apiVersion", "")
    if kind not in (RL_KIND, "List"):
        return None
    if kind == RL_KIND and api_version not in RL_API_VERSIONS:
        return None
    parsed = Parsed("resourcelist" if kind == RL_KIND else "list")
    has_items = False
    for key, value, body in sections:
        if key in ("apiVersion", "kind"):
            if body.strip():
                return None
            continue
        if key == "items":
            has_items = True
            begin, end = items_span
            blank = _CONTENT.search(text, begin, end) is None
            if value == "[]" and blank:
                continue
            if value or not _split_items(text, begin, end, parsed, body_lines["items"], aliased):
                return None
        elif key == "functionConfig":
            if value and value != "{}":
                return None
            if body.strip():
                lines = body.split("\n")
                doc = "\n".join(line[2:] if line.startswith("  ") else line for line in lines)
                parsed.function_config = KubeObject.from_yaml(doc)
        elif key == "results":
            if value == "[]":
                continue
            first = _CONTENT.search(body)
            if value or (first is not None and not body.startswith("- ", first.start())):
                return None  # results in flow style, or a mapping (v1beta1's shape): the parse
            parsed.input_results = body
        else:
            parsed.extra.append((key, f"{key}:{' ' + value if value else ''}\n{body}"))
    if not has_items:
        raise InputError("the ResourceList has no items")
    return parsed


def _split_items(
    text: str, begin: int, end: int, parsed: Parsed, first_line: int, aliased: bool
) -> bool:
    """Cut ``text[begin:end]`` (the items section) at its column-0 ``- `` entries; False if it is
    not that layout."""
    if _CONTENT.search(text, begin, end) is None:
        return True
    first = _FIRST.search(text, begin, end)
    if first is None or text[first.start()] != "-":
        return False  # indented entries or stray content: full parse
    if aliased and _yaml.has_token(text, "*", begin, end):
        return False  # an alias may point into another item: parse the whole list
    starts = [begin] if text.startswith("-", begin) else []
    starts += [match.start() + 1 for match in _ITEM_START.finditer(text, begin, end)]
    starts.append(end)
    line = first_line + text.count("\n", begin, starts[0])
    items = parsed.items
    for start, stop in itertools.pairwise(starts):
        if text.startswith("-\n", start) or (stop - start == 1 and text[start] == "-"):
            return False
        items.append(span_object(text, start, stop, line))  # a span of the input
        line += text.count("\n", start, stop)
    return True


def _parse_full(text: str) -> Parsed:
    """The slow path: any YAML the round-trip parser reads."""
    docs = _yaml.load_rt_all(text)
    if len(docs) == 1 and isinstance(docs[0], dict) and docs[0].get("kind") in (RL_KIND, "List"):
        doc = docs[0]
        kind = doc.get("kind")
        if kind == RL_KIND and doc.get("apiVersion") not in RL_API_VERSIONS:
            raise InputError(
                f"unsupported ResourceList apiVersion {doc.get('apiVersion')!r}",
                field="apiVersion",
            )
        if "items" not in doc:
            raise InputError("the ResourceList has no items", field="items")
        items = doc.get("items") or []
        if not isinstance(items, list):
            raise InputError("items must be a list", field="items")
        parsed = Parsed("resourcelist" if kind == RL_KIND else "list")
        for index, item in enumerate(items):
            parsed.items.append(_node_object(item, f"items[{index}]"))
        config = doc.get("functionConfig")
        if isinstance(config, dict) and config:
            parsed.function_config = node_object(config)
        results = doc.get("results")
        if isinstance(results, list) and results:
            parsed.input_results = "".join(doc_to_item(_yaml.dump_rt(value)) for value in results)
        return parsed
    if not docs:
        raise InputError("empty input: expected a ResourceList, a List or YAML objects")
    if any(isinstance(doc, dict) and doc.get("kind") == RL_KIND for doc in docs):
        raise InputError("a ResourceList must be the only YAML document of the input")
    parsed = Parsed("stream")
    for index, doc in enumerate(docs):
        parsed.items.append(_node_object(doc, f"document {index + 1}"))
    return parsed


def _node_object(node: Any, where: str) -> KubeObject:
    if not isinstance(node, dict):
        raise InputError(f"{where} is not a mapping")
    return node_object(node)


def _in_item(exc: InputError, outline: _syntax.Outline | None, skipped: int) -> InputError:
    """``exc`` (a parse error with its line) naming the item of ``items`` it is in."""
    if exc.line is None or outline is None or not outline.items or exc.message.startswith("items["):
        return exc
    line = exc.line + skipped
    index = sum(1 for head in outline.items if head.line <= line) - 1
    if index < 0:
        return exc
    return InputError(f"items[{index}]: {exc.message}", line=line, column=exc.column)


def check_item(obj: KubeObject, index: int) -> None:
    """Every item needs apiVersion, kind and metadata.name (read cheaply, parsed if unsure)."""
    try:
        head = (obj.api_version, obj.kind, obj.name)
    except InputError as exc:
        line = exc.line
        if line is not None and obj.input_line:
            line += obj.input_line - 1
        column = exc.column
        if column is not None and obj.input_line:
            column += 2  # the item's lines are indented under "- "
        raise InputError(f"items[{index}]: {exc.message}", line=line, column=column) from None
    for value, path in zip(head, ("apiVersion", "kind", "metadata.name"), strict=True):
        if not value:
            raise InputError(f"items[{index}] has no {path}", field=path)
    if _BAD_NAME.search(obj.name) or obj.name in (".", "..") or len(obj.name) > 253:
        raise InputError(
            f"items[{index}] ({obj.kind}): metadata.name {obj.name!r} can never be a valid "
            "Kubernetes name (no '/', '%', whitespace or control characters; at most 253)",
            obj=obj,
            field="metadata.name",
        )


_BAD_NAME = re.compile(r"[/%\s\x00-\x1f\x7f]")


# --- files: a stream of documents -----------------------------------------------------------

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


# --- package trees: kpt's rules of package content ------------------------------------------------


def is_package_file(name: str) -> bool:
    """A file kpt reads as resources: ``*.yaml``, ``*.yml``, ``*.json`` or ``Kptfile``."""
    return name == KPTFILE or name.endswith((".yaml", ".yml", ".json"))


def package_files(
    folder: os.PathLike[str] | str, *, subpackages: bool = True, tree: bool = False
) -> list[str]:
    """The resource files of the package at ``folder`` (relative, ``/``-separated) in kpt's
    order (``*.yaml``, ``*.yml``, ``*.json``, ``Kptfile``): each folder's entries by name,
    depth first, listed by ``krmlib/_treefs.py`` under kpt's rules (hidden files and folders
    included, symbolic links to files read through, links to folders not followed); each package's
    ``.krmignore`` applied to its own files; ``subpackages=False`` leaves out folders with their
    own Kptfile. ``tree=True``: the tree commands' rules instead (``krmlib/_treefs.py``: hidden
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


# --- kpt's annotations ----------------------------------------------------------------------------


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
