"""Edit an item's text in place for the common case: set a string scalar in a block mapping.

A function that labels every item would otherwise re-serialise every item through the round trip.
kpt writes items in one regular block style, so setting ``metadata.labels.x`` is finding the right
lines and splicing one or two new ones in. Anything unusual (flow style, anchors or aliases on the
path, tags, block scalars, comments where the new line would go, a map whose entries are deeper
than the splice would write them: 3- or 4-space layouts, quoted keys, scalars over several lines,
CRLF) returns None and the caller takes the round trip, which also de-anchors what it edits;
tests/test_layout_properties.py holds the splice to the full parser on generated layouts.
"""

from __future__ import annotations

import re
from typing import Any

from krmlib._base.memo import remember

from .emit import entry_lines, seq_lines
from .scalars import needs_quotes
from .scan import closed_edit, open_scalar

_SIMPLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*\Z")
_KEY_LINE = re.compile(r"^( *)([A-Za-z0-9][A-Za-z0-9._/-]*):(?: (.*))?$")


def render_scalar(value: str) -> str | None:
    """The text the round trip writes for a new string value, or None if not obvious."""
    if value == "":
        return '""'
    if not _SIMPLE.match(value):
        return None
    return f'"{value}"' if needs_quotes(value) else value


def splice_set(
    text: str, item_form: bool, keys: tuple[str, ...], value: Any, current: Any = None
) -> str | None:
    """``text`` with ``keys`` set to ``value``; None when the edit is not simple.

    Handled: a string at a map path (replaced or added), a new key with any value the small
    emitter writes, and a list that only grows (``current`` is its old value: the new entries are
    appended after the old ones, which keep their text).
    """
    if item_form and len(keys) == 3 and keys[0] == "metadata" and isinstance(value, str):
        fast = _set_metadata_entry(text, keys[1], keys[2], value)
        if fast is not None:
            closed_edit(text, fast)
            return fast
    return _splice_lines(text, item_form, keys, value, current)


def _splice_lines(
    text: str, item_form: bool, keys: tuple[str, ...], value: Any, current: Any
) -> str | None:
    """The general path of :func:`splice_set`, on the item's lines."""
    rendered = render_scalar(value) if isinstance(value, str) else None
    if isinstance(value, str) and rendered is None:
        return None
    read = _read_view(text, item_form, keys)
    if read is None:
        return None
    view, trailing_newline = read
    walked = _walk_keys(view, keys, 2 if item_form else 0)
    if walked is None:
        return None
    found, line_no, indent, end, rest, depth = walked
    if found:
        if rendered is None:
            if not _append_entries(view, line_no, end, indent, rest, value, current):
                return None
            return _join(view, item_form, trailing_newline)
        if _has_children(view, line_no + 1, end, indent):
            return None
        new_value = _replace_value(rest, rendered)
        if new_value is None:
            return None
        view[line_no] = f"{' ' * indent}{keys[-1]}: {new_value}"
        return _join(view, item_form, trailing_newline)
    # The key is missing: insert it (and the rest of the path) after the block's last child,
    # above any comments or blank lines that end the block: they stand above the next key
    # and stay there (issue 15.9).
    insert_at = line_no
    new_lines = []
    missing_keys = keys[depth:]
    for offset, missing in enumerate(missing_keys[:-1]):
        new_lines.append(f"{' ' * (indent + 2 * offset)}{missing}:")
    last_indent = indent + 2 * (len(missing_keys) - 1)
    if rendered is not None:
        new_lines.append(f"{' ' * last_indent}{missing_keys[-1]}: {rendered}")
    else:
        block = entry_lines(missing_keys[-1], value, last_indent)
        if block is None:
            return None
        new_lines.append(block)  # its lines as one element: joined with "\n" alike
    view[insert_at:insert_at] = new_lines
    if item_form and insert_at == 0:
        return None
    return _join(view, item_form, trailing_newline)


def _read_view(text: str, item_form: bool, keys: tuple[str, ...]) -> tuple[list[str], bool] | None:
    """The lines the general path reads (an item's first line as the others: two spaces deep)
    and whether the text ends with a newline; None when the keys or the text are not simple."""
    if not keys or any(not _SIMPLE.match(k) or needs_quotes(k) for k in keys):
        return None
    lines = text.split("\n")
    trailing_newline = bool(lines) and lines[-1] == ""
    if trailing_newline:
        lines.pop()
    if not lines:
        return None
    first = lines[0]
    if item_form:
        if not first.startswith("- "):
            return None
        view = ["  " + first[2:], *lines[1:]]
    else:
        view = lines
    if "\t" in text and any("\t" in line[: len(line) - len(line.lstrip())] for line in view):
        return None
    if "\r" in text or open_scalar(text):
        return None  # CRLF line ends; a scalar over several lines (its lines are no keys)
    return view, trailing_newline


def _walk_keys(
    view: list[str], keys: tuple[str, ...], base: int
) -> tuple[bool, int, int, int, str, int] | None:
    """Follow ``keys`` down the block maps of ``view``: (True, the last key's line, its indent,
    the end of the block it is in, the rest of its line, depth) when every key is there;
    (False, the line to insert the missing keys at, their indent, the block's end, '', the depth
    of the first missing key) when one is missing; None for anything the splice does not read."""
    start, end, indent = 0, len(view), base  # the mapping block we search: lines [start, end)
    for depth, key in enumerate(keys):
        found = _find_key(view, start, end, indent)
        if found is None:
            return None
        positions, child_end = found
        if key not in positions:
            return False, child_end, indent, end, "", depth
        line_no = positions[key]
        match = _KEY_LINE.match(view[line_no])
        assert match is not None
        rest = match.group(3) or ""
        if depth == len(keys) - 1:
            return True, line_no, indent, end, rest, depth
        if rest.strip() and not rest.lstrip().startswith("#"):
            return None  # a flow map or scalar where we need a block map
        block_end = _block_end(view, line_no + 1, end, indent)
        child_indent = _child_indent(view, line_no + 1, block_end)
        if child_indent is None:
            return None
        start, end, indent = line_no + 1, block_end, child_indent
    return None


def list_append_point(
    text: str, item_form: bool, keys: tuple[str, ...], has_entries: bool
) -> tuple[int, str, int] | None:
    """Where :func:`splice_set` puts the new entries of the list at ``keys`` that only grew (had
    entries: ``has_entries``) or is new, without the entries: (offset in ``text``, the key lines
    written before them, the indent of their ``- ``). Inserting the head and the entries (as
    :func:`krmlib._yaml.emit.seq_entry` writes them at that indent) at the offset gives the text
    :func:`splice_set` gives for the whole list; None where it would not splice."""
    if not text.endswith("\n"):
        return None
    read = _read_view(text, item_form, keys)
    if read is None:
        return None
    view = read[0]
    walked = _walk_keys(view, keys, 2 if item_form else 0)
    if walked is None:
        return None
    found, line_no, indent, end, rest, depth = walked
    if found:
        if not has_entries or rest.strip():
            return None
        insert_at = _compact_seq_end(view, line_no, end, indent)
        if insert_at is None:
            return None
        head = ""
    else:
        if has_entries:
            return None  # the list is there but not where the splice would read it
        insert_at = line_no
        if item_form and insert_at == 0:
            return None
        missing = keys[depth:]
        head = "".join(f"{' ' * (indent + 2 * i)}{key}:\n" for i, key in enumerate(missing))
        indent += 2 * (len(missing) - 1)
    return sum(len(line) + 1 for line in view[:insert_at]), head, indent


# kpt's regular layout, as the general path reads it (``_find_key``), in one pass over the
# item's lines: each top-level key (``  key:`` two deep, simple), and "" for a line two deep or
# less that is not blank, a comment, a compact list entry or such a key line (odd: the general
# path's). A line is tried once, as a key line first, so the second branch need not exclude key
# lines again. ``tests/test_scan_passes.py`` holds it to the two searches it replaced.
_TOP_LINE = re.compile(
    r"\n(?:  ([A-Za-z0-9][A-Za-z0-9._/-]*):(?=[ \n])|(?: ?|  (?!- |-\n))(?=[^ \n#]))"
)
# metadata's entries: the first a key four deep, then keys or list entries four deep or deeper
# lines; no blank lines, no comments.
_META_BLOCK = re.compile(
    r"    [A-Za-z0-9][A-Za-z0-9._/-]*:(?: [^\n]*)?\n"
    r"(?:    (?:[A-Za-z0-9][A-Za-z0-9._/-]*:(?: [^\n]*)?|- [^\n]*|-| +[^ #\n][^\n]*)\n)*"
)
_META_KEY = re.compile(r"\n    ([A-Za-z0-9][A-Za-z0-9._/-]*):(?=[ \n])")
_ENTRIES = re.compile(r"(?:      [A-Za-z0-9][A-Za-z0-9._/-]*:(?: [^\n]*)?\n)+")
_ENTRY_KEY = re.compile(r"\n      ([A-Za-z0-9][A-Za-z0-9._/-]*):")


def _set_metadata_entry(text: str, section: str, key: str, value: str) -> str | None:
    """``metadata.<section>.<key>`` set to a string in an item of kpt's regular layout (labels,
    annotations: thousands of items per run), or None for the general path.

    A few regex passes on offsets (no list of lines). Answers only where the general path gives
    the same text: simple, distinct top-level keys; ``metadata:`` alone on its line, its entries
    four deep with no comments or blank lines; the section's entries ``key: value`` lines six
    deep. Anything else (a layout the general path refuses included) is left to it.
    """
    texts = _entry_value(section, key, value)
    if texts is None or not text.startswith("- ") or not text.endswith("\n"):
        return None
    rendered, new_section, new_entry = texts
    if "\t" in text or "\r" in text:
        return None
    view = "\n  " + text[2:]  # the first line as the others: two spaces deep
    first = _TOP_LINE.match(view)
    if first is None or not first.group(1):
        return None  # the dash's line holds no key (a comment): a deeper line could follow it
    top = _TOP_LINE.findall(view)  # the top-level keys, "" for an odd line
    if "" in top or len(set(top)) != len(top):
        return None
    meta = view.find("\n  metadata:\n") + 13  # where metadata's entries start
    if meta == 12:
        return None
    block = _META_BLOCK.match(view, meta)
    if block is None:
        return None
    block_end = block.end()  # the line after metadata's entries (or the end of the text)
    if open_scalar(text):
        return None  # a scalar over several lines: its lines are no keys
    if block_end < len(view) and view[block_end + 2 : block_end + 3] in (" ", "#", "\n", ""):
        return None  # not a top-level key next: blank lines, comments, odd indentation
    keys = _META_KEY.findall(view, meta - 1, block_end)
    if len(set(keys)) != len(keys):
        return None
    if section not in keys:
        return _edited(text, block_end - 1, 0, new_section)
    head = view.find(f"\n    {section}:", meta - 1, block_end) + 1
    entries_at = head + 6 + len(section)
    if view[entries_at - 1] != "\n":
        return None  # a value or comment after "<section>:"
    entries = _ENTRIES.match(view, entries_at, block_end)
    if entries is None:
        return None
    after = entries.end()
    if after < block_end and view[after + 4] == " ":
        return None  # deeper lines under an entry
    names = _ENTRY_KEY.findall(view, entries_at - 1, after)
    if len(set(names)) != len(names):
        return None
    if key not in names:
        return _edited(text, after - 1, 0, new_entry)
    line = view.find(f"\n      {key}:", entries_at - 1, after) + 1
    line_end = view.index("\n", line)
    match = _KEY_BODY.fullmatch(view, line + 6, line_end)
    assert match is not None
    new_value = _replace_value(match.group(2) or "", rendered)
    if new_value is None:
        return None
    return _edited(text, line - 1, line_end - line, f"      {key}: {new_value}")


# (section, key, value) -> the texts :func:`_entry_value` gives, or None: a function writes one
# label to thousands of items (two regex matches and three quoting checks each), and each item
# keeps the lines it inserted (its patch): one string for them all, not one each (memory).
# Bounded: a run writes a few labels; 1024 holds them, and distinct values do not pile up.
_ENTRY_VALUES: dict[tuple[str, str, str], tuple[str, str, str] | None] = {}
_ENTRY_VALUES_LIMIT = 1024


def _entry_value(section: str, key: str, value: str) -> tuple[str, str, str] | None:
    """(the text :func:`render_scalar` gives ``value``, the lines of a new ``section`` holding
    the entry, the entry's line), or None when it gives none or when ``section`` or ``key`` is
    not a simple key (kept for short strings)."""
    asked = (section, key, value)
    if asked in _ENTRY_VALUES:
        return _ENTRY_VALUES[asked]
    rendered = render_scalar(value)
    for name in (section, key):
        if not _SIMPLE.match(name) or needs_quotes(name):
            rendered = None
    texts = None
    if rendered is not None:
        entry = f"      {key}: {rendered}\n"
        texts = (rendered, f"    {section}:\n{entry}", entry)
    if len(value) + len(key) <= 256:
        remember(_ENTRY_VALUES, asked, texts, _ENTRY_VALUES_LIMIT)
    return texts


_KEY_BODY = re.compile(r"([A-Za-z0-9][A-Za-z0-9._/-]*):(?: (.*))?")


# The last edit :func:`_set_metadata_entry` made: (the text, the new text, the offset, the
# characters replaced, their replacement), for :func:`last_edit`.
_LAST_EDIT: list[tuple[str, str, int, int, str]] = [("", "", 0, 0, "")]


def _edited(text: str, at: int, removed: int, inserted: str) -> str:
    """``text`` with ``removed`` characters at ``at`` replaced by ``inserted`` (kept as the
    last edit)."""
    new = f"{text[:at]}{inserted}{text[at + removed :]}"
    _LAST_EDIT[0] = (text, new, at, removed, inserted)
    return new


def edit_between(text: str, start: int, stop: int, new: str) -> tuple[int, int, str]:
    """(offset in ``text[start:stop]``, characters replaced, replacement): the one edit that
    makes ``new`` of that span, between the longest prefix and suffix they share (compared in C,
    by halves)."""
    size = stop - start
    low, high = 0, min(size, len(new))  # the longest common prefix
    while low < high:
        mid = (low + high + 1) // 2
        if text.startswith(new[:mid], start, stop):
            low = mid
        else:
            high = mid - 1
    prefix = low
    low, high = 0, min(size, len(new)) - prefix  # the longest common suffix after it
    while low < high:
        mid = (low + high + 1) // 2
        if text.endswith(new[len(new) - mid :], start, stop):
            low = mid
        else:
            high = mid - 1
    return prefix, size - prefix - low, new[prefix : len(new) - low]


def last_edit(text: str, new: str) -> tuple[int, int, str] | None:
    """(offset, characters replaced, replacement) of the edit that made ``new`` of ``text``
    when :func:`splice_set` just made it so (the very strings), else None: the caller then
    finds what differs itself. An equal edit given before is that same tuple (the storage keeps
    it as the item's patch: thousands of items labelled alike hold one)."""
    old, made, at, removed, inserted = _LAST_EDIT[0]
    if made is not new or old is not text:
        return None
    edit = (at, removed, inserted)
    kept = _EDITS.get(edit)
    if kept is None:
        kept = remember(_EDITS, edit, edit, _EDITS_LIMIT)
    return kept


_EDITS: dict[tuple[int, int, str], tuple[int, int, str]] = {}  # the last edits, each one tuple
_EDITS_LIMIT = 256  # items labelled alike share an edit: a run makes a few distinct ones


def _append_entries(
    view: list[str], line_no: int, end: int, indent: int, rest: str, value: Any, current: Any
) -> bool:
    """Append the new entries of a list that only grew (in ``view``); False unless the old list
    is a compact block sequence with the new one's first entries."""
    if (
        not isinstance(value, list)
        or not isinstance(current, list)
        or not current
        or value[: len(current)] != current
        or len(value) == len(current)
        or rest.strip()
    ):
        return False
    block_end = _compact_seq_end(view, line_no, end, indent)
    if block_end is None:
        return False
    lines = seq_lines(value[len(current) :], indent)
    if lines is None:
        return False
    view.insert(block_end, lines)  # its lines as one element: joined with "\n" alike
    return True


def _compact_seq_end(view: list[str], line_no: int, end: int, indent: int) -> int | None:
    """The line after the compact block sequence under the key at ``line_no`` (its entries at
    the key's indent), where new entries go; None when the list is not one (or ends with
    comments or blank lines: the round trip places those)."""
    block_end = _seq_block_end(view, line_no + 1, end, indent)
    pad = " " * indent
    first = next((i for i in range(line_no + 1, block_end) if view[i].strip()), None)
    if first is None or not view[first].startswith(pad + "- "):
        return None
    last_content = max(i for i in range(line_no + 1, block_end) if view[i].strip())
    if last_content + 1 != block_end or view[last_content].lstrip().startswith("#"):
        return None
    return block_end


def _find_key(
    view: list[str], start: int, end: int, indent: int
) -> tuple[dict[str, int], int] | None:
    """Keys at ``indent`` in lines [start, end) → line numbers, and the line after the last child.

    None if the block holds anything we do not read (sequences, odd keys, deeper-indented keys
    that are not under a key of ours).
    """
    positions: dict[str, int] = {}
    last_content = start
    for index in range(start, end):
        line = view[index]
        stripped = line.lstrip(" ")
        if not stripped:
            continue
        current = len(line) - len(stripped)
        if stripped.startswith("#"):
            continue
        if current < indent or (not positions and current > indent):
            return None  # the map's entries are not where the splice writes (4-space layouts)
        last_content = index + 1
        if current > indent or stripped.startswith("- ") or stripped == "-":
            continue  # inside a child's value (deeper lines, or a compact sequence)
        match = _KEY_LINE.match(line)
        if match is None:
            return None
        key = match.group(2)
        if key in positions:
            return None
        positions[key] = index
    return positions, last_content


def _block_end(view: list[str], start: int, end: int, indent: int) -> int:
    """The first line from ``start`` with content at ``indent`` or less (comments skipped)."""
    for index in range(start, end):
        stripped = view[index].lstrip(" ")
        if stripped and not stripped.startswith("#") and len(view[index]) - len(stripped) <= indent:
            return index
    return end


def _seq_block_end(view: list[str], start: int, end: int, indent: int) -> int:
    """The end of a compact sequence under a key at ``indent`` (its ``- `` lines are at indent)."""
    for index in range(start, end):
        line = view[index]
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        current = len(line) - len(stripped)
        if current > indent or (
            current == indent and (stripped.startswith("- ") or stripped == "-")
        ):
            continue
        return index
    return end


def _child_indent(view: list[str], start: int, end: int) -> int | None:
    for index in range(start, end):
        stripped = view[index].lstrip(" ")
        if stripped and not stripped.startswith("#"):
            if stripped.startswith("- "):
                return None
            return len(view[index]) - len(stripped)
    return None


def _has_children(view: list[str], start: int, end: int, indent: int) -> bool:
    for index in range(start, end):
        stripped = view[index].lstrip(" ")
        if not stripped:
            continue
        return len(view[index]) - len(stripped) > indent
    return False


def _replace_value(rest: str, rendered: str) -> str | None:
    """The new value text for a line whose old value is ``rest``; keeps a trailing comment."""
    if "#" in rest:
        return None  # a line comment: the round trip keeps its column, take the round trip
    value = rest.strip()
    if not value or value[0] in "&*!|>[{%@`":
        return None
    if value[0] in "'\"":
        if len(value) < 2 or value[-1] != value[0] or "\\" in value or value.count(value[0]) != 2:
            return None
        if rendered.startswith('"'):
            rendered = rendered[1:-1]
        rendered = f"{value[0]}{rendered}{value[0]}"
    return rendered


def _join(view: list[str], item_form: bool, trailing_newline: bool) -> str:
    if item_form:
        view = ["- " + view[0][2:], *view[1:]]
    return "\n".join(view) + ("\n" if trailing_newline else "")
