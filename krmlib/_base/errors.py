"""Exceptions that the runner turns into error results (expected failures, no traceback)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from krmlib._model.object import KubeObject


class KrmError(Exception):
    """An expected failure: becomes one error result naming the item and field."""

    def __init__(
        self,
        message: str,
        *,
        obj: KubeObject | None = None,
        field: str | None = None,
        line: int | None = None,
        column: int | None = None,
        file: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.obj = obj
        self.field = field
        self.line = line
        self.column = column
        self.file = file

    def __str__(self) -> str:
        where = ""
        if self.line is not None:
            where = f" (line {self.line}" + (f", column {self.column}" if self.column else "") + ")"
        return self.message + where


class InputError(KrmError):
    """The input is not a ResourceList/stream of KRM objects we can read."""


class ConfigError(KrmError):
    """The functionConfig is invalid."""


class FieldTypeError(KrmError, TypeError):
    """A path runs through a value of the wrong type."""


# Set (to anything but empty), an unexpected failure also prints its whole traceback on stderr
# (`--help` names it). The old name, KRMFN_DEBUG, still works (a DeprecationWarning).
DEBUG_ENV = "KRMLIB_DEBUG"


def setting(name: str) -> str | None:
    """The environment variable ``KRMLIB_<name>``, else its old name ``KRMFN_<name>`` (with a
    ``DeprecationWarning``), else None."""
    value = os.environ.get(f"KRMLIB_{name}")
    if value is None:
        value = os.environ.get(f"KRMFN_{name}")
        if value is not None:
            import warnings

            warnings.warn(
                f"KRMFN_{name} is deprecated: set KRMLIB_{name}", DeprecationWarning, stacklevel=2
            )
    return value


def internal_error(exc: BaseException) -> str:
    """The message of an unexpected failure; the traceback goes to stderr only with KRMLIB_DEBUG
    set (a user sees one error result, never a traceback)."""
    if setting("DEBUG"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(exc, RecursionError):
        return "internal error: the input is nested too deeply to process"
    text = str(exc)
    return f"internal error: {type(exc).__name__}" + (f": {text[:500]}" if text else "")
