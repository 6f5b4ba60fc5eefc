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
    encoder = _ENCODER[0] if _ENCODER else _canonical_encoder()
    canonical = encoder.encode(
        {"apiVersion": api_version, "kind": kind, "owner": owner, "spec": spec}
    )
    return sha256_hex(canonical)[:HASH_LENGTH]


# The encoder of the canonical form, made on first use (json is not a start-up cost); one for
# thousands of children (json.dumps with options would make one per call).
_ENCODER: list[Any] = []


def _canonical_encoder() -> Any:
    import json

    _ENCODER.append(json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    return _ENCODER[0]


def child_name(owner: str, tag: str, digest: str) -> str:
    """``<owner>-<tag>-<digest>``, the owner part shortened so the name fits 63 characters."""
    suffix = f"-{tag}-{digest}"
    prefix = owner[: MAX_NAME - len(suffix)].rstrip("-.")
    return f"{prefix}{suffix}"
