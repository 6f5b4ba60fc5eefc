"""What YAML cannot carry as text: the characters the reader refuses in an input, and the
output gate in what a function wrote (:mod:`krmlib._io.glance`), and the one-pass glance that
an ASCII text holds none of them (:func:`ascii_writable`, also what :mod:`krmlib._base.spill`
asks of a text before it keeps it out of memory)."""

from __future__ import annotations

import re

# What YAML cannot hold as text (a NUL, other C0 controls but tab and newlines, DEL, C1
# controls but NEL, lone surrogates, U+FFFE/U+FFFF): the reader refuses an input that has them.
# Text given to re.search, compiled on first use (re caches it): only a text the glance doubts
# gets here, and a class past U+00FF is built as a 64K-entry table, about 4 M instructions at
# every start (issue 37).
UNWRITABLE = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
# Characters the reader refuses even escaped (``"\0"``, ``"\ud800"``): what the emitters write
# for a NUL or a lone surrogate in a value. Text, as UNWRITABLE.
ESCAPED = r"\\(?:0|x0|u0000|[uU]0*[dD][89a-fA-F][0-9a-fA-F]{2})"

# The ASCII characters of UNWRITABLE (C0 controls but tab and line breaks, and DEL), as bytes
# that bytes.translate deletes: one pass at C speed over an ASCII text.
_UNWRITABLE_ASCII = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


def ascii_writable(text: str) -> bool:
    """True when ``text`` surely holds nothing YAML cannot carry: ASCII (then only C0 controls
    and DEL could be unwritable: deleting them changes nothing) and no escape of a NUL or a
    surrogate; False when unsure."""
    if not text.isascii() or ("\\" in text and re.search(ESCAPED, text)):  # `in`: a fast find
        return False
    data = text.encode("ascii")
    return len(data.translate(None, _UNWRITABLE_ASCII)) == len(data)
