"""Cheap reads of an item's text without parsing it: the header (apiVersion, kind, name,
namespace), ``metadata.labels``/``annotations``, and the value at a path of keys.

kpt writes items in one regular block style; these scans read that style and give way (``None``,
or :data:`UNSURE` for a path) on anything else, and the caller then parses the item for real.

Layouts answered: 2-space block maps (an ``items`` entry's keys two deep after ``- ``), plain and
one-line quoted scalars, comments outside the entries read. Handed over: flow maps
(``metadata: {...}``), 3- or 4-space indentation, quoted, complex or merge keys, anchors,
aliases, tags, escapes, scalars or flow collections over several lines (:func:`open_scalar`),
CRLF, tabs, JSON documents, ``---``/``%YAML`` lines. ``tests/test_layout_properties.py`` holds
every certain answer to the full parser on generated layouts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from sys import intern
from typing import Any

from krmlib._base.memo import remember


class _OnUse(dict[Any, re.Pattern[str]]):
    """Patterns compiled on first use (issue 37): a run reads items of one form (a ResourceList's,
    or a file's documents) and each compile costs about 0.5 M instructions at start-up. Looked up
    as a dict (no call per use: re's cache lookup would cost more on a per-item path); the key is
    given to ``source`` for the pattern's text."""

    __slots__ = ("source",)

    def __init__(self, source: Callable[[Any], str]) -> None:
        super().__init__()
        self.source = source

    def __missing__(self, key: Any) -> re.Pattern[str]:
        pattern = self[key] = re.compile(self.source(key))
        return pattern


_VALUE_OK = re.compile(r"^[A-Za-z0-9._/:@+-]*\Z")


def clean_scalar(raw: str) -> str | None:
    """The string a simple scalar stands for, or None if it is not simple."""
    value = raw.strip()
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        if "'" in inner or '"' in inner or "\\" in inner:
            return None
        return inner if _VALUE_OK.match(inner) else None
    if not value or value[0] in "&*!|>[{'\"%@`":
        return None
    return value if _VALUE_OK.match(value) else None


# One pass per item: top-level keys (and their values), metadata's direct name/namespace, and a
# line of the top level or two deeper that starts with no simple key (the last group: a quoted,
# complex or merge key, a flow collection, an anchor, an alias, a tag, a directive, a block scalar
# indicator, a JSON document too; its key could be any of the header's: unsure). Anchored on a
# newline (a literal: much faster than ``^`` with re.M on big items). Each line is tried once and
# matches at most one branch (the first character after the indent tells them apart), so this is
# the two searches it replaces, in one pass (``tests/test_scan_passes.py``). One per item form,
# compiled on first use (a run reads one form).
_HEAD = _OnUse(
    {
        True: r"\n(?:- |  )(?:([A-Za-z_][\w.-]*):([^\n]*)|  (name|namespace):([^\n]*)"
        r"|(?:  )?([\"'?{\[<&*!%@`|>]))",
        False: r"\n(?:([A-Za-z_][\w.-]*):([^\n]*)|  (name|namespace):([^\n]*)"
        r"|(?:  )?([\"'?{\[<&*!%@`|>]))",
    }.__getitem__
)


def scan_header(text: str, item_form: bool) -> tuple[str, str, str, str] | None:
    """(apiVersion, kind, name, namespace) of an item's text, or None when unsure.

    Reads kpt's layout only: metadata's children indented by two. Any doubt (a duplicate key, a
    value that is not a simple scalar, metadata in flow style) answers None.
    """
    if "\r" in text or open_scalar(text):
        return None  # CRLF line ends; a scalar over several lines (its lines are no keys)
    top: dict[str, str] = {}
    meta: dict[str, str] = {}
    current = ""
    for key, value, meta_key, meta_value, odd in _HEAD[item_form].findall("\n" + text):
        if key:
            if key in top:
                return None
            current = key
            top[key] = value
        elif odd:
            return None
        elif current == "metadata":
            if meta_key in meta:
                return None
            meta[meta_key] = meta_value
    if "apiVersion" not in top or "kind" not in top or "name" not in meta:
        return None
    if top.get("metadata", "").split(" #", 1)[0].strip():
        return None
    api_version = _clean_kept(top["apiVersion"])
    kind = _clean_kept(top["kind"])
    name = clean_scalar(meta["name"])
    namespace = _clean_kept(meta["namespace"]) if "namespace" in meta else ""
    if api_version is None or kind is None or name is None or namespace is None:
        return None
    return api_version, kind, name, namespace


# The values of apiVersion, kind and namespace as read (``" v1"``) -> clean_scalar's answer,
# interned: thousands of items share a few of them (a dict look-up instead of the checks).
# Bounded: 1024 holds the few a package has; per-item values (rare here) do not pile up.
_CLEAN: dict[str, str | None] = {}
_CLEAN_LIMIT = 1024


def _clean_kept(raw: str) -> str | None:
    """:func:`clean_scalar` of ``raw``, interned, kept for the next item."""
    try:
        return _CLEAN[raw]
    except KeyError:
        pass
    value = clean_scalar(raw)
    if value is not None:
        value = intern(value)
    if len(raw) <= 256:
        remember(_CLEAN, raw, value, _CLEAN_LIMIT)
    return value


# A map's entry, read by the loop when the map's lines are not all simple (rare): compiled then.
_MAP_KEY = _OnUse(lambda _: r"([A-Za-z0-9][A-Za-z0-9._/-]*): ?(.*)")


def scan_metadata_map(text: str, item_form: bool, section: str) -> dict[str, str] | None:
    """``metadata.<section>`` (labels, annotations) of an item's text as strings; None if unsure.

    Reads kpt's layout only: ``metadata:`` alone on its line, its entries simple keys two deeper
    (``absent`` is certain only then), the map's entries one per line, two deeper than
    ``section:``, with simple scalar values. Anything else (flow metadata or a flow map, 3- or
    4-space indentation, quoted or merge keys, a value that is not a plain string, comments or
    blank lines among the entries, continuation lines, CRLF) answers None and the caller parses.
    """
    if "\r" in text or "\t" in text:
        return None  # CRLF line ends, tabs: the parser reads them
    base = 2 if item_form else 0
    if text[base : base + 1] == " ":
        return None  # the item's keys are deeper than kpt's two (4-space, 3-space layouts)
    meta = text.find(f"\n{' ' * base}metadata:")
    if meta < 0:
        return None
    end = _block_end(text, meta + 1, base)
    if _odd_metadata(text, meta + base + 10, end, base) or open_scalar(text):
        return None
    head = f"\n{' ' * (base + 2)}{section}:"
    at = text.find(head, meta, end)
    if at < 0:
        return {}  # metadata's every entry is a simple key two deeper: the section is absent
    line_end = text.find("\n", at + 1)
    rest = text[at + len(head) : line_end if line_end >= 0 else len(text)]
    if rest.strip():
        return None  # flow map or comment on the key line
    entry_indent = " " * (base + 4)
    pos = line_end + 1 if line_end >= 0 else len(text)
    fast = _simple_entries(text, pos, base)
    if fast is not None:
        return fast
    out: dict[str, str] = {}
    map_key = _MAP_KEY[None]
    while pos < len(text):
        nl = text.find("\n", pos)
        line = text[pos : nl if nl >= 0 else len(text)]
        pos = nl + 1 if nl >= 0 else len(text)
        if not line.strip() or line.lstrip(" ").startswith("#"):
            return None  # blank lines, comments among the entries: parse
        if not line.startswith(entry_indent):
            if len(line) - len(line.lstrip(" ")) <= base + 2:
                break
            return None
        body = line[len(entry_indent) :]
        if body.startswith((" ", "#")):
            return None
        match = map_key.fullmatch(body)
        if match is None or match.group(1) in out:
            return None
        raw = match.group(2)
        value = clean_scalar(raw) if raw else None
        if value is None or (raw[0] not in "'\"" and _NOT_STRING.match(value)):
            return None
        # Interned: the same keys and values (paths, indexes) repeat across thousands of items.
        out[intern(match.group(1))] = intern(value)
    return out


# The common case of the loop above, in two C passes: the map's lines all ``key: value`` with
# one space, the value plain or simply quoted (the characters :func:`clean_scalar` keeps, a plain
# one not starting with ``@``), up to a line that ends the map.
_VALUE_CHARS = "[A-Za-z0-9._/:@+-]"  # :data:`_VALUE_OK`'s
_SIMPLE_VALUE = f"""(?:'{_VALUE_CHARS}*'|"{_VALUE_CHARS}*"|[A-Za-z0-9._/:+-]{_VALUE_CHARS}*)"""
# Compiled on first use (the start-up of a function that never reads a map pays nothing):
# base -> (the map's simple lines, one pair of them, what may follow them).
_SIMPLE: dict[int, tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]] = {}


def _simple_patterns(base: int) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The map's lines (``base + 4`` deep), a ``key: value`` pair of them, and what may follow
    them for the map to end there: a line of content (no comment) at most two deeper than
    metadata's keys."""
    found = _SIMPLE.get(base)
    if found is None:
        indent = base + 4
        found = _SIMPLE[base] = (
            re.compile(r"(?: {%d}[A-Za-z0-9][A-Za-z0-9._/-]*: %s\n)*" % (indent, _SIMPLE_VALUE)),  # noqa: UP031
            re.compile(r"\n {%d}([A-Za-z0-9][A-Za-z0-9._/-]*): ([^\n]*)" % indent),  # noqa: UP031
            re.compile(r" {0,%d}[^ #\n]" % (base + 2)),  # noqa: UP031
        )
    return found


def _simple_entries(text: str, pos: int, base: int) -> dict[str, str] | None:
    """:func:`scan_metadata_map`'s answer from ``pos`` (the map's first line) when every line
    is simple (see :data:`_SIMPLE_VALUE`); None: ask the loop."""
    simple_lines, pair, map_end = _simple_patterns(base)
    lines = simple_lines.match(text, pos)
    assert lines is not None  # the repeat matches the empty string
    end = lines.end()
    if end < len(text) and map_end.match(text, end) is None:
        return None
    out: dict[str, str] = {}
    for key, raw in pair.findall(text, pos - 1, end):
        if key in out:
            return None
        if raw[0] in "'\"":
            value = raw[1:-1]
        elif _NOT_STRING.match(raw):
            return None
        else:
            value = raw
        out[intern(key)] = intern(value)
    return out


_NOT_STRING = re.compile(
    r"^(?:[-+]?[0-9][0-9._]*(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.[0-9]+"
    r"|true|True|TRUE|false|False|FALSE|null|Null|NULL|~)$"
)


# metadata's block in kpt's layout: ``metadata:`` alone on its line (a comment at most), then
# its entries, each a simple ``key:`` exactly two deeper (or lines deeper still: their values,
# or comments). A flow map (``metadata: {...}``), an anchor or alias, a tag, entries deeper or
# shallower than two (4-space or 3-space layouts), a quoted, complex or merge (``<<``) key: odd.
_META_LINE_OK = re.compile(r"[ ]*(?:#[^\n]*)?\n")
_META_ODD = _OnUse(
    lambda base: (
        r"\n(?! {%d}[A-Za-z0-9_][A-Za-z0-9._/-]*:[ \n]| {%d,}[^ \n]| *#| *\n)"  # noqa: UP031
        % (base + 2, base + 3)
    )
)
# A quoted scalar or a flow collection opened after a space ("key: ", "- ", an indent) and not
# closed on its line: it goes on over the next lines, which then are no keys, whatever their
# indent (libyaml reads a quoted scalar's next line at its key's indent). One at column 0 (a
# quoted top-level key, a JSON document) counts as open too (:func:`open_scalar`).
# Each quoted form is written as an unrolled loop (a run of plain characters, then an escape or
# a doubled quote and another run): ``(?:a|b)*`` keeps one backtracking entry per character, and
# a 100 MB quoted scalar took 12 GB (tests/test_scan_bounds.py). The runs are possessive
# (``*+``): what follows a run can never start with a character of it, so giving characters
# back never matches where the run did not, and a closed ``'0'`` fails at once (about 5 to 2 us
# an item of kpt's layout).
OPEN_SCALAR = re.compile(
    r""" (?:"[^"\\\n]*+(?:\\[^\n][^"\\\n]*+)*+\\?\n"""
    r"""|'[^'\n]*+(?:''[^'\n]*+)*+\n|[\[{][^\n]*(?<![\]}])\n)"""
)
_COLUMN_0_OPEN = ("'", '"', "[", "{")
_LINE_0_OPEN = re.compile(r"""\n["'\[{]""")  # one C search for the four: no f-strings, no genexpr
_LAST_OPEN: list[tuple[str, bool]] = [("", False)]  # the last text asked about, and its answer


def open_scalar(text: str) -> bool:
    """Whether a quoted scalar or flow collection in ``text`` goes on over lines (see
    :data:`OPEN_SCALAR`). The scans and the splice ask it of the same item's text several
    times in a row (labels, annotations, a value, a label set): the last answer is kept."""
    last, answer = _LAST_OPEN[0]
    if text is last or text == last:
        return answer
    answer = (
        text[:1] in _COLUMN_0_OPEN
        or _LINE_0_OPEN.search(text) is not None
        or OPEN_SCALAR.search(text) is not None
    )
    _LAST_OPEN[0] = (text, answer)
    return answer


def known_closed(text: str) -> None:
    """A scan answered from ``text``, so :func:`open_scalar` found no open scalar in it: the
    next question about it (the splice's, after other items were scanned) is answered so."""
    _LAST_OPEN[0] = (text, False)


def closed_edit(old: str, new: str) -> None:
    """``new`` is ``old`` with lines added or changed that hold no open scalar (a splice's
    simple lines): what :func:`open_scalar` knew of ``old`` holds for ``new``."""
    last, answer = _LAST_OPEN[0]
    if not answer and (old is last or old == last):
        _LAST_OPEN[0] = (new, False)


_FIRST_CHILD = _OnUse(lambda base: r"(?: *(?:#[^\n]*)?\n)* {%d}[^ #\n]" % (base + 2))  # noqa: UP031


def _odd_metadata(text: str, key_end: int, end: int, base: int) -> bool:
    """Whether metadata's block (its key's colon ends at ``key_end``, the block at ``end``) is
    other than kpt's layout: then its labels and annotations are parsed, never guessed."""
    line = _META_LINE_OK.match(text, key_end)
    if line is None:
        return True  # a flow map, an anchor, an alias, a tag or a scalar after "metadata:"
    first = _FIRST_CHILD[base].match(text, line.end())
    if first is None or first.end() > end:
        return True  # the entries are not two deeper than the key (or there are none)
    return _META_ODD[base].search(text, line.end() - 1, end) is not None


_BLOCK_END = _OnUse(lambda indent: r"\n {0," + str(indent) + r"}(?=[^ \n#])")


def _block_end(text: str, start: int, indent: int) -> int:
    """Where the block that starts at ``start`` ends: the next line indented ``indent`` or less
    (a comment line, at any indent, is no end)."""
    match = _BLOCK_END[indent].search(text, start)
    return match.start() if match else len(text)
