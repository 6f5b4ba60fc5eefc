"""Cheap reads of an item's text without parsing it: apiVersion, kind, name, namespace.

kpt writes items in one regular block style; these scans read that style and return ``None`` for
anything else (flow maps, anchors, tags, escapes), and the caller then parses the item for real.
"""

from __future__ import annotations

import re

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


def _top_key(key: str, item_form: bool) -> re.Pattern[str]:
    lead = r"(?:- |  )" if item_form else ""
    return re.compile(rf"^{lead}{key}:(.*)$", re.M)


_KEYS = {
    (key, form): _top_key(key, form)
    for key in ("apiVersion", "kind", "metadata")
    for form in (True, False)
}


def scan_header(text: str, item_form: bool) -> tuple[str, str, str, str] | None:
    """(apiVersion, kind, name, namespace) of an item's text, or None when unsure."""
    found: list[str] = []
    for key in ("apiVersion", "kind"):
        matches = _KEYS[key, item_form].findall(text)
        if len(matches) != 1:
            return None
        value = clean_scalar(matches[0])
        if value is None:
            return None
        found.append(value)
    meta = _KEYS["metadata", item_form].search(text)
    if meta is None or meta.group(1).split(" #", 1)[0].strip():
        return None
    name, namespace = _scan_metadata(text, meta.end(), 2 if item_form else 0)
    if name is None:
        return None
    return found[0], found[1], name, namespace or ""


def _scan_metadata(text: str, start: int, base: int) -> tuple[str | None, str | None]:
    child_indent = -1
    name: str | None = None
    namespace: str | None = None
    for line in text[start + 1 :].split("\n"):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if indent <= base:
            break
        if child_indent < 0:
            child_indent = indent
        if indent != child_indent:
            continue
        if stripped.startswith("name:"):
            if name is not None:
                return None, None
            name = clean_scalar(stripped[5:])
            if name is None:
                return None, None
        elif stripped.startswith("namespace:"):
            if namespace is not None:
                return None, None
            namespace = clean_scalar(stripped[10:])
            if namespace is None:
                return None, None
    return name, namespace
