"""The pydantic bridge, for :meth:`KubeObject.as_model` and :meth:`KubeObject.set_model` only.

A model there is a krmlib :class:`~krmlib.Record` or a pydantic model; pydantic's
``ValidationError`` has the shape of :class:`~krmlib.RecordError`, so the config layer's one
reading of failures (:func:`krmlib._config.parse.validation_errors`) reads both. pydantic is
imported only to validate a pydantic model; a config parse never enters this module.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any, TypeVar

from krmlib._base.errors import KrmError

from .parse import RecordError, validation_errors
from .records import Record

if TYPE_CHECKING:
    from pydantic import ValidationError

    from krmlib._model.object import KubeObject

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


__all__ = ["describe", "dump_model", "validate_model"]
