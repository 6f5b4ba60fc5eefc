"""pydantic glue: validate plain data into models, turn validation errors into field paths."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from .errors import KrmError
from .paths import format_path

if TYPE_CHECKING:
    from pydantic import ValidationError

    from .object import KubeObject

M = TypeVar("M")


def validate_model(
    model: type[M],
    data: Any,
    *,
    obj: KubeObject | None = None,
    prefix: str = "",
    error: type[KrmError] = KrmError,
) -> M:
    """``model.model_validate(data)``; the first failure becomes a KrmError naming its field."""
    from pydantic import ValidationError

    try:
        return model.model_validate(data)  # type: ignore[attr-defined,no-any-return]
    except ValidationError as exc:
        raise error(describe(exc, prefix), obj=obj, field=_first_field(exc, prefix)) from None


def validation_errors(exc: ValidationError, prefix: str = "") -> list[tuple[str, str]]:
    """Every failure as (field path, message)."""
    out = []
    for err in exc.errors():
        keys = [str(k) if not isinstance(k, int) else k for k in err["loc"]]
        field = ".".join(p for p in (prefix, format_path(keys)) if p)
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            message = "unknown field"
        elif err["type"] == "missing":
            message = "required field is missing"
        out.append((field, message))
    return out


def describe(exc: ValidationError, prefix: str = "") -> str:
    """Every failure in one line: ``field: message; field: message``."""
    return "; ".join(
        f"{field}: {message}" if field else message
        for field, message in validation_errors(exc, prefix)
    )


def _first_field(exc: ValidationError, prefix: str) -> str | None:
    errors = validation_errors(exc, prefix)
    return errors[0][0] if errors else None


def dump_model(value: Any) -> dict[str, Any]:
    """A pydantic model (or a mapping) as plain data, by alias, in JSON types."""
    if hasattr(value, "model_dump"):
        data = value.model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert isinstance(data, dict)
        return data
    return dict(value)


__all__ = ["describe", "dump_model", "validate_model", "validation_errors"]
