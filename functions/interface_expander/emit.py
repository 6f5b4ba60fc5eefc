"""New children as YAML text, so they are passed through instead of dumped by ruamel.

krmlib serialises a ``KubeObject.from_dict`` object with ruamel (a few milliseconds each), which
dominates a run that creates thousands of children. The children are small trees of maps, lists,
strings and ints, so they are written here directly and handed to ``KubeObject.from_yaml``: the
text is then emitted as it is. Strings are plain only when they are conservative identifiers that
no YAML 1.1 or 1.2 reader takes for another type; everything else is double-quoted (JSON string
syntax, which YAML reads the same).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from krmlib import KubeObject

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._/-]*\Z")
_WORDS = frozenset(
    ("y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", "infinity")
)


def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise TypeError(f"unsupported value {value!r}")
    if _PLAIN.match(value) and value.lower().lstrip(".") not in _WORDS:
        return value
    return json.dumps(value, ensure_ascii=False)


def _value(item: Any, indent: str, out: list[str], line: str) -> None:
    if isinstance(item, Mapping):
        if not item:
            out.append(line + " {}")
            return
        out.append(line)
        for key, sub in item.items():
            _value(sub, indent + "  ", out, indent + scalar(str(key)) + ":")
        return
    if isinstance(item, Sequence) and not isinstance(item, str):
        if not item:
            out.append(line + " []")
            return
        out.append(line)
        base = indent[:-2]  # compact lists: "- " at the parent key's indentation
        for element in item:
            if isinstance(element, Mapping) and element:
                keys = list(element.items())
                key, sub = keys[0]
                _value(sub, base + "    ", out, base + "- " + scalar(str(key)) + ":")
                for key, sub in keys[1:]:
                    _value(sub, base + "    ", out, base + "  " + scalar(str(key)) + ":")
            else:
                out.append(base + "- " + scalar(element))
        return
    out.append(f"{line} {scalar(item)}")


def to_yaml(document: Mapping[str, Any]) -> str:
    """A block-style YAML document (two-space indentation, compact lists)."""
    out: list[str] = []
    for key, item in document.items():
        _value(item, "  ", out, scalar(str(key)) + ":")
    return "\n".join(out) + "\n"


def new_object(document: Mapping[str, Any]) -> KubeObject:
    """A new KubeObject whose text is emitted as written here."""
    return KubeObject.from_yaml(to_yaml(document))
