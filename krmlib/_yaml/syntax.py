"""The whole-input check: one libyaml event pass over every byte a function is given.

Items are split from the text and parsed only when read (fast), so without this pass a broken
item that no function reads would pass through to kpt untouched. The pass reads the event stream
once, keeps nothing of the values, and refuses:

- anything libyaml refuses (bad indentation, unclosed flow collections, tabs, invalid escapes and
  lone surrogates, unterminated quotes, keys over 1024 characters without ``?``);
- duplicate keys in any mapping, keys over :data:`MAX_KEY` characters;
- nesting deeper than :data:`MAX_DEPTH` (every later reader, ruamel's included, stays far from
  Python's recursion limit);
- a tag that resolves to ``tag:yaml.org,2002:python/...`` however it is spelled (``!!python/``,
  verbatim ``!<...>``, a ``%TAG`` handle, %-escapes); other tags pass;
- integers longer than Python converts (``sys.get_int_max_str_digits``).

On the way it records what the reader needs anyway: each item's apiVersion, kind, name and
namespace (with their types: a number or a date there is an error), the line each item starts
on, the shape of ``functionConfig``. An error names the item (``items[3] (ConfigMap cm)``) and
the line.

The pass runs on libyaml's C API when krmlib's extension is there (``krmlib._yaml.ccheck``, built
from ``sdk/src/_ccheck.c``): the same walk without a Python object per event, about ten times
faster. It answers only the accepted, plain case (no tag, alias, merge key, duplicate, header
field that may not be a string, bound reached): for anything else it is unsure and the Python
walk below runs, which gives every verdict and message. ``KRMLIB_PYTHON_CHECK=1`` (read at
import) turns the extension off; ``tests/test_ccheck.py`` checks the two agree.
"""

from __future__ import annotations

import bisect
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from krmlib._base.errors import InputError, KrmError
from krmlib._base.pkgpath import PATH_ANNOTATIONS, check_relative_path

from . import libyaml as _libyaml

MAX_DEPTH = 100
MAX_KEY = 1024
PYTHON_TAG = "tag:yaml.org,2002:python/"
STR_TAG = "tag:yaml.org,2002:str"
_MAX_DIGITS = sys.get_int_max_str_digits() or 4300

# Plain scalars that the YAML 1.2 core schema (or a YAML 1.1 timestamp) reads as something other
# than a string: not acceptable as apiVersion, kind, name or namespace. Compiled on first use (re
# caches it; the walk below binds it once): not at start-up, where the C check does the walk.
_NOT_STRING = (
    r"^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|true|True|TRUE|false|False|FALSE|~|null|Null|NULL"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?)$"
)
_NULL = frozenset(("", "~", "null", "Null", "NULL"))
_INT = r"^[-+]?[0-9][0-9_]*$"  # compiled on first use (re caches it)
_FIRST_NOT_STRING = frozenset("0123456789+-.~nNtTfF")
_HEAD_KEYS = frozenset(("apiVersion", "kind", "name", "namespace"))
_HEAD_FIELDS = ("apiVersion", "kind", "metadata.name", "metadata.namespace")
_PATH_KEYS = frozenset(PATH_ANNOTATIONS)


class Head:
    """What the pass saw of one item: header strings, where it starts, what was wrong."""

    __slots__ = ("line", "merged", "problem", "start", "strings", "values")

    def __init__(self, line: int, start: int = 0, strings: dict[str, str] | None = None) -> None:
        self.line = line  # 1-based line of the item's first node
        self.start = start  # its offset in the text
        # apiVersion, kind, name, namespace
        self.values: list[str | None] = [None, None, None, None]
        self.strings = strings  # shared by the items: one "v1", one "ConfigMap"
        self.problem: tuple[str, str, int] | None = None  # (field, what it is, line)
        self.merged = False  # an alias, a merge key or a tagged key: read it decoded to be sure

    def header(self) -> tuple[str, str, str, str] | None:
        """(apiVersion, kind, name, namespace) when the first three are strings."""
        api_version, kind, name, namespace = self.values
        if not api_version or not kind or not name or self.problem is not None:
            return None
        return api_version, kind, name, namespace or ""

    def label(self) -> str:
        kind, name = self.values[1], self.values[2]
        if kind and name:
            return f" ({kind} {name})"
        if kind or name:
            return f" ({kind or name})"
        return ""


class Outline:
    """What the pass learned about the input's shape."""

    __slots__ = ("config", "config_line", "docs", "documents", "items", "sections")

    def __init__(self) -> None:
        self.documents = 0
        self.items: list[Head] = []  # the first document's items[*]
        self.docs: list[Head] = []  # each document's root, as an item
        self.config = "absent"  # functionConfig: absent, null, mapping, or what else it is
        self.config_line = 0
        self.sections: list[tuple[int, str]] = []  # (line, key) at the top

    def check(self, is_resource_list: bool) -> list[tuple[str, str, str, str] | None]:
        """The type errors, now that the form is known (a ResourceList/List or a stream);
        then each item's (or document's) header (:meth:`Head.header`), in order."""
        if is_resource_list and self.config not in ("absent", "null", "mapping"):
            raise InputError(
                f"functionConfig must be a mapping, not {self.config}",
                field="functionConfig",
                line=self.config_line,
            )
        heads = self.items if is_resource_list else self.docs
        for index, head in enumerate(heads):
            if head.problem is not None:
                name, what, line = head.problem
                where = f"items[{index}]" if is_resource_list else f"document {index + 1}"
                raise InputError(
                    f"{where}{head.label()}: {name} must be a string, not {what}",
                    field=name,
                    line=line,
                )
        return [head.header() for head in heads]


def _load_fast() -> Callable[..., Any] | None:
    """The extension's walk, or None (not built, not loadable, or turned off)."""
    if os.environ.get(PYTHON_CHECK_ENV, "") == "1":
        return None
    try:
        from .ccheck import outline
    except ImportError:  # a pure install, or libyaml missing at run time
        return None
    return outline


PYTHON_CHECK_ENV = "KRMLIB_PYTHON_CHECK"
_fast = _load_fast()
_NO_PATHS: tuple[str, ...] = ()


def has_c_check() -> bool:
    """Whether the check runs on libyaml's C API (the extension is there and not turned off);
    False: every input is walked in Python."""
    return _fast is not None


def check_syntax(text: str, *, paths: bool = True) -> Outline:
    """Parse every event of ``text``; raise :class:`InputError` on the first problem.

    ``paths=False``: kpt's path annotations are not checked (a file read from disk, whose
    items take the path of the file they are in, or none)."""
    if _fast is not None:
        outline = fast_outline(text, paths=paths)
        if outline is not None:
            return outline
    return python_check(text, paths=paths)


def fast_outline(text: str, *, paths: bool = True) -> Outline | None:
    """What the extension's walk says: the outline of an accepted input, or None (unsure: no
    extension, or an input the Python walk must read)."""
    if _fast is None:
        return None
    answer = _fast(
        text, PATH_ANNOTATIONS if paths else _NO_PATHS, _MAX_DIGITS, MAX_DEPTH, MAX_KEY, {}
    )
    if answer is None:
        return None
    documents, items, docs, config, config_line, sections, path_values = answer
    for value in path_values:
        try:
            check_relative_path(value)
        except KrmError:
            return None  # refused: the Python walk says where
    outline = Outline()
    outline.documents = documents
    outline.config = config
    outline.config_line = config_line
    outline.sections = sections
    for heads, target in ((items, outline.items), (docs, outline.docs)):
        for line, start, api_version, kind, name, namespace, strings in heads:
            head = Head(line, start, strings)
            head.values = [api_version, kind, name, namespace]
            target.append(head)
    return outline


def python_check(text: str, *, paths: bool = True) -> Outline:
    """:func:`check_syntax` by the Python walk over PyYAML's event objects (the reference)."""
    parser = _libyaml.CParser(text)
    outline = Outline()
    try:
        _walk(parser, outline, _PATH_KEYS if paths else frozenset())
    except _libyaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise InputError(
            f"{_where(outline, text, line)}invalid YAML: {problem}", line=line, column=column
        ) from None
    except _libyaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}") from None
    except _Refused as exc:
        raise InputError(
            f"{_where(outline, text, exc.line)}{exc.message}", line=exc.line, column=exc.column
        ) from None
    finally:
        parser.dispose()
    return outline


class _Refused(Exception):
    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.message = message
        self.line = mark.line + 1
        self.column = mark.column + 1


def _where(outline: Outline, text: str, line: int | None) -> str:
    """``items[3] (ConfigMap cm): `` for a line inside an item, else ``""``."""
    if line is None:
        return ""
    if outline.documents == 1 and outline.sections:
        at = bisect.bisect_right([start for start, _ in outline.sections], line) - 1
        section = outline.sections[at][1] if at >= 0 else ""
        if section != "items":
            return f"{section}: " if section else ""
    if outline.items and outline.documents == 1:
        heads, prefix = outline.items, "items"
    elif outline.documents > 1:
        heads, prefix = outline.docs, "document"
    else:
        return ""
    index = bisect.bisect_right([head.line for head in heads], line) - 1
    if index < 0:
        return ""
    head = heads[index]
    label = f"items[{index}]" if prefix == "items" else f"document {index + 1}"
    if head.values[1] is None or head.values[2] is None:
        _guess_head(head, text)
    return f"{label}{head.label()}: "


# For an error message only: compiled on first use (re caches them).
_GUESS_KIND = r"\n(?:- |  )?kind: *['\"]?([A-Za-z0-9]+)"
_GUESS_NAME = r"\n(?:  )?  name: *['\"]?([A-Za-z0-9._-]+)"


def _guess_head(head: Head, text: str) -> None:
    """Kind and name read from the item's first lines, for an error inside a broken item."""
    window = text[max(head.start - 2, 0) : head.start + 4000]
    first = window.find("\n- ", 3)  # the next item
    window = window[: first if first > 0 else len(window)]
    for slot, pattern in ((1, _GUESS_KIND), (2, _GUESS_NAME)):
        if head.values[slot] is None:
            match = re.search(pattern, "\n" + window)
            if match:
                head.values[slot] = match.group(1)


def _refuse_tag(tag: str, mark: Any) -> None:
    if tag.startswith(PYTHON_TAG):
        raise _Refused(f"constructor tag {tag!r} is not allowed", mark)


def _scalar_kind(event: Any) -> str | None:
    """What a scalar is when it is not a string (``a number (5)``), else None."""
    tag = event.tag
    value = event.value
    if tag is not None and tag not in (STR_TAG, "!"):
        return f"a value tagged {tag}"
    if not event.implicit[0]:
        return None
    if value in _NULL:
        return "null"
    if value[:1] in _FIRST_NOT_STRING and re.match(_NOT_STRING, value):
        if value[:1] in "tTfF":
            what = "a boolean"
        elif re.match(_DATE, value):
            what = "a date"
        else:
            what = "a number"
        return f"{what} ({value}; quote it to make it a string)"
    if len(value) <= 3 and value in _BOOL_1_1:
        truth = "true" if value[:1] in "yYoO" and value not in _FALSE_O else "false"
        return (
            f"a boolean in YAML 1.1 ({value}, which kubectl reads as {truth}; quote it to make "
            "it a string)"
        )
    return None


_DATE = r"^[0-9]{4}-"  # compiled on first use (re caches it)
# What YAML 1.1 readers (go-yaml v2 under kubectl, PyYAML) take for booleans beyond true/false.
_BOOL_1_1 = frozenset(
    "y Y yes Yes YES n N no No NO on On ON off Off OFF".split()  # noqa: SIM905
)
_FALSE_O = frozenset({"off", "Off", "OFF"})


def _walk(parser: Any, outline: Outline, path_keys: frozenset[str]) -> None:  # one flat loop
    get = parser.get_event
    libyaml = _libyaml
    scalar, alias = libyaml.ScalarEvent, libyaml.AliasEvent
    map_start, seq_start = libyaml.MappingStartEvent, libyaml.SequenceStartEvent
    map_end, seq_end = libyaml.MappingEndEvent, libyaml.SequenceEndEvent
    doc_start, stream_end = libyaml.DocumentStartEvent, libyaml.StreamEndEvent
    head_keys = _HEAD_KEYS
    clean_paths: set[str] = set()
    first_not_string = _FIRST_NOT_STRING
    not_string = re.compile(_NOT_STRING)
    max_digits = _MAX_DIGITS
    # The collection being read, and a stack of the enclosing ones (as they are to be resumed).
    keys: Any = None  # the keys so far (a mapping) or None (a sequence, or the document level)
    want_key = False  # a mapping expecting a key
    key: str | None = None  # the key whose value is being read
    count = 0  # entries of a sequence so far
    stack: list[tuple[Any, bool, str | None, int]] = []
    doc_head: Head | None = None  # the document's root, read as an item (stream form)
    head: Head | None = None  # the item whose header is being read
    head_level = 1
    documents = 0
    depth = 0  # len(stack), kept as a number (read on every event)
    strings: dict[str, str] = {}
    while True:
        event = get()
        kind = type(event)
        if kind is scalar:
            value = event.value
            if event.tag is not None:
                _refuse_tag(event.tag, event.start_mark)
            if want_key:
                if len(value) > MAX_KEY:
                    raise _Refused(f"key longer than {MAX_KEY} characters", event.start_mark)
                unique = value
                if event.implicit[0] and value[:1] in first_not_string and not_string.match(value):
                    unique = "\0" + value  # 1 and "1" are different keys
                if unique in keys:
                    raise _Refused(f"duplicate key {value!r}", event.start_mark)
                keys.add(unique)
                key = value
                want_key = False
                if (value == "<<" or event.tag is not None) and head is not None:
                    head.merged = True
                if depth == 1 and documents == 1:
                    outline.sections.append((event.start_mark.line + 1, value))
                continue
            if len(value) > max_digits and event.implicit[0] and re.match(_INT, value):
                raise _Refused(f"integer with more than {max_digits} digits", event.start_mark)
            if keys is not None:
                want_key = True
                if depth <= head_level + 1 and key in head_keys and head is not None:
                    _note_head(head, head_level, depth, key, stack, event)
                elif depth == 1 and key == "functionConfig" and documents == 1:
                    _note_config(outline, event)
                elif (
                    key in path_keys
                    and value not in clean_paths  # a hundred items share a file
                    and _in_annotations(head, head_level, depth, stack)
                ):
                    _check_path(value, key, event)
                    clean_paths.add(value)
            else:
                count += 1
                if depth == 2 and documents == 1 and stack[1][2] == "items":
                    outline.items.append(Head(event.start_mark.line + 1, event.start_mark.index))
            continue
        if kind is map_start or kind is seq_start:
            mark = event.start_mark
            if event.tag is not None:
                _refuse_tag(event.tag, mark)
            level = depth
            depth += 1
            if keys is not None:
                if want_key:  # a complex key: allowed, not compared; its value comes next
                    stack.append((keys, False, None, count))
                else:
                    if level <= head_level + 1 and key in head_keys and head is not None:
                        _note_head(head, head_level, level, key, stack, event)
                    elif level == 1 and key == "functionConfig" and documents == 1:
                        _note_config(outline, event)
                    elif key in path_keys and _in_annotations(head, head_level, level, stack):
                        raise _Refused(f"annotation {key} must be a string path", mark)
                    stack.append((keys, True, key, count))
            else:
                count += 1
                stack.append((keys, False, key, count))
                if level == 2 and documents == 1 and stack[1][2] == "items":
                    head = Head(mark.line + 1, mark.index, strings=strings)
                    head_level = 3
                    outline.items.append(head)
            if level >= MAX_DEPTH:
                raise _Refused(f"YAML nesting too deep (more than {MAX_DEPTH} levels)", mark)
            if kind is map_start:
                keys, want_key, key, count = set(), True, None, 0
            else:
                keys, want_key, key, count = None, False, None, 0
            continue
        if kind is map_end or kind is seq_end:
            keys, want_key, key, count = stack.pop()
            depth -= 1
            if depth < head_level:
                head, head_level = doc_head, 1
            continue
        if kind is alias:
            if head is not None:
                head.merged = True
            if keys is not None:
                if want_key:
                    key, want_key = None, False
                else:
                    if key in head_keys and head is not None:
                        _note_head(head, head_level, depth, key, stack, event)
                    elif depth == 1 and key == "functionConfig" and documents == 1:
                        _note_config(outline, event)
                    want_key = True
            else:
                count += 1
            continue
        if kind is doc_start:
            documents += 1
            outline.documents = documents
            doc_head = head = Head(event.end_mark.line + 1, event.end_mark.index)
            head_level = 1
            outline.docs.append(doc_head)
            continue
        if kind is stream_end or event is None:
            break


def _in_annotations(head: Head | None, head_level: int, depth: int, stack: list[Any]) -> bool:
    """The value being read is an entry of the item's own ``metadata.annotations``."""
    return (
        head is not None
        and depth == head_level + 2
        and stack[head_level + 1][2] == "annotations"
        and stack[head_level][2] == "metadata"
    )


def _check_path(value: str, key: str, event: Any) -> None:
    """A path annotation, as decoded (escapes, folded lines): a clean relative path."""
    try:
        check_relative_path(value)
    except KrmError as exc:
        raise _Refused(
            f"annotation {key}: {exc.message}: a function must not make kpt write outside "
            "the package",
            event.start_mark,
        ) from None


def _note_head(
    head: Head, head_level: int, level: int, key: str | None, stack: list[Any], event: Any
) -> None:
    """Record an item's apiVersion/kind (at its top) or metadata.name/namespace."""
    if level == head_level and key in ("apiVersion", "kind"):
        slot = 0 if key == "apiVersion" else 1
    elif (
        level == head_level + 1
        and key in ("name", "namespace")
        and stack[head_level][2] == ("metadata")
    ):
        slot = 2 if key == "name" else 3
    else:
        return
    line = event.start_mark.line + 1
    if type(event) is _libyaml.ScalarEvent:
        what = _scalar_kind(event)
        if what is None:
            value = event.value
            if slot != 2 and head.strings is not None:  # names differ; the rest repeat
                value = head.strings.setdefault(value, value)
            head.values[slot] = value
            return
        if what == "null":
            return  # absent: "has no metadata.name" later, or no namespace
    else:
        what = {
            _libyaml.MappingStartEvent: "a mapping",
            _libyaml.SequenceStartEvent: "a list",
            _libyaml.AliasEvent: "an alias",
        }[type(event)]
    if head.problem is None:
        head.problem = (_HEAD_FIELDS[slot], what, line)


def _note_config(outline: Outline, event: Any) -> None:
    outline.config_line = event.start_mark.line + 1
    if type(event) is _libyaml.MappingStartEvent:
        outline.config = "mapping"
    elif type(event) is _libyaml.ScalarEvent:
        what = _scalar_kind(event)
        outline.config = "null" if what == "null" else "a scalar"
    else:
        outline.config = "a list" if type(event) is _libyaml.SequenceStartEvent else "an alias"
