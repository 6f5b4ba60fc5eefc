"""Names of generated objects: valid DNS-1123 labels of at most 63 characters.

Scheme (the same idea as Porch's PackageVariant names): lower-case the name, turn every
character outside ``[a-z0-9-]`` into ``-``, squeeze repeated ``-`` and trim them from the ends.
A result longer than 63 characters is cut to its first 54 characters (trailing ``-`` trimmed),
then ``-`` and the first 8 hex digits of the SHA-1 of the full (cleaned) name are appended, so two
long names that share a prefix still differ.
"""

from __future__ import annotations

import re

from krmlib import sha1_hex

MAX_LENGTH = 63
KEEP = 54

_INVALID = re.compile(r"[^a-z0-9-]+")
_DASHES = re.compile(r"-{2,}")


def dns_label(*parts: str) -> str:
    """``parts`` joined by ``-`` as a DNS-1123 label (shortened with a hash when too long)."""
    name = _DASHES.sub("-", _INVALID.sub("-", "-".join(parts).lower())).strip("-")
    if not name:
        name = "x"
    if len(name) <= MAX_LENGTH:
        return name
    digest = sha1_hex(name)[:8]
    return f"{name[:KEEP].rstrip('-')}-{digest}"


_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")


def label_value(value: str) -> str:
    """``value`` unchanged when it is a valid label value, else shortened by the same scheme."""
    if len(value) <= MAX_LENGTH and _LABEL_VALUE.match(value):
        return value
    return dns_label(value)
