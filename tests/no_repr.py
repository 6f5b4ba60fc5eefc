"""No Python ``repr`` in a message (issue 35, item 5): the shapes a repr takes in text, so a
test can scan every message it sees. A message quotes a value as YAML or JSON text
(``'edge 1'``, ``"100"``, ``{"id":5}``), never as Python shows an object (``<KubeObject ...>``),
a dict (``{'id': 5}``), a list of strings (``['a', 'b']``), bytes (``b'x'``) or a path
(``PosixPath('x')``)."""

from __future__ import annotations

import re

_REPR = re.compile(
    r"<(?:KubeObject|ResourceList|Items|Results?|Condition|Storage)\b"  # krmlib's reprs
    r"|<[\w.]+ object at 0x"  # any other object
    r"|\{'[^'\n]*': "  # a dict with string keys
    r"|\['[^'\n]*', '"  # a list of two strings or more
    r"|(?<![\w'\"])b'[^'\n]*'"  # bytes
    r"|\b(?:Posix|Windows)?Path\('"  # a path
    r"|\bdatetime\.date(?:time)?\("  # a date
)


def python_repr(text: str) -> str | None:
    """The first piece of ``text`` that looks like a Python repr, or None."""
    found = _REPR.search(text)
    return found.group(0) if found else None


def messages_of(resource_list: object) -> list[str]:
    """The messages of a parsed ResourceList's results (none for anything else)."""
    if not isinstance(resource_list, dict):
        return []
    results = resource_list.get("results") or []
    return [str(r.get("message", "")) for r in results if isinstance(r, dict)]


def assert_no_repr(*texts: str) -> None:
    for text in texts:
        found = python_repr(text)
        assert found is None, f"a Python repr ({found}) in: {text[:500]}"
