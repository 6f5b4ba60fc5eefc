"""Validation errors as field paths, for krmlib's records and pydantic models alike.

:class:`krmlib.schema.RecordError` (configs) and pydantic's ``ValidationError`` (the models of
:meth:`KubeObject.as_model`) list their failures in one shape; :func:`validation_errors` reads
both. pydantic is imported only to validate a pydantic model.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, Union, get_args, get_origin

from .errors import KrmError
from .paths import format_path

if TYPE_CHECKING:
    from pydantic import ValidationError

    from .object import KubeObject
    from .schema import RecordError

M = TypeVar("M")


def validate_model(
    model: type[M],
    data: Any,
    *,
    obj: KubeObject | None = None,
    prefix: str = "",
    error: type[KrmError] = KrmError,
) -> M:
    """``model.model_validate(data)``; the first failure becomes a KrmError naming its field.
    ``model`` is a krmlib record or a pydantic model (pydantic: the optional extra
    ``krmfn[pydantic]``, imported only for a model that is not a record)."""
    from .schema import Record, RecordError

    failures: tuple[type[Exception], ...] = (RecordError,)
    if not (isinstance(model, type) and issubclass(model, Record)):
        try:
            from pydantic import ValidationError
        except ImportError:
            raise ImportError(
                f"{getattr(model, '__name__', model)} is not a krmlib record, and pydantic (the "
                "optional extra krmfn[pydantic]) is not installed"
            ) from None
        failures = (RecordError, ValidationError)
    try:
        return model.model_validate(data)  # type: ignore[attr-defined,no-any-return]
    except failures as exc:
        failed = typing.cast("ValidationError | RecordError", exc)
        raise error(describe(failed, prefix), obj=obj, field=_first_field(failed, prefix)) from None


def validation_errors(
    exc: ValidationError | RecordError, prefix: str = "", *, model: type[Any] | None = None
) -> list[tuple[str, str]]:
    """Every failure as (field path, message): the one reading of a ValidationError of
    pydantic or a RecordError of krmlib.

    With ``model``, an unknown field or enum value gets a "did you mean" suggestion.
    """
    out = []
    for err in exc.errors():
        loc = [k if isinstance(k, int) else str(k) for k in err["loc"]]
        field = ".".join(p for p in (prefix, format_path(loc)) if p)
        message = str(err["msg"])
        if err["type"] == "extra_forbidden":
            siblings = _field_names(model, loc[:-1]) if model is not None else []
            message = "unknown field" + did_you_mean(str(loc[-1]), siblings)
        elif err["type"] == "missing":
            message = "required field is missing"
        elif err["type"] == "literal_error" and model is not None:
            expected = str((err.get("ctx") or {}).get("expected", ""))
            message += did_you_mean(str(err.get("input")), re.findall(r"'([^']*)'", expected))
        out.append((field, message))
    return out


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'mode'?)`` for the closest choice, or nothing."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def field_annotation(model: type[Any], parts: Sequence[str]) -> Any:
    """The type of the field at ``parts`` (names or aliases) of a record or pydantic model
    (anything with ``model_fields``); Optional unwrapped; None when there is no such field."""
    current: Any = model
    annotation: Any = None
    for part in parts:
        fields = getattr(current, "model_fields", None)
        if not isinstance(current, type) or fields is None:
            return None
        info = next((i for n, i in fields.items() if part in (i.alias or n, n)), None)
        if info is None:
            return None
        annotation = _unwrap_optional(info.annotation)
        current = annotation
    return annotation


def _unwrap_optional(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _field_names(model: type[Any], loc: Sequence[Any]) -> list[str]:
    """The field names (by alias) of the model at ``loc`` (list indexes skipped)."""
    parts = [str(k) for k in loc if not isinstance(k, int)]
    target: Any = field_annotation(model, parts) if parts else model
    while get_origin(target) in (list, tuple, typing.Sequence):
        target = get_args(target)[0]
    fields = getattr(target, "model_fields", None)
    if not isinstance(target, type) or fields is None:
        return []
    return [info.alias or name for name, info in fields.items()]


def describe(exc: ValidationError | RecordError, prefix: str = "") -> str:
    """Every failure in one line: ``field: message; field: message``."""
    return "; ".join(
        f"{field}: {message}" if field else message
        for field, message in validation_errors(exc, prefix)
    )


def _first_field(exc: ValidationError | RecordError, prefix: str) -> str | None:
    errors = validation_errors(exc, prefix)
    return errors[0][0] if errors else None


def dump_model(value: Any) -> dict[str, Any]:
    """A pydantic model (or a mapping) as plain data, by alias, in JSON types."""
    if hasattr(value, "model_dump"):
        data = value.model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert isinstance(data, dict)
        return data
    return dict(value)


__all__ = [
    "describe",
    "did_you_mean",
    "dump_model",
    "field_annotation",
    "validate_model",
    "validation_errors",
]
