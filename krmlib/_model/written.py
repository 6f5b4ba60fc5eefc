"""Scalars as the user wrote them, for fields that are strings by their schema (issue 27.2).

krmlib reads YAML 1.2's core schema: ``siteCode: 0123`` is the integer 123, ``siteId: 1.10`` the
float 1.1, ``capacity: 1e3`` the float 1000.0. A field that is a string by its schema (a site
code, an id, a label value, a name) must keep the user's spelling, as a Go reader that decodes
into a ``string`` field does. :func:`scalar_text` gives that spelling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from krmlib._base.paths import parse_path

if TYPE_CHECKING:
    from krmlib._base.paths import Path

    from .object import KubeObject


def scalar_text(obj: KubeObject, path: Path) -> str | None:
    """The text of the scalar at ``path`` in ``obj`` as written: a plain scalar verbatim
    (``0123``, ``1.10``, ``1e3``, ``on``), a quoted one as its string; None when the path is
    absent, null, or not a scalar. Strings are returned as read, without a second parse; any
    other scalar is read again from the item's text with every scalar kept as text."""
    value = obj.get(path)
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, dict | list):
        return None
    import yaml  # a number or a boolean where text was meant: rare

    node: Any = yaml.load(obj.to_yaml(), Loader=yaml.CBaseLoader)  # scalars as text only
    for key in parse_path(path):
        if isinstance(node, dict) and isinstance(key, str):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
            node = node[key]
        else:
            return None
    return node if isinstance(node, str) else None


def text_of(obj: KubeObject, path: Path) -> str:
    """:func:`scalar_text`, or ``""`` when there is no scalar at ``path``."""
    return scalar_text(obj, path) or ""


__all__ = ["scalar_text", "text_of"]
