"""SHA-1 and SHA-256 for names and ids, without OpenSSL.

``hashlib`` loads OpenSSL's libcrypto on import: about 2 ms of a function's start-up and 3.5 MB
of its resident memory, for digests of a few hundred bytes. CPython has its own small modules
for these two (``_sha1``; ``_sha256``, ``_sha2`` from 3.12), with the same digests; hashlib's
are taken only when neither exists (another interpreter).
"""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def _constructor(name: str, modules: tuple[str, ...]) -> Any:
    for module in modules:
        try:
            return getattr(__import__(module), name)
        except (ImportError, AttributeError):
            continue
    import hashlib

    return getattr(hashlib, name)


def sha1_hex(data: str) -> str:
    """The SHA-1 of ``data`` (UTF-8) in hex: a name's hash, not a security measure."""
    return str(_constructor("sha1", ("_sha1",))(data.encode("utf-8")).hexdigest())


def sha256_hex(data: str) -> str:
    """The SHA-256 of ``data`` (UTF-8) in hex."""
    return str(_constructor("sha256", ("_sha256", "_sha2"))(data.encode("utf-8")).hexdigest())


def sha256_digest(data: str) -> bytes:
    """The SHA-256 of ``data`` (UTF-8), raw bytes."""
    return bytes(_constructor("sha256", ("_sha256", "_sha2"))(data.encode("utf-8")).digest())
