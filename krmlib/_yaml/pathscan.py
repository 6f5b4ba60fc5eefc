"""The value at a path of keys read from an unparsed item's text (:func:`scan_value`): the third
of :mod:`krmlib._yaml.scan`'s cheap reads, apart because it is the largest. The same rule holds:
a certain answer is the parser's, anything else is :data:`UNSURE`.
"""

from __future__ import annotations

import re
from sys import intern

from .engines import _resolve as resolve_plain
from .scan import open_scalar

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
        block_end = None
        if indent in _BLOCK_INDENTS:
            block_after = _BLOCK_AFTER.get(indent)
            if block_after is None:
                block_after = _BLOCK_AFTER[indent] = re.compile(r"\n {0,%d}(?=[^ \n#])" % indent)  # noqa: UP031
            block_end = block_after.search(text, at)
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


# The next line as shallow as a key at indent n, for n in _BLOCK_INDENTS: compiled on first use
# (a run meets one or two of the five; each compile costs about 0.5 M instructions, issue 37).
_BLOCK_INDENTS = frozenset(range(0, 9, 2))
_BLOCK_AFTER: dict[int, re.Pattern[str]] = {}
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
