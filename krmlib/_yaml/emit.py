"""A small block-style emitter for new objects made of plain values.

Functions that generate many objects (children, sets) would otherwise pay for the round-trip
emitter on each. This one writes kyaml's layout (two-space maps, compact lists) for the values it
is sure about and answers None for anything else; the caller then uses the round trip. A property
test holds its output equal to the round trip's.
"""

from __future__ import annotations

import re
from typing import Any

from krmlib._base.memo import remember

from .scalars import needs_quotes

_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*\Z")
_QUOTABLE = re.compile(r"^[A-Za-z0-9:._+~/ -]*\Z")


class _Unsure(Exception):
    pass


def emit(data: dict[str, Any]) -> str | None:
    """``data`` as a YAML document, or None when the round trip should write it."""
    if not data:
        return None
    out: list[str] = []
    try:
        _map(data, 0, out)
    except _Unsure:
        return None
    return "".join(out)


def emit_item(data: dict[str, Any]) -> str | None:
    """``data`` as an entry of a ResourceList's ``items`` (what ``doc_to_item(emit(data))``
    gives, written directly), or None when unsure."""
    if not data:
        return None
    out: list[str] = []
    try:
        _map(data, 2, out, first_prefix="- ")
    except _Unsure:
        return None
    return "".join(out)


# Keys and strings repeat across thousands of new objects ("apiVersion", "v1", label values):
# what each is written as is remembered, bounded (4096: many times the keys and values that
# repeat, so unique names do not pile up).
_MEMO_LIMIT = 4096
_KEYS: dict[str, str] = {}
_STRINGS: dict[str, str] = {}


def _scalar(value: Any) -> str:
    if type(value) is str:
        text = _STRINGS.get(value)
        if text is None:
            text = remember(_STRINGS, value, _scalar_text(value), _MEMO_LIMIT)
        return text
    return _scalar_text(value)


def _scalar_text(value: Any) -> str:
    if type(value) is str and value:  # the common case first
        if value[0] in _LETTERS and not value.strip(_NAME_CHARS) and not value.isalpha():
            return value  # a name, a path, a type: plain (see _NAME_CHARS)
        if _plain_allowed(value) and (value[0] not in _AMBIGUOUS_FIRST or not needs_quotes(value)):
            return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if value == "":
            return '""'
        if _plain_allowed(value) and (value[0] not in _AMBIGUOUS_FIRST or not needs_quotes(value)):
            return value  # the common case, mostly without the quoting regex
        if needs_quotes(value):
            if _QUOTABLE.match(value):
                return f'"{value}"'
            raise _Unsure
        if _printable(value) and value == value.strip() and _never_plain(value):
            if "'" in value:  # as the round trip does: double quotes around a single quote
                return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            return "'" + value.replace("'", "''") + "'"
    raise _Unsure


# A string of these characters alone that starts with a letter and is not all letters is written
# plain: no character a plain scalar cannot hold where it stands, and no other type reads so (the
# words needs_quotes knows are letters alone; numbers, timestamps, ``.inf`` start otherwise).
# Names, paths and condition types are such strings: no pattern asked
# (tests/test_text_shortcuts.py).
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-"
_LEADING = frozenset("-?:,[]{}#&*!|>'\"%@`")
_NEVER_LEADING = frozenset(",[]{}#&*!|>'\"%@`")


# The first characters of every string :func:`needs_quotes` matches (numbers, booleans, nulls,
# timestamps, ``=``, ``<<``): a string starting otherwise is not asked (tests/test_emit_plain.py
# holds the claim on strings generated from the pattern itself).
_AMBIGUOUS_FIRST = frozenset("-+.0123456789yYnNtTfFoO~=<")


def _printable(value: str) -> bool:
    """Printable ASCII only (U+0020-U+007E): what the emitter writes without escapes."""
    return value.isascii() and value.isprintable()


def _never_plain(value: str) -> bool:
    """Whether no YAML emitter could write ``value`` plain (then it is single-quoted)."""
    return value[0] in _NEVER_LEADING or ": " in value or " #" in value or value.endswith(":")


def _plain_allowed(value: str) -> bool:
    """Whether a block-context plain scalar can hold ``value`` (kept strict: ASCII only)."""
    return (
        value.isascii()
        and value.isprintable()  # (_printable, inlined: every new string is asked)
        and value == value.strip()
        and value[0] not in _LEADING
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
        and not value.startswith(("---", "..."))
    )


def _key(key: Any) -> str:
    """A key not written before (``_map`` looks in ``_KEYS`` first): checked, remembered."""
    if not isinstance(key, str) or not _KEY.match(key) or needs_quotes(key):
        raise _Unsure
    return remember(_KEYS, key, key, _MEMO_LIMIT)


def _map(
    data: dict[str, Any], indent: int, out: list[str], first_prefix: str | None = None
) -> None:
    pad = " " * indent
    lead = pad if first_prefix is None else first_prefix
    keys, strings = _KEYS, _STRINGS
    for key, value in data.items():
        name = key if type(key) is str and key in keys else _key(key)
        kind = type(value)
        if kind is str and value in strings:  # the common case: a string written before
            text = strings[value]
            out.append(f"{lead}{name}: {text}\n" if text else f"{lead}{name}:\n")
        elif kind is dict or isinstance(value, dict):
            if not value:
                out.append(f"{lead}{name}: {{}}\n")
            else:
                out.append(f"{lead}{name}:\n")
                _map(value, indent + 2, out)
        elif kind is list or isinstance(value, list):
            if not value:
                out.append(f"{lead}{name}: []\n")
            else:
                out.append(f"{lead}{name}:\n")
                _seq(value, indent, out)
        else:
            text = _scalar(value)
            out.append(f"{lead}{name}: {text}\n" if text else f"{lead}{name}:\n")
        lead = pad


def _seq(data: list[Any], indent: int, out: list[str]) -> None:
    pad = " " * indent
    for value in data:
        if isinstance(value, dict):
            if not value:
                out.append(f"{pad}- {{}}\n")
            else:  # one string per entry: a list of thousands holds fewer pieces
                entry: list[str] = []
                _map(value, indent + 2, entry, first_prefix=f"{pad}- ")
                out.append("".join(entry))
        elif isinstance(value, list):
            raise _Unsure
        else:
            text = _scalar(value)
            if not text:
                raise _Unsure
            out.append(f"{pad}- {text}\n")


def entry_lines(key: str, value: Any, indent: int) -> str | None:
    """The lines of ``key: value`` at ``indent`` as one text without its last newline (a big
    block stays one string, not a list of lines), or None when unsure."""
    out: list[str] = []
    try:
        _map({key: value}, indent, out)
    except _Unsure:
        return None
    return "".join(out)[:-1]


def seq_lines(values: list[Any], indent: int) -> str | None:
    """The lines of a compact block sequence's entries at ``indent``, as :func:`entry_lines`."""
    out: list[str] = []
    try:
        _seq(values, indent, out)
    except _Unsure:
        return None
    return "".join(out)[:-1] if out else None


def seq_entry(value: dict[str, Any], indent: int) -> str | None:
    """One entry of a compact block sequence at ``indent``, with its last newline (what
    :func:`seq_lines` writes for it), or None when unsure."""
    out: list[str] = []
    try:
        _seq([value], indent, out)
    except _Unsure:
        return None
    return "".join(out)
