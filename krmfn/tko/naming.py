"""Names of generated objects and packages: DNS-1123 labels, capped with a hash.

The scheme is krmlib's (``krmlib._model.names``: lower-case, every run of characters outside
``[a-z0-9]`` as one ``-``, trimmed; over 63 characters, the first 54, ``-`` and 8 hex digits of
the SHA-1 of the whole name), kept under these names for the Nephio/TKO functions.
"""

from __future__ import annotations

from krmlib import cap_label, dns_label, short_hash, slug

__all__ = ["cap_label", "dns_label", "short_hash", "slug"]
