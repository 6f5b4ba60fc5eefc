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
    return api_version, kind, name, namespace
