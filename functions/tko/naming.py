"""Names of generated objects and packages: DNS-1123 labels, capped with a hash.

Scheme (Porch's for PackageVariant names): lower-case, every run of characters outside
``[a-z0-9]`` becomes one ``-``, ``-`` trimmed from the ends (``x`` when nothing is left). A name
longer than 63 characters is cut to its first 54 characters (trailing ``-`` trimmed), then ``-``
and the first 8 hex digits of the SHA-1 of the whole name are appended, so two long names that
share a prefix still differ.
"""

from __future__ import annotations

import re

from krmlib import sha1_hex

MAX_LABEL = 63
HASH_LEN = 8
_KEEP = MAX_LABEL - HASH_LEN - 1
_OTHER = re.compile(r"[^a-z0-9]+")


def short_hash(text: str) -> str:
    """The first 8 hex digits of the SHA-1 of ``text``."""
    return sha1_hex(text)[:HASH_LEN]


def slug(*parts: str) -> str:
    """``parts`` joined by ``-``, lower case, other characters as ``-`` (not capped)."""
    return _OTHER.sub("-", "-".join(parts).lower()).strip("-") or "x"


def cap_label(name: str) -> str:
    """``name`` when it fits a DNS-1123 label, else its first 54 characters, ``-`` and the
    hash of the whole name."""
    if len(name) <= MAX_LABEL:
        return name
    return f"{name[:_KEEP].rstrip('-')}-{short_hash(name)}"


def dns_label(*parts: str) -> str:
    """``parts`` as one DNS-1123 label: :func:`slug`, then :func:`cap_label`."""
    return cap_label(slug(*parts))
