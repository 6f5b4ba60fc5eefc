"""Child names and condition types."""

from __future__ import annotations

from typing import Any

from krmlib import sha256_hex

MAX_NAME = 63
HASH_LENGTH = 6


def spec_hash(api_version: str, kind: str, owner: str, spec: Any) -> str:
    """A short, stable digest of a child's canonical desired form.

    The canonical form is the JSON of ``{"apiVersion", "kind", "owner", "spec"}`` with sorted
    keys, no whitespace, UTF-8; the digest is the first six hex characters of its SHA-256. Equal
    specs always give the same name; any change of the spec gives (almost surely) a new one.
    """
    import json  # on first use: not a start-up cost

    canonical = json.dumps(
        {"apiVersion": api_version, "kind": kind, "owner": owner, "spec": spec},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return sha256_hex(canonical)[:HASH_LENGTH]


def child_name(owner: str, tag: str, digest: str) -> str:
    """``<owner>-<tag>-<digest>``, the owner part shortened so the name fits 63 characters."""
    suffix = f"-{tag}-{digest}"
    prefix = owner[: MAX_NAME - len(suffix)].rstrip("-.")
    return f"{prefix}{suffix}"
