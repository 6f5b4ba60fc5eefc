"""Child names and condition types."""

from __future__ import annotations

from typing import Any

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
    digest: str = _sha256()(canonical.encode("utf-8")).hexdigest()
    return digest[:HASH_LENGTH]


_SHA256: list[Any] = []  # the constructor, once looked up


def _sha256() -> Any:
    """SHA-256 from CPython's own small module when it has one (``_sha256`` in 3.11, ``_sha2``
    from 3.12): ``hashlib`` loads OpenSSL's libcrypto, 3.5 MB of resident memory for digests of
    a few hundred bytes. Same digests either way."""
    if not _SHA256:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            try:
                from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]
            except ImportError:
                from hashlib import sha256
        _SHA256.append(sha256)
    return _SHA256[0]


def child_name(owner: str, tag: str, digest: str) -> str:
    """``<owner>-<tag>-<digest>``, the owner part shortened so the name fits 63 characters."""
    suffix = f"-{tag}-{digest}"
    prefix = owner[: MAX_NAME - len(suffix)].rstrip("-.")
    return f"{prefix}{suffix}"


def design_condition_type(api_version: str, kind: str, name: str) -> str:
    """``<group>-<version>-<kind>-<name>``, lower-cased, dots replaced by dashes."""
    group, _, version = api_version.rpartition("/")
    parts = [p for p in (group, version, kind, name) if p]
    return "-".join(parts).lower().replace(".", "-")


def r1_condition_type(api_version: str, kind: str, name: str) -> str:
    """``<group>/<version>.<Kind>.<name>`` (Nephio R1)."""
    return f"{api_version}.{kind}.{name}"
