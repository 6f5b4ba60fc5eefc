"""TKO's ids in Kubernetes names: the escaped form of its Kubernetes API.

TKO's Kubernetes API server (nephio-experimental/tko 5973960, ``util/kubernetes-names.go``, used
by ``api/kubernetes-server/templates.go``, ``sites.go`` and ``deployments.go``) names a Template,
Site or Deployment object after its id, and its labels after the metadata, with every character
outside ``[0-9A-Za-z.]`` escaped as ``-`` and four lower-case hex digits of its code point:
``k8s/hello:v1.0.0`` is ``k8s-002fhello-003av1.0.0``. The id itself (``spec.templateId``,
``spec.siteId``, the Deployment resource's fields) is written as it is.
"""

from __future__ import annotations

import re

MAX_LENGTH = 253  # TKO's KubernetesNameMaxLength
_ESCAPED = re.compile(r"[^0-9A-Za-z.]")
_SEQUENCE = re.compile(r"-([0-9A-Fa-f]{4})")


def to_kubernetes_name(text: str) -> str:
    """``text`` escaped as TKO does; ValueError when the result is too long (TKO refuses it) or
    a character is beyond four hex digits (TKO's escape has no room for it)."""

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        if code > 0xFFFF:
            raise ValueError(f"{text!r}: {match.group()!r} cannot be escaped in four hex digits")
        return f"-{code:04x}"

    name = _ESCAPED.sub(escape, text)
    if len(name) > MAX_LENGTH:
        raise ValueError(f"Kubernetes name too long: {len(name)} (at most {MAX_LENGTH})")
    return name


def from_kubernetes_name(name: str) -> str:
    """The text a TKO Kubernetes name stands for; ValueError on a malformed escape (a ``-`` not
    followed by four hex digits), as TKO's FromKubernetesName refuses it."""
    out: list[str] = []
    index = 0
    while index < len(name):
        char = name[index]
        if char != "-":
            out.append(char)
            index += 1
            continue
        match = _SEQUENCE.match(name, index)
        if match is None:
            raise ValueError(f"malformed escaped Kubernetes name: {name!r} at position {index}")
        out.append(chr(int(match.group(1), 16)))
        index = match.end()
    return "".join(out)


def id_forms(text: str) -> tuple[str, ...]:
    """The ids ``text`` may stand for: itself, then what it unescapes to when TKO could have
    written it (an id read where TKO's Kubernetes API writes a name): every ``-`` starts an
    escape of a character TKO escapes (not a letter, digit or ``.``, not a control character),
    so ``edge-0001`` or ``GDC-E`` stay as written."""
    if "-" not in text:
        return (text,)
    try:
        unescaped = from_kubernetes_name(text)
    except ValueError:
        return (text,)
    for match in _SEQUENCE.finditer(text):
        char = chr(int(match.group(1), 16))
        if char < " " or not _ESCAPED.match(char):
            return (text,)
    return (text, unescaped)


def from_kubernetes_names(names: dict[str, str]) -> dict[str, str]:
    """Labels written by TKO's API (keys and values escaped) back to metadata; an entry that
    does not unescape is kept as it is."""
    out: dict[str, str] = {}
    for key, value in names.items():
        out[id_forms(key)[-1]] = id_forms(value)[-1]
    return out
