"""The ApplySet ID, exactly as kubectl computes it (KEP-3659)."""

from __future__ import annotations

import base64
from typing import Any


def applyset_id(name: str, namespace: str, kind: str, group: str) -> str:
    """``applyset-`` + base64url (no padding) of sha256(``name.namespace.Kind.group``) + ``-v1``.

    Empty namespace (cluster-scoped parent) and empty group (core) stay empty strings, so the
    result is always 55 characters and a valid label value.
    """
    digest = _sha256()(f"{name}.{namespace}.{kind}.{group}".encode()).digest()
    encoded = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
    return f"applyset-{encoded}-v1"


def _sha256() -> Any:
    """CPython's own SHA-256 (``_sha256``; ``_sha2`` from 3.12): the same digest as hashlib's
    without loading OpenSSL's libcrypto, about 2 ms of every run. hashlib's when neither exists."""
    for module in ("_sha256", "_sha2"):
        try:
            return __import__(module).sha256
        except ImportError:
            continue
    import hashlib

    return hashlib.sha256
