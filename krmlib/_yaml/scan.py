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
from sys import intern

from .engines import _resolve as resolve_plain

_VALUE_OK = re.compile(r"^[A-Za-z0-9._/:@+-]*$")


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


# One pass per item: top-level keys (and their values), and metadata's direct name/namespace.
# Anchored on a newline (a literal: much faster than ``^`` with re.M on big items).
_HEAD = {
    True: re.compile(r"\n(?:- |  )(?:([A-Za-z_][\w.-]*):([^\n]*)|  (name|namespace):([^\n]*))"),
    False: re.compile(r"\n(?:([A-Za-z_][\w.-]*):([^\n]*)|  (name|namespace):([^\n]*))"),
}


# A line of the top level or two deeper that starts with no simple key: a quoted, complex or merge
# key, a flow collection, an anchor, an alias, a tag, a directive, a block scalar indicator (a
# JSON document too). Its key could be any of the header's: unsure.
_HEAD_ODD = {
    True: re.compile(r"\n(?:- |  )(?:  )?[\"'?{\[<&*!%@`|>]"),
    False: re.compile(r"\n(?:  )?[\"'?{\[<&*!%@`|>]"),
}


def scan_header(text: str, item_form: bool) -> tuple[str, str, str, str] | None:
    """(apiVersion, kind, name, namespace) of an item's text, or None when unsure.

    Reads kpt's layout only: metadata's children indented by two. Any doubt (a duplicate key, a
    value that is not a simple scalar, metadata in flow style) answers None.
    """
    if "\r" in text or open_scalar(text):
        return None  # CRLF line ends; a scalar over several lines (its lines are no keys)
    if _HEAD_ODD[item_form].search("\n" + text) is not None:
        return None
    top: dict[str, str] = {}
    meta: dict[str, str] = {}
    current = ""
    for match in _HEAD[item_form].finditer("\n" + text):
        key, value, meta_key, meta_value = match.groups()
        if key is not None:
            if key in top:
                return None
            current = key
            top[key] = value
        elif current == "metadata":
            if meta_key in meta:
                return None
            meta[meta_key] = meta_value
    if "apiVersion" not in top or "kind" not in top or "name" not in meta:
        return None
    if top.get("metadata", "").split(" #", 1)[0].strip():
        return None
    api_version = clean_scalar(top["apiVersion"])
    kind = clean_scalar(top["kind"])
    name = clean_scalar(meta["name"])
    namespace = clean_scalar(meta["namespace"]) if "namespace" in meta else ""
    if api_version is None or kind is None or name is None or namespace is None:
        return None
    # Interned: thousands of items share a few apiVersions, kinds and namespaces.
    return intern(api_version), intern(kind), name, intern(namespace)


_MAP_KEY = re.compile(r"([A-Za-z0-9][A-Za-z0-9._/-]*): ?(.*)")


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
        match = _MAP_KEY.fullmatch(body)
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
_META_ODD = {
    base: re.compile(
        r"\n(?! {%d}[A-Za-z0-9_][A-Za-z0-9._/-]*:[ \n]| {%d,}[^ \n]| *#| *\n)"  # noqa: UP031
        % (base + 2, base + 3)
    )
    for base in (0, 2)
}
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


_FIRST_CHILD = {
    base: re.compile(r"(?: *(?:#[^\n]*)?\n)* {%d}[^ #\n]" % (base + 2))  # noqa: UP031
    for base in (0, 2)
}


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


_BLOCK_END = {indent: re.compile(r"\n {0," + str(indent) + r"}(?=[^ \n#])") for indent in (0, 2)}


def _block_end(text: str, start: int, indent: int) -> int:
    """Where the block that starts at ``start`` ends: the next line indented ``indent`` or less
    (a comment line, at any indent, is no end)."""
    match = _BLOCK_END[indent].search(text, start)
    return match.start() if match else len(text)


# --- a value at a path ------------------------------------------------------------------------
#
# ``scan_value`` answers ``obj.get("status")`` or ``obj.get("spec.networkInstance.name")`` from an
# unparsed item's text when the path runs through block maps and ends at a plain or simply quoted
# one-line scalar, or at a block map of such maps and scalars, or at a list of maps of one-line
# scalars in kpt's layout (level with its key, ``- a: x`` then ``  b: y``: a claim's
# ``status.ipClaimStatus``, a DataNetwork's ``spec.pools``): what kpt writes. Anything it does
# not read with certainty (another list, a flow collection other than ``{}``/``[]``, a block or
# multi-line scalar, an anchor, an alias, a tag, an escape, a quoted or complex key, a key the
# YAML core schema reads as a boolean or null, a duplicate key, a tab, non-ASCII text) answers
# UNSURE and the caller parses the item: a certain answer is always the parser's answer
# (tests/test_scan_value.py compares the two on generated YAML and on every testdata document).

UNSURE: object = object()  # parse the item instead
ABSENT: object = object()  # the path is certainly not there
_SCAN_LIMIT = 65536  # bigger items are parsed (a scan that gives up would cost twice)
_MAX_INDENT = 40
# The next line indented at most n (its indent, its text): deeper lines are skipped in C.
_AT_MOST: dict[int, re.Pattern[str]] = {}
_NEXT_LINE = re.compile(r"\n( *)([^ \n][^\n]*)")  # the next line that is not blank
_PLAIN_OK = re.compile(r"[ -~]*")  # printable ASCII: no character a plain scalar treats apart
_PLAIN_FIRST_BAD = frozenset("?:,[]{}#&*!|>'\"%@`")
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))

Level = dict[str, tuple[int, str | None]]


class _Unsure(Exception):
    pass


def scan_value(
    text: str, item_form: bool, keys: tuple[str, ...], kept: dict[object, object] | None = None
) -> object:
    """The plain value at ``keys`` (strings) in an item's text (an ``items`` entry: ``- `` and
    two-space indent; else a document), :data:`ABSENT`, or :data:`UNSURE`. ``kept``: a dict
    the caller keeps for this very text (and drops with it): the levels read go there too."""
    if not keys:
        return UNSURE
    # A caller reads several paths of one item in a row: the checks of its whole text, the text
    # as read and the levels read are kept for the next path (the last text, and in ``kept``).
    asked, form, read, indent, levels = _LAST_SCAN[0]
    if not ((text is asked or text == asked) and form is item_form):
        known = kept.get(_KEPT) if kept is not None else None
        if known is None:
            read, indent = _readable(text, item_form)
            levels = {}
            if read is not None and kept is not None:
                kept[_KEPT] = (indent, levels)  # a readable text: no scalar open in it
        else:
            indent, levels = known  # type: ignore[misc]
            read = "\n  " + text[2:] if item_form else "\n" + text  # as _readable made it
        _LAST_SCAN[0] = (text, item_form, read, indent, levels)
    if read is None:
        return UNSURE
    text = read
    try:
        at = 0
        last = len(keys) - 1
        for depth, key in enumerate(keys):
            level = levels.get((at, indent))
            if level is None:
                level = levels[(at, indent)] = _level(text, at, indent)
            found = level.get(key)
            if found is None:
                return ABSENT
            at, rest = found
            if depth == last:
                return _value(text, at, indent, rest)
            if rest is not None:
                return UNSURE  # a scalar or a flow collection where the path goes on
            child = _child_indent(text, at, indent)
            if child is None:
                return ABSENT  # null: nothing under it
            indent = child
    except _Unsure:
        return UNSURE
    return UNSURE


_KEPT: object = object()  # the key of the levels in a caller's ``kept`` (no path, no section)
_LAST_SCAN: list[tuple[str, bool, str | None, int, dict[tuple[int, int], Level]]] = [
    ("", False, None, 0, {})
]


def _readable(text: str, item_form: bool) -> tuple[str | None, int]:
    """``text`` as the scan reads it (a newline first, an item's ``- `` made its indent) and
    its top level's indent; None when the whole text is one the scan gives way on."""
    if len(text) > _SCAN_LIMIT or "\t" in text or "\r" in text:
        return None, 0
    if open_scalar(text):
        return None, 0  # a scalar or flow collection over several lines: its lines are no keys
    if item_form:
        if not text.startswith("- ") or text[2:3] == " ":
            return None, 0  # the item's keys deeper than kpt's two: parse
        return "\n  " + text[2:], 2
    if text[:1] == " ":
        return None, 0
    return "\n" + text, 0


def _level(text: str, at: int, indent: int) -> Level:
    """The keys of the block map whose entries follow offset ``at`` (a newline) with ``indent``:
    {key: (offset of the end of its line, the rest of the line or None when empty)}."""
    finder = _AT_MOST.get(indent)
    if finder is None:
        if indent > _MAX_INDENT:
            raise _Unsure
        # a line indented at most ``indent``: a key line (its key and the rest of the line),
        # or any other line (a comment, a list entry, a scalar)
        finder = _AT_MOST[indent] = re.compile(
            r"\n( {0,%d})(?:([A-Za-z_][A-Za-z0-9_./-]*):(?![^ \n]) *([^\n]*)|([^ \n][^\n]*))"  # noqa: UP031
            % indent
        )
    found: Level = {}
    open_key = False  # the last key's value is on the following lines (a list may sit level)
    for match in finder.finditer(text, at):
        spaces, key, rest, other = match.groups()
        if other is not None and other[0] == "#":
            continue  # a comment line
        if len(spaces) < indent:
            break  # the map ended
        if key is None:
            if other[0] == "-" and (len(other) == 1 or other[1] == " "):
                if not open_key:
                    raise _Unsure
                continue  # a list written level with its key
            raise _Unsure
        key = intern(key)
        if key in found or (key[0] in "nNtTfF" and resolve_plain(key) is not key):
            raise _Unsure
        if rest and ("#" in rest or rest[-1] == " "):
            rest = _strip_comment(rest)
        if rest and rest[0] in "'\"[{":
            _quoted_or_empty(rest)  # a value that could go on over lines: unsure unless closed
        found[key] = (match.end(), rest or None)
        open_key = not rest
    return found


def _child_indent(text: str, at: int, indent: int) -> int | None:
    """The indent of the block map under the key whose line ends at ``at`` (None: the value is
    null); a list under it is unsure."""
    for match in _NEXT_LINE.finditer(text, at):
        spaces, body = match.groups()
        if body[0] == "#":
            continue
        if body[0] == "-" and (len(body) == 1 or body[1] == " "):
            raise _Unsure  # a list
        return len(spaces) if len(spaces) > indent else None
    return None


def _strip_comment(rest: str) -> str:
    """The value text without a trailing comment (a quoted value is read by the caller)."""
    rest = rest.strip(" ")
    if not rest or rest[0] == "#":
        return ""
    if rest[0] in ("'", '"'):
        return rest
    cut = rest.find(" #")
    return rest[:cut].rstrip(" ") if cut >= 0 else rest


def _quoted_or_empty(rest: str) -> object:
    """A quoted one-line scalar (its string), or ``{}``/``[]``; unsure for anything else."""
    if rest == "{}":
        return {}
    if rest == "[]":
        return []
    quote = rest[0]
    if quote not in ("'", '"'):
        raise _Unsure
    close = rest.find(quote, 1)
    if close < 0:
        raise _Unsure  # goes on over lines
    inner, after = rest[1:close], rest[close + 1 :]
    if quote == '"' and "\\" in inner:
        raise _Unsure  # escapes: the parser reads them
    if after and not (after[0] == " " and after.lstrip(" ")[:1] in ("", "#")):
        raise _Unsure  # '' inside a single-quoted scalar, or text after the quote
    if not _PLAIN_OK.fullmatch(inner):
        raise _Unsure
    return inner


def _value(text: str, at: int, indent: int, rest: str | None) -> object:
    """The value of the key whose line ends at ``at``: a one-line scalar, the map under it, or
    a list of maps of one-line scalars level with it (:func:`_sequence`)."""
    if rest is None:
        if text.startswith("- ", at + 1 + indent) and text.startswith(_PADS[indent], at):
            return _sequence(text, at, indent)
        child = _child_indent(text, at, indent)
        if child is None:
            return None
        # The reading ends before the next line as shallow as the key (comments, blank lines
        # are in): a block read before, in any item, is read alike (shared: values read-only).
        block_end = _BLOCK_AFTER[indent].search(text, at) if indent in _BLOCK_AFTER else None
        block = text[at : block_end.start() if block_end is not None else len(text)]
        if len(block) > _MEMO_BLOCK:
            block = ""
        found = _MAPS.get((block, indent)) if block else None
        if found is None:
            found = {
                key: _value(text, end, child, sub)
                for key, (end, sub) in _level(text, at, child).items()
            }
            if block:
                if len(_MAPS) >= _MEMO_SIZE:
                    _MAPS.clear()
                _MAPS[(block, indent)] = found
        return found
    following = _NEXT_LINE.search(text, at)
    if following is not None and len(following.group(1)) > indent:
        raise _Unsure  # a scalar that goes on over deeper lines (or a comment there)
    return _scalar(rest)


_BLOCK_AFTER = {n: re.compile(r"\n {0,%d}(?=[^ \n#])" % n) for n in range(0, 9, 2)}  # noqa: UP031
_MEMO_BLOCK, _MEMO_SIZE = 600, 4096  # longer blocks are read each time (~2 MB of text at most)
_MAPS: dict[tuple[str, int], dict[str, object]] = {}


def _scalar(rest: str) -> object:
    """A one-line scalar's value (its text without a comment): plain, simply quoted, ``{}``
    or ``[]``; unsure for anything else."""
    first = rest[0]
    if first in "'\"[{":
        return _quoted_or_empty(rest)
    if first in _PLAIN_FIRST_BAD or (first == "-" and rest[1:2] in ("", " ")):
        raise _Unsure
    if ": " in rest or rest[-1] == ":" or not _PLAIN_OK.fullmatch(rest):
        raise _Unsure
    return None if rest in _NULLS else resolve_plain(rest)


_PADS = tuple("\n" + " " * n for n in range(_MAX_INDENT + 1))
# A line of a list entry in kpt's layout: ``- key: value`` (the entry's first line) or ``  key:
# value`` two deeper (its next keys), the key simple, one space or more before the value.
_ENTRY_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_./-]*):(?: +([^\n]*))?")
# The next line indented at most n (a comment line too): where an entry's nested map ends.
_SHALLOW: dict[int, re.Pattern[str]] = {}


def _sequence(text: str, at: int, indent: int) -> list[object]:
    """The block sequence level with the key whose line ends at ``at`` (kpt's layout: ``key:``
    then ``- a: x`` lines at the key's indent), when each entry is a block map of one-line
    scalars or of block maps (read as :func:`_value` reads a map) whose keys sit two deeper than
    the dash: ``- a: x`` then ``  b: y`` or ``  b:`` and a map deeper. Anything else (a scalar
    entry, a list in an entry, a comment or blank line among the entries, another indent, an
    empty value, a duplicate key) is unsure."""
    entries: list[object] = []
    entry: dict[str, object] = {}
    size = len(text)
    pos = at + 1
    while pos < size:
        nl = text.find("\n", pos)
        end = nl if nl >= 0 else size
        spaces = pos
        while spaces < end and text[spaces] == " ":
            spaces += 1
        depth = spaces - pos
        if spaces == end or text[spaces] == "#":
            raise _Unsure  # a blank or comment line among (or after) the entries
        if depth < indent:
            break  # the list ended: an outer map's next key (read by that map's level)
        if depth == indent:
            if not text.startswith("- ", spaces):
                if text[spaces] == "-":
                    raise _Unsure  # an empty entry, or no key
                break  # the map's next key, level with the list (read by the map's level)
            entry = {}
            entries.append(entry)
            body = spaces + 2
        elif depth == indent + 2 and entries:
            body = spaces
        else:
            raise _Unsure  # a nested block, a continuation line, another indent
        match = _ENTRY_KEY.fullmatch(text, body, end)
        if match is None:
            raise _Unsure  # a scalar entry, a quoted, complex or merge key
        key, rest = match.groups()
        key = intern(key)
        if key in entry or (key[0] in "nNtTfF" and resolve_plain(key) is not key):
            raise _Unsure
        if rest is None:  # ``key:`` alone: a block map under it, deeper than the entry's keys
            under = _NEXT_LINE.search(text, end)
            keys_at = indent + 2
            if under is None or len(under.group(1)) <= keys_at or under.group(2)[0] == "#":
                raise _Unsure  # null, a list, a comment: the parser reads them
            entry[key] = _value(text, end, keys_at, None)
            shallow = _SHALLOW.get(keys_at)
            if shallow is None:
                shallow = _SHALLOW[keys_at] = re.compile(r"\n {0,%d}(?=[^ \n])" % keys_at)  # noqa: UP031
            after = shallow.search(text, end)
            pos = after.start() + 1 if after is not None else size
            continue
        if not rest:
            raise _Unsure
        if "#" in rest or rest[-1] == " ":
            rest = _strip_comment(rest)
            if not rest:
                raise _Unsure
        entry[key] = _scalar(rest)
        pos = end + 1
    return entries


def copy_scanned(value: object) -> object:
    """A copy of a value :func:`scan_value` read (plain values only: no checks, no budget)."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) not in _NESTED else copy_scanned(v) for k, v in value.items()}  # type: ignore[attr-defined]
    if kind is list:
        return [v if type(v) not in _NESTED else copy_scanned(v) for v in value]  # type: ignore[attr-defined]
    return value


_NESTED = (dict, list)
