"""The ApplySet ID, exactly as kubectl computes it (KEP-3659)."""

from __future__ import annotations

import base64


def applyset_id(name: str, namespace: str, kind: str, group: str) -> str:
    """``applyset-`` + base64url (no padding) of sha256(``name.namespace.Kind.group``) + ``-v1``.

    Empty namespace (cluster-scoped parent) and empty group (core) stay empty strings, so the
    result is always 55 characters and a valid label value.
    """
    import hashlib  # on first use: not a start-up cost

    digest = hashlib.sha256(f"{name}.{namespace}.{kind}.{group}".encode()).digest()
    encoded = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
    return f"applyset-{encoded}-v1"
