"""Cheap reads of an item's text without parsing it: apiVersion, kind, name, namespace.

kpt writes items in one regular block style; these scans read that style and return ``None`` for
anything else (flow maps, anchors, tags, escapes), and the caller then parses the item for real.
"""

from __future__ import annotations

import re
from sys import intern

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


def scan_header(text: str, item_form: bool) -> tuple[str, str, str, str] | None:
    """(apiVersion, kind, name, namespace) of an item's text, or None when unsure.

    Reads kpt's layout only: metadata's children indented by two. Any doubt (a duplicate key, a
    value that is not a simple scalar, metadata in flow style) answers None.
    """
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

    Reads kpt's layout only: the map's entries one per line, two deeper than ``section:``, with
    simple scalar values. Anything else (a value that is not a plain string, a flow map, comments,
    continuation lines) answers None and the caller parses the item.
    """
    base = 2 if item_form else 0
    meta = text.find(f"\n{' ' * base}metadata:")
    if meta < 0:
        return None
    head = f"\n{' ' * (base + 2)}{section}:"
    at = text.find(head, meta)
    if at < 0:
        # absent only if the metadata block really ends without it
        end = _block_end(text, meta + 1, base)
        return {} if text.find(head, meta, end) < 0 else None
    if at > _block_end(text, meta + 1, base):
        return {}
    line_end = text.find("\n", at + 1)
    rest = text[at + len(head) : line_end if line_end >= 0 else len(text)]
    if rest.strip():
        return None  # flow map or comment on the key line
    entry_indent = " " * (base + 4)
    out: dict[str, str] = {}
    pos = line_end + 1 if line_end >= 0 else len(text)
    while pos < len(text):
        nl = text.find("\n", pos)
        line = text[pos : nl if nl >= 0 else len(text)]
        pos = nl + 1 if nl >= 0 else len(text)
        if not line.strip():
            return None
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


_NOT_STRING = re.compile(
    r"^(?:[-+]?[0-9][0-9._]*(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.[0-9]+"
    r"|true|True|TRUE|false|False|FALSE|null|Null|NULL|~)$"
)


_BLOCK_END = {indent: re.compile(r"\n {0," + str(indent) + r"}(?=[^ \n])") for indent in (0, 2)}


def _block_end(text: str, start: int, indent: int) -> int:
    """Where the block that starts at ``start`` ends: the next line indented ``indent`` or less."""
    match = _BLOCK_END[indent].search(text, start)
    return match.start() if match else len(text)
