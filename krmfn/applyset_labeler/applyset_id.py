"""The ApplySet ID, exactly as kubectl computes it (KEP-3659)."""

from __future__ import annotations

from krmlib import sha256_digest


def applyset_id(name: str, namespace: str, kind: str, group: str) -> str:
    """``applyset-`` + base64url (no padding) of sha256(``name.namespace.Kind.group``) + ``-v1``.

    Empty namespace (cluster-scoped parent) and empty group (core) stay empty strings, so the
    result is always 55 characters and a valid label value.
    """
    import base64  # here, not at start-up: a run with no parent to label never needs it

    digest = sha256_digest(f"{name}.{namespace}.{kind}.{group}")
    encoded = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
    return f"applyset-{encoded}-v1"
