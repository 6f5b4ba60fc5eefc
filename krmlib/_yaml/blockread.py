"""An item's plain values read straight from its text, when the text is in kpt's block layout.

Reading a whole object (``KubeObject.to_dict``) meant the full parse: libyaml's events as Python
objects, then a copy. :func:`read_item` reads the one regular block style kpt writes an ``items``
entry in, line by line, and gives way (``None``) on anything else; the storage then parses the
item for real (:meth:`krmlib._model.storage.Storage.plain_copy`). First written for the
preparer's package validation (issue 37), where it took the parse of 4,998 ConfigMaps and
Services out of the run; it lives here so that every reader of a whole object has it.

Read: 2-space (or any consistent) block maps and sequences, compact or indented, simple keys,
one-line plain, single- and double-quoted scalars, ``|``/``|-``/``|+`` literal blocks without
blank lines, ``{}`` and ``[]``, comment lines and line comments. Given way: flow collections,
quoted, complex or merge keys, anchors, aliases, tags, escapes, folded blocks, scalars over
several lines, tabs, CR, document markers, any character outside printable ASCII, and any plain
scalar that looks like a number (other than a decimal integer) or is ``~``; ``true``/``false``
and ``null`` in their three spellings are read as the YAML 1.2 core schema reads them.
``tests/test_blockread.py`` holds every answer to the full parse on generated layouts (the layout
oracle's), hand-made edge cases and every item of the repository's packages.
"""

from __future__ import annotations

import re
from sys import intern
from typing import Any

from krmlib._base.memo import remember

_LINE = re.compile(r"( *)(- )?(?:([A-Za-z_][A-Za-z0-9_./-]*):(?= |$))?(.*)")
_SINGLE = re.compile(r"'((?:[^']|'')*)'(?: *| +#.*)")
_DOUBLE = re.compile(r'"([^"\\]*)"(?: *| +#.*)')
_LITERAL = re.compile(r"\|([-+]?)(?: *| +#.*)")
_PRINTABLE = re.compile(r"[\x20-\x7e]*")
_PLAIN = re.compile(r"[A-Za-z0-9_/.+-][\x20-\x7e]*")
_DECIMAL = re.compile(r"[0-9]+")
# every plain scalar the core schema reads as a number (and more: "1.2e", ".x"): given way; a
# number has one dot at most, so an address (10.0.0.1) is a string
_NUMBER_LIKE = re.compile(r"[-+]?[0-9.][0-9A-Za-z+-]*(?:\.[0-9A-Za-z+-]*)?")
# ... and is none of these words (a key among them: given way)
_WORDS: dict[str, Any] = {"null": None, "Null": None, "NULL": None}
_WORDS.update({"true": True, "True": True, "TRUE": True})
_WORDS.update({"false": False, "False": False, "FALSE": False})
_NOTHING: Any = object()


class _GiveWay(Exception):
    """Not the layout read here: the caller parses."""


def read_item(text: str) -> dict[str, Any] | None:
    """The plain values of an ``items`` entry's text (``- `` and its indented lines), equal to
    what the full parse gives; None when the text is not in the layout read here."""
    if "\r" in text or "\t" in text:
        return None
    try:
        rows = _rows(text)
        if not rows:
            return None
        end, value = _node(rows, 0, rows[0][0])
    except _GiveWay:
        return None
    if end != len(rows) or rows[0][0] != 0 or type(value) is not list or len(value) != 1:
        return None
    item = value[0]
    return item if type(item) is dict else None


Row = tuple[int, bool, "str | None", Any]  # (column, "- ", key, value or _NOTHING)


def _rows(text: str) -> list[Row]:
    """The text's lines as rows; a ``- key: value`` line is two rows (the entry, then its first
    key two columns deeper)."""
    out: list[Row] = []
    lines = text.split("\n")
    count = len(lines)
    at = 0
    match = _LINE.fullmatch
    while at < count:
        line = lines[at]
        at += 1
        found = match(line)
        if found is None:
            raise _GiveWay
        indent, dash, key, rest = found.groups()
        column = len(indent)
        if dash is not None:
            out.append((column, True, None, _NOTHING))
            column += 2
            if key is None:
                if not rest or rest[0] == "#":
                    continue  # the entry's content is on the next lines
                if rest[0] in " |>":
                    raise _GiveWay
                out[-1] = (out[-1][0], True, None, _scalar(rest))
                continue
        elif key is None:
            if not rest or rest[0] == "#":
                continue  # a blank or comment line
            raise _GiveWay  # a continuation line, a flow or quoted key, a marker
        value = rest.lstrip(" ")
        if not value or value[0] == "#":
            out.append((column, False, key, _NOTHING))
        elif value[0] == "|":
            literal, at = _literal(value, lines, at, column)
            out.append((column, False, key, literal))
        else:
            out.append((column, False, key, _scalar(value)))
    return out


def _literal(header: str, lines: list[str], at: int, column: int) -> tuple[str, int]:
    """A literal block's string (its header ``|``, ``|-`` or ``|+``; its lines from ``at``,
    deeper than ``column``) and the line after it."""
    found = _LITERAL.fullmatch(header)
    if found is None:
        raise _GiveWay  # an indentation indicator
    body: list[str] = []
    indent = -1
    count = len(lines)
    while at < count:
        line = lines[at]
        content = line.lstrip(" ")
        if not content:
            if at == count - 1 and not line:
                break  # the text's last line break
            raise _GiveWay  # a blank line in or after the block: chomping decides
        depth = len(line) - len(content)
        if depth <= column:
            break
        if indent < 0:
            indent = depth
        elif depth < indent:
            raise _GiveWay
        if not _PRINTABLE.fullmatch(line):
            raise _GiveWay
        body.append(line[indent:])
        at += 1
    if not body:
        raise _GiveWay
    text = "\n".join(body)
    if found.group(1) == "-" or at == count:
        return text, at  # stripped, or the text ends without a line break after it
    return text + "\n", at


_KNOWN: dict[str, Any] = {}  # scalars read before and their values (not {} or []): they repeat
_KNOWN_MAX = 4096  # bounded: the values items share fit; unique names do not pile up


def _scalar(value: str) -> Any:
    """A one-line scalar (not empty, no leading space, not a comment)."""
    known = _KNOWN.get(value, _NOTHING)
    if known is not _NOTHING:
        return known
    read = _read_scalar(value)
    if type(read) is not dict and type(read) is not list:
        remember(_KNOWN, value, read, _KNOWN_MAX)
    return read


def _read_scalar(value: str) -> Any:
    first = value[0]
    if first == "'":
        found = _SINGLE.fullmatch(value)
        if found is None or not _PRINTABLE.fullmatch(found.group(1)):
            raise _GiveWay
        return found.group(1).replace("''", "'")
    if first == '"':
        found = _DOUBLE.fullmatch(value)
        if found is None or not _PRINTABLE.fullmatch(found.group(1)):
            raise _GiveWay
        return found.group(1)
    if first in "{[":
        cut = value.find(" #")
        flow = (value[:cut] if cut >= 0 else value).rstrip(" ")
        if flow == "{}":
            return {}
        if flow == "[]":
            return []
        raise _GiveWay
    cut = value.find(" #")
    if cut >= 0:
        value = value[:cut]
    value = value.rstrip(" ")
    if ": " in value or value.endswith(":"):
        raise _GiveWay  # not valid in a block map: the parse words it
    if _DECIMAL.fullmatch(value):
        if len(value) > 18:
            raise _GiveWay
        return int(value)
    if not _PLAIN.fullmatch(value) or _NUMBER_LIKE.fullmatch(value) or value[:2] in ("-", "- "):
        raise _GiveWay  # an indicator, not ASCII, a number, a sequence's entry
    return _WORDS.get(value, value)


def _node(rows: list[Row], at: int, column: int) -> tuple[int, Any]:
    if rows[at][1]:
        return _sequence(rows, at, column)
    return _mapping(rows, at, column)


def _mapping(rows: list[Row], at: int, column: int) -> tuple[int, dict[str, Any]]:
    out: dict[str, Any] = {}
    count = len(rows)
    while at < count:
        row_column, dash, key, value = rows[at]
        if row_column != column:
            if row_column > column:
                raise _GiveWay
            break
        if dash or key is None or key in out or key in _WORDS:
            raise _GiveWay  # an entry in a map; a duplicate key; a key that is no string
        at += 1
        if value is _NOTHING:
            if at < count and (rows[at][0] > column or (rows[at][0] == column and rows[at][1])):
                at, value = _node(rows, at, rows[at][0])
            else:
                value = None
        out[intern(key)] = value  # one string for a key every item repeats (memory)
    return at, out


def _sequence(rows: list[Row], at: int, column: int) -> tuple[int, list[Any]]:
    out: list[Any] = []
    count = len(rows)
    while at < count:
        row_column, dash, _, value = rows[at]
        if row_column != column or not dash:
            if row_column > column:
                raise _GiveWay
            break
        at += 1
        if value is _NOTHING:
            if at < count and rows[at][0] > column:
                at, value = _node(rows, at, rows[at][0])
            else:
                value = None
        out.append(value)
    return at, out


__all__ = ["read_item"]
