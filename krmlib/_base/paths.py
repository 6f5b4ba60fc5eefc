"""Field paths: ``spec.containers[0].image``, ``metadata.annotations["a.b/c"]`` or a tuple."""

from __future__ import annotations

import re
from collections.abc import Sequence

Key = str | int
Path = str | Sequence[Key]

# Compiled on first use (re caches it): not at start-up.
_TOKEN = r"""\.?([^.\[\]"']+)|\[(\d+)\]|\["([^"]*)"\]|\['([^']*)'\]"""


def parse_path(path: Path) -> tuple[Key, ...]:
    """Split a path into keys (str) and list indexes (int)."""
    if type(path) is tuple:
        return path
    if not isinstance(path, str):
        return tuple(path)
    keys_ = _PARSED.get(path)
    if keys_ is None:
        keys_ = _parse(path)
        if len(_PARSED) >= 4096:  # functions use a few dozen paths, thousands of times each
            _PARSED.clear()
        _PARSED[path] = keys_
    return keys_


_PARSED: dict[str, tuple[Key, ...]] = {}


def _parse(path: str) -> tuple[Key, ...]:
    if path == "":
        return ()
    keys: list[Key] = []
    token = re.compile(_TOKEN)
    pos = 0
    while pos < len(path):
        match = token.match(path, pos)
        if match is None or match.end() == pos:
            raise ValueError(f"invalid field path {path!r} at position {pos}")
        name, index, dq, sq = match.groups()
        if index is not None:
            keys.append(int(index))
        else:
            keys.append(next(part for part in (name, dq, sq) if part is not None))
        pos = match.end()
    return tuple(keys)


_PLAIN_KEY = r"^[A-Za-z0-9_-]+\Z"  # compiled on first use (re caches it)


def format_path(keys: Sequence[Key]) -> str:
    """The inverse of :func:`parse_path`, in the form kpt results use."""
    out = ""
    for key in keys:
        if isinstance(key, int):
            out += f"[{key}]"
        elif re.match(_PLAIN_KEY, key):
            out += f".{key}" if out else key
        else:
            out += f'["{key}"]'
    return out
