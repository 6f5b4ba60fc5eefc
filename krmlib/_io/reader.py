"""The reader: the one way from text to items, for stdin, files and package trees.

Reading one ResourceList from stdin goes, in order: ``runner`` (the bytes, decoded) →
``resourcelist`` (:meth:`ResourceList.parse`) → this module: :func:`read_input` checks the size
bounds (``_yaml``), runs the whole-input check over every byte (``_syntax``, or in a forked child
for a big input: ``_background``), splits kpt's layout into items without parsing them (or parses
an irregular text once, ``_rt``), checks each item's apiVersion, kind and name and its path
annotations (``pkgpath``), and hands back a :class:`Parsed`; ``resourcelist`` makes the
``ResourceList`` of it, and the function runs.

A file's text (a config-named file, a file of a package) goes through :func:`.tree.read_stream`: the
same whole-input check, split at its ``---`` lines, the same checks per object. A package tree
goes through :func:`.tree.package_files` (kpt's rules of package content, below) and
:func:`.tree.annotate` (kpt's path and index annotations, and the package folder).

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
import re
from typing import TYPE_CHECKING, Any

from krmlib._base.errors import InputError, KrmError, internal_error
from krmlib._base.pkgpath import check_path_annotations
from krmlib._model import storage as _storage
from krmlib._model.object import (
    KubeObject,
    doc_to_item,
    node_object,
    span_object,
)
from krmlib._yaml import engines as _yaml
from krmlib._yaml import syntax as _syntax

from . import background as _background

if TYPE_CHECKING:
    from krmlib._model.results import Result

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
    ``krmlib._io.package`` pass it; cheap once the verdicts are in."""
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
    from krmlib._model.results import Results

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
    from krmlib._model.results import Results

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
    from krmlib._model.results import Result

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
        head = _storage.of(obj).head()[:3]  # (apiVersion, kind, name): one look-up
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
    name = head[2]
    if _BAD_NAME.search(name) or name in (".", "..") or len(name) > 253:
        raise InputError(
            f"items[{index}] ({head[1]}): metadata.name {name!r} can never be a valid "
            "Kubernetes name (no '/', '%', whitespace or control characters; at most 253)",
            obj=obj,
            field="metadata.name",
        )


_BAD_NAME = re.compile(r"[/%\s\x00-\x1f\x7f]")


# --- files: a stream of documents -----------------------------------------------------------


# --- package trees: kpt's rules of package content ------------------------------------------------


# --- kpt's annotations ----------------------------------------------------------------------------
