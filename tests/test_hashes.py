"""krmlib's name hashes (krmlib/_base/hashes.py): hashlib's digests, without loading OpenSSL."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from krmlib import sha256_digest, sha256_hex
from krmlib.packages import sha1_hex

TEXTS = ["", "a", "nephio-upf.edge-1", "é ü 漢字", "x" * 10_000]


@pytest.mark.parametrize("text", TEXTS)
def test_same_digests_as_hashlib(text: str) -> None:
    data = text.encode("utf-8")
    assert sha1_hex(text) == hashlib.sha1(data).hexdigest()
    assert sha256_hex(text) == hashlib.sha256(data).hexdigest()
    assert sha256_digest(text) == hashlib.sha256(data).digest()


def test_openssl_is_not_loaded() -> None:
    code = (
        "import sys\n"
        "from krmlib.packages import sha1_hex; from krmlib import sha256_hex\n"
        "sha1_hex('a'), sha256_hex('a')\n"
        "print(sorted(m for m in ('hashlib', '_hashlib') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout == "[]\n"
