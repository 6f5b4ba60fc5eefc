"""Scalars as pydantic's lax mode reads them, and the error records of a failed check.

Used by :mod:`krmlib.schema` (the config layer): ``"3"`` is an int, ``"yes"`` a bool, an int a
float, never an int a string; a failure appends an error in pydantic's shape (``type``, ``loc``,
``msg``, ``input``, ``ctx``) and returns :data:`_BAD`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

Loc = tuple[str | int, ...]
ErrorDict = dict[str, Any]
# A compiled check: (value, loc, errors) → the value as the field holds it, or _BAD.
Check = Callable[[Any, Loc, list[ErrorDict]], Any]


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_BAD: Any = _Sentinel("invalid")


def _error(
    errors: list[ErrorDict],
    kind: str,
    loc: Loc,
    message: str,
    value: Any,
    ctx: dict[str, Any] | None = None,
) -> Any:
    error: ErrorDict = {"type": kind, "loc": loc, "msg": message, "input": value}
    if ctx is not None:
        error["ctx"] = ctx
    errors.append(error)
    return _BAD


# --- scalars, as pydantic's lax mode reads them -------------------------------------------------

# Unicode White_Space (what pydantic strips around a number; str.strip also strips \x1c-\x1f).
_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
_INT_TEXT = re.compile(r"[+-]?[0-9](?:_?[0-9])*(?:\.0+)?\Z")
_FLOAT_TEXT = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z",
    re.IGNORECASE,
)
_I64 = 2**63
_TRUE = frozenset(("1", "on", "t", "true", "y", "yes"))
_FALSE = frozenset(("0", "off", "f", "false", "n", "no"))


def _text(value: Any) -> str | None:
    """A str, or bytes as text; None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            return None
    return None


def _str(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        try:
            return bytes(value).decode()
        except UnicodeDecodeError:
            pass
    return _error(errors, "string_type", loc, "Input should be a valid string", value)


def _int(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return _error(errors, "finite_number", loc, "Input should be a finite number", value)
        if not value.is_integer():
            return _error(
                errors,
                "int_from_float",
                loc,
                "Input should be a valid integer, got a number with a fractional part",
                value,
            )
        if -_I64 < value < _I64:
            return int(value)
        return _too_big(errors, loc, value)
    text = _text(value)
    if text is None:
        return _error(errors, "int_type", loc, "Input should be a valid integer", value)
    text = text.strip(_SPACE)
    if _INT_TEXT.match(text):
        try:
            return int(text.partition(".")[0])
        except ValueError:  # more digits than Python reads from text
            return _too_big(errors, loc, value)
    return _error(
        errors,
        "int_parsing",
        loc,
        "Input should be a valid integer, unable to parse string as an integer",
        value,
    )


def _too_big(errors: list[ErrorDict], loc: Loc, value: Any) -> Any:
    return _error(
        errors,
        "int_parsing_size",
        loc,
        "Unable to parse input string as an integer, exceeded maximum size",
        value,
    )


def _float(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return _error(errors, "float_type", loc, "Input should be a valid number", value)
    text = _text(value)
    if text is None:
        return _error(errors, "float_type", loc, "Input should be a valid number", value)
    if _FLOAT_TEXT.match(text.strip(_SPACE)):
        return float(text)
    # Underscores between characters (none first, last or doubled), then no spaces around.
    if not text.startswith("_") and not text.endswith("_") and "__" not in text:
        text = text.replace("_", "")
        if _FLOAT_TEXT.match(text):
            return float(text)
    return _error(
        errors,
        "float_parsing",
        loc,
        "Input should be a valid number, unable to parse string as a number",
        value,
    )


def _bool(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    if isinstance(value, bool):
        return value
    number: int | None = None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value) if -_I64 < value < _I64 else None
    if number is not None:
        if number in (0, 1):
            return number == 1
        if -_I64 <= number < _I64:
            return _bool_parsing(errors, loc, value)
        return _error(errors, "bool_type", loc, "Input should be a valid boolean", value)
    text = _text(value)
    if text is None:
        return _error(errors, "bool_type", loc, "Input should be a valid boolean", value)
    word = text.lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    return _bool_parsing(errors, loc, value)


def _bool_parsing(errors: list[ErrorDict], loc: Loc, value: Any) -> Any:
    return _error(
        errors,
        "bool_parsing",
        loc,
        "Input should be a valid boolean, unable to interpret input",
        value,
    )


SCALARS: dict[Any, Check] = {str: _str, int: _int, float: _float, bool: _bool}
