"""Scalars as written: which plain strings another YAML reader would take for another type, and
booleans and nulls that keep their spelling. Shared by the reader, the emitter and the round trip
(private; a module of its own so that none of them imports another in a circle).
"""

from __future__ import annotations

import functools
import re

# --- scalars that other readers would not take as strings -------------------------------------

# Union of the YAML 1.1 (PyYAML, old kyaml) and YAML 1.2 core implicit types. Compiled on first
# use (about 1.4 ms: a run that writes no new string does not pay it at start-up).
_AMBIGUOUS = r"""^(?:
      [-+]?(?:0|[1-9][0-9_]*)                      # decimal
     |[-+]?0[0-7_]+ | 0o[0-7]+                     # octal 1.1 / 1.2
     |[-+]?0x[0-9a-fA-F_]+ | [-+]?0b[01_]+         # hex, binary
     |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+           # sexagesimal int
     |[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?   # float
     |[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+        # 1e3
     |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*  # sexagesimal float
     |[-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
     |y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
     |~|null|Null|NULL|
     |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?   # timestamp
     |=|<<
    )$"""


@functools.cache
def _ambiguous() -> re.Pattern[str]:
    return re.compile(_AMBIGUOUS, re.X)


def needs_quotes(value: str) -> bool:
    """True when a plain ``value`` would be read as something other than a string."""
    return _ambiguous().match(value) is not None


# Characters a YAML 1.1 reader (libyaml, so PyYAML and Go's yaml.v3 too) takes for a line break
# besides "\n": written raw inside a quoted or block scalar, NEL and a CR before LF read back as
# "\n" and are folded into a space. A string holding one is written double-quoted, where each is
# an escape.
_WIDE_BREAKS = ("\x85", "\u2028", "\u2029")


def needs_escapes(value: str) -> bool:
    """True when ``value`` holds a line break other than "\n" (only double quotes keep it)."""
    if "\r" in value:
        return True
    return not value.isascii() and any(ch in value for ch in _WIDE_BREAKS)


class StyledBool(int):
    """A boolean as written (``True``, ``TRUE``): emitted as its original text."""

    text: str

    def __new__(cls, value: bool, text: str) -> StyledBool:
        obj = super().__new__(cls, bool(value))
        obj.text = text
        return obj

    def __bool__(self) -> bool:
        return int(self) != 0


class StyledNull:
    """A null written ``~`` or ``Null``: emitted as its original text, read as None."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, StyledNull)

    def __hash__(self) -> int:
        return hash(None)
