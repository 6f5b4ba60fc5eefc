"""Records: frozen, declarative, validated by krmlib (the config layer, without pydantic).

A :class:`Record` declares its fields as class annotations with defaults, like a dataclass; a
default may be a :func:`Field` with an ``alias`` (the name users write: ``apiVersion``), a
``default_factory`` and constraints (``min_length``, ``gt``, ``ge``, ``le``). ``Record(**data)``
and ``Record.model_validate(data)`` take fields by name or alias and check every value against
its annotation, as pydantic's lax mode does (the configs were pydantic models before krmlib 0.2.x
and the errors read the same): ``"3"`` is an int, ``"yes"`` a bool, an int a float, never an int
a string. Supported annotations: ``str``, ``bool``, ``int``, ``float``, ``Any``, ``Literal[...]``,
``X | None``, unions of those, ``list[T]``, ``tuple[T, ...]``, ``dict[K, V]`` and nested Records.

Unknown fields are errors; defaults are validated like given values. ``@field_validator(name)``
checks a field after its type (``mode="before"``: the raw value, before it); with a third
parameter it gets a :class:`ValidationInfo` whose ``data`` holds the fields validated so far.
``@model_validator(mode="before")`` rewrites the raw input, ``mode="after"`` checks the record.
A validator raises ``ValueError`` to reject (``Value error, <message>``).

A failure raises :class:`RecordError`, whose ``errors()`` has pydantic's shape (``type``,
``loc``, ``msg``, ``input``, ``ctx``): :func:`krmlib.models.validation_errors` reads both.

Why not pydantic: importing it costs about 100 ms, more than a function's whole start-up budget
(issue 17.3). pydantic stays for :meth:`KubeObject.as_model` only.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin

from ._coerce import _BAD, SCALARS, Check, ErrorDict, Loc, _error, _Sentinel

T = TypeVar("T")
R = TypeVar("R", bound="Record")


MISSING: Any = _Sentinel("MISSING")


class FieldInfo:
    """One field: its name, alias, type, default and constraints (``Record.model_fields``)."""

    def __init__(
        self,
        default: Any = MISSING,
        *,
        alias: str | None = None,
        default_factory: Callable[[], Any] | None = None,
        min_length: int | None = None,
        gt: float | None = None,
        ge: float | None = None,
        le: float | None = None,
    ) -> None:
        if default is not MISSING and default_factory is not None:
            raise TypeError("a field takes a default or a default_factory, not both")
        self.name = ""
        self.annotation: Any = None
        self.default = default
        self.alias = alias
        self.default_factory = default_factory
        self.min_length = min_length
        self.gt, self.ge, self.le = gt, ge, le

    def is_required(self) -> bool:
        return self.default is MISSING and self.default_factory is None

    def get_default(self) -> Any:
        return self.default_factory() if self.default_factory is not None else self.default

    def __repr__(self) -> str:
        return (
            f"FieldInfo(name={self.name!r}, alias={self.alias!r}, annotation={self.annotation!r})"
        )


def Field(
    *,
    default: Any = MISSING,
    alias: str | None = None,
    default_factory: Callable[[], Any] | None = None,
    min_length: int | None = None,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
) -> Any:
    """A field's default, alias, factory or constraints: ``x: int = Field(default=1, ge=0)``."""
    return FieldInfo(
        default,
        alias=alias,
        default_factory=default_factory,
        min_length=min_length,
        gt=gt,
        ge=ge,
        le=le,
    )


class ValidationInfo:
    """What a field validator with a third parameter gets: ``data``, the fields validated so far
    (by name; a field that failed is absent)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data


class RecordError(ValueError):
    """A record failed validation; ``errors()`` lists every failure in pydantic's shape."""

    def __init__(self, model: type[Record], errors: list[ErrorDict]) -> None:
        self.model = model
        self._errors = errors
        lines = [
            f"{'.'.join(str(k) for k in e['loc']) or model.__name__}: {e['msg']}" for e in errors
        ]
        super().__init__(f"{len(errors)} error(s) validating {model.__name__}: " + "; ".join(lines))

    def errors(self) -> list[ErrorDict]:
        return list(self._errors)


class _Hook:
    """A validator as declared in a class body (collected when the class is first used)."""

    def __init__(self, kind: str, mode: str, names: tuple[str, ...], func: Any) -> None:
        self.kind, self.mode, self.names = kind, mode, names
        self.func: Callable[..., Any] = func.__func__ if isinstance(func, classmethod) else func
        self.takes_info = self.func.__code__.co_argcount >= 3


def field_validator(
    name: str, *names: str, mode: Literal["before", "after"] = "after"
) -> Callable[[T], T]:
    """Declare ``(cls, value[, info]) -> value`` as a check of the named fields."""

    def declare(func: T) -> T:
        return typing.cast(T, _Hook("field", mode, (name, *names), func))

    return declare


def model_validator(*, mode: Literal["before", "after"]) -> Callable[[T], T]:
    """Declare ``(cls, raw) -> raw`` (``before``) or ``(self) -> self`` (``after``)."""

    def declare(func: T) -> T:
        return typing.cast(T, _Hook("model", mode, (), func))

    return declare


class _Schema:
    """A Record class compiled: its fields in order, their checks and the record's hooks."""

    def __init__(self, cls: type[Record]) -> None:
        hooks = [
            value
            for klass in reversed(cls.__mro__)
            for value in vars(klass).values()
            if isinstance(value, _Hook)
        ]
        hints = typing.get_type_hints(cls)
        self.fields: dict[str, FieldInfo] = {}
        for name, annotation in hints.items():
            if name.startswith("_") or get_origin(annotation) is ClassVar:
                continue
            declared = getattr(cls, name, MISSING)
            info = declared if isinstance(declared, FieldInfo) else FieldInfo(declared)
            info = _copy_info(info)
            info.name, info.annotation = name, annotation
            self.fields[name] = info
        known = set(self.fields)
        for hook in hooks:
            unknown = [n for n in hook.names if n not in known]
            if unknown:
                raise TypeError(f"{cls.__name__}: a validator names unknown fields {unknown}")
        self.before = [h for h in hooks if h.kind == "model" and h.mode == "before"]
        self.after = [h for h in hooks if h.kind == "model" and h.mode == "after"]
        self.checks: dict[str, Callable[[Any, Loc, list[ErrorDict], dict[str, Any]], Any]] = {
            name: _field_check(cls, info, [h for h in hooks if name in h.names])
            for name, info in self.fields.items()
        }


def _copy_info(info: FieldInfo) -> FieldInfo:
    out = FieldInfo.__new__(FieldInfo)
    out.__dict__.update(info.__dict__)
    return out


class _RecordMeta(type):
    @property
    def model_fields(cls) -> dict[str, FieldInfo]:
        """Field name → :class:`FieldInfo` (``alias``, ``annotation``, ``default``), in order."""
        return dict(_schema(cls).fields)


def _schema(cls: Any) -> _Schema:
    schema = cls.__dict__.get("__krm_schema__")
    if schema is None:
        schema = _Schema(cls)
        type.__setattr__(cls, "__krm_schema__", schema)
    assert isinstance(schema, _Schema)
    return schema


@typing.dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(Field,))
class Record(metaclass=_RecordMeta):
    """A frozen record of validated fields (see the module's documentation).

    The type checker sees a subclass as a frozen keyword-only dataclass (``dataclass_transform``,
    PEP 681): ``Config(nmae="x")``, a missing required field or a value of the wrong type is an
    error before the function runs; at run time the fields are checked as described above.
    """

    def __init__(self, **data: Any) -> None:
        self.__dict__.update(type(self).model_validate(data).__dict__)

    @classmethod
    def model_validate(cls: type[R], data: Any) -> R:
        """The record from plain data (fields by name or alias); RecordError lists failures."""
        errors: list[ErrorDict] = []
        value = _record(cls, data, (), errors)
        if errors:
            raise RecordError(cls, errors)
        assert isinstance(value, cls)
        return value

    def model_copy(self: R, *, update: Mapping[str, Any] | None = None) -> R:
        """A copy with some fields (by name) replaced, not validated (as pydantic's)."""
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy.__dict__.update(update or {})
        return copy

    def _values(self) -> tuple[Any, ...]:
        return tuple(self.__dict__.get(name) for name in _schema(type(self)).fields)

    def __eq__(self, other: object) -> bool:
        """Equal when of one class with equal fields (not what form a config came from)."""
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        fields = _schema(type(self)).fields
        inner = ", ".join(f"{name}={self.__dict__.get(name)!r}" for name in fields)
        return f"{type(self).__name__}({inner})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")


# --- validation ---------------------------------------------------------------------------------


def _key_loc(key: Any) -> str | int:
    if isinstance(key, str):
        return key
    return int(key) if isinstance(key, int) else str(key)


def _record(cls: type[Record], value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    schema = _schema(cls)
    for hook in schema.before:
        try:
            value = hook.func(cls, value)
        except (ValueError, AssertionError) as exc:
            return _value_error(errors, loc, exc, value)
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        return _error(
            errors,
            "model_type",
            loc,
            f"Input should be a valid dictionary or instance of {cls.__name__}",
            value,
        )
    before = len(errors)
    fields = _fields(cls, value, loc, errors)
    if len(errors) > before:
        return _BAD
    record = cls.__new__(cls)
    record.__dict__.update(fields)
    return _after(cls, record, loc, errors)


def _fields(
    cls: type[Record], value: Mapping[Any, Any], loc: Loc, errors: list[ErrorDict]
) -> dict[str, Any]:
    """The fields of ``cls`` from ``value`` (by alias, else name), then unknown keys' errors."""
    schema = _schema(cls)
    data: dict[str, Any] = {}
    used: set[Any] = set()
    for name, info in schema.fields.items():
        where = (*loc, info.alias or name)
        if info.alias is not None and info.alias in value:
            key: Any = info.alias
        elif name in value:
            key = name
        elif info.is_required():
            _error(errors, "missing", where, "Field required", value)
            continue
        else:
            key = MISSING
        if key is MISSING:
            raw = info.get_default()
        else:
            used.add(key)
            raw = value[key]
            where = (*loc, key)  # as the input names it (by name or by alias)
        checked = schema.checks[name](raw, where, errors, data)
        if checked is not _BAD:
            data[name] = checked
    for key in value:
        if key in used:
            continue
        if isinstance(key, str):
            _error(
                errors,
                "extra_forbidden",
                (*loc, key),
                "Extra inputs are not permitted",
                value[key],
            )
        else:
            _error(errors, "invalid_key", (*loc, _key_loc(key)), "Keys should be strings", key)
    return data


def _after(cls: type[Record], record: Record, loc: Loc, errors: list[ErrorDict]) -> Any:
    for hook in _schema(cls).after:
        try:
            hook.func(record)
        except (ValueError, AssertionError) as exc:
            return _value_error(errors, loc, exc, record)
    return record


def _value_error(errors: list[ErrorDict], loc: Loc, exc: Exception, value: Any) -> Any:
    if isinstance(exc, AssertionError):
        return _error(errors, "assertion_error", loc, f"Assertion failed, {exc}", value)
    return _error(errors, "value_error", loc, f"Value error, {exc}", value, {"error": exc})


def _field_check(
    cls: type[Record], info: FieldInfo, hooks: list[_Hook]
) -> Callable[[Any, Loc, list[ErrorDict], dict[str, Any]], Any]:
    check = _compile(info.annotation)
    limits = _limits(info)
    before = [h for h in hooks if h.mode == "before"]
    after = [h for h in hooks if h.mode == "after"]

    def run(value: Any, loc: Loc, errors: list[ErrorDict], data: dict[str, Any]) -> Any:
        for hook in before:
            try:
                value = (
                    hook.func(cls, value, ValidationInfo(data))
                    if hook.takes_info
                    else (hook.func(cls, value))
                )
            except (ValueError, AssertionError) as exc:
                return _value_error(errors, loc, exc, value)
        value = check(value, loc, errors)
        if value is _BAD:
            return _BAD
        for limit in limits:
            if limit(value, loc, errors) is _BAD:
                return _BAD
        for hook in after:
            try:
                value = (
                    hook.func(cls, value, ValidationInfo(data))
                    if hook.takes_info
                    else (hook.func(cls, value))
                )
            except (ValueError, AssertionError) as exc:
                return _value_error(errors, loc, exc, value)
        return value

    return run


def _limits(info: FieldInfo) -> list[Check]:
    out: list[Check] = []
    if info.min_length is not None:
        least = info.min_length

        def min_length(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
            if len(value) >= least:
                return value
            unit = "character" if least == 1 else "characters"
            return _error(
                errors,
                "string_too_short",
                loc,
                f"String should have at least {least} {unit}",
                value,
                {"min_length": least},
            )

        out.append(min_length)
    for name, words, holds in (
        ("gt", "greater than", lambda v, b: v > b),
        ("ge", "greater than or equal to", lambda v, b: v >= b),
        ("le", "less than or equal to", lambda v, b: v <= b),
    ):
        bound = getattr(info, name)
        if bound is not None:
            out.append(_bound(name, words, holds, bound))
    return out


def _bound(name: str, words: str, holds: Callable[[Any, Any], bool], bound: Any) -> Check:
    def check(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
        if holds(value, bound):
            return value
        return _error(errors, name, loc, f"Input should be {words} {bound}", value, {name: bound})

    return check


def _compile(annotation: Any) -> Check:
    """The check of one annotation (see the module's documentation for what is supported)."""
    if annotation is Any:
        return lambda value, loc, errors: value
    scalar = SCALARS.get(annotation)
    if scalar is not None:
        return scalar
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is None and isinstance(annotation, type) and issubclass(annotation, Record):
        model = annotation
        return lambda value, loc, errors: _record(model, value, loc, errors)
    if origin is Literal:
        return _literal(args)
    if origin in (Union, _UnionType):
        return _union(args)
    if origin is list or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
        return _sequence(origin, _compile(args[0]))
    if origin is dict:
        return _mapping(_compile(args[0]), _compile(args[1]))
    raise TypeError(f"krmlib records do not support the annotation {annotation!r}")


_UnionType: Any = type(int | None)


def _literal(allowed: tuple[Any, ...]) -> Check:
    shown = [repr(a) for a in allowed]
    expected = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"

    def check(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
        for choice in allowed:
            if value == choice and type(value) is type(choice):
                return choice
        return _error(
            errors,
            "literal_error",
            loc,
            f"Input should be {expected}",
            value,
            {"expected": expected},
        )

    return check


def _union(members: tuple[Any, ...]) -> Check:
    nullable = type(None) in members
    others = [m for m in members if m is not type(None)]
    if len(others) == 1:  # X | None: X's errors at the field itself
        inner = _compile(others[0])
        return lambda value, loc, errors: None if value is None else inner(value, loc, errors)
    checks = [(_tag(m), _compile(m)) for m in others]

    def check(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
        if value is None and nullable:
            return None
        failures: list[ErrorDict] = []
        for tag, member in checks:
            attempt: list[ErrorDict] = []
            result = member(value, (*loc, tag), attempt)
            if not attempt:
                return result
            failures += attempt
        errors += failures
        return _BAD

    return check


def _tag(annotation: Any) -> str:
    """The name of a union member in an error's location (as pydantic writes it)."""
    if annotation is Any:
        return "any"
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is None and isinstance(annotation, type):
        return annotation.__name__
    if origin is Literal:
        return f"literal[{','.join(repr(a) for a in args)}]"
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return f"tuple[{_tag(args[0])}, ...]"
    name = getattr(origin, "__name__", str(origin))
    return f"{name}[{','.join(_tag(a) for a in args)}]"


def _sequence(kind: Any, item: Check) -> Check:
    message = "Input should be a valid list" if kind is list else "Input should be a valid tuple"
    error_type = "list_type" if kind is list else "tuple_type"

    def check(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
        if not isinstance(value, list | tuple | set | frozenset):
            return _error(errors, error_type, loc, message, value)
        before = len(errors)
        out = [item(v, (*loc, i), errors) for i, v in enumerate(value)]
        if len(errors) > before:
            return _BAD
        return out if kind is list else tuple(out)

    return check


def _mapping(key_check: Check, value_check: Check) -> Check:
    def check(value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
        if not isinstance(value, Mapping):
            return _error(errors, "dict_type", loc, "Input should be a valid dictionary", value)
        before = len(errors)
        out = {}
        for key, item in value.items():
            where = (*loc, _key_loc(key))
            checked_key = key_check(key, (*where, "[key]"), errors)
            checked = value_check(item, where, errors)
            if checked_key is not _BAD and checked is not _BAD:
                out[checked_key] = checked
        return _BAD if len(errors) > before else out

    return check


__all__ = [
    "MISSING",
    "Field",
    "FieldInfo",
    "Record",
    "RecordError",
    "ValidationInfo",
    "field_validator",
    "model_validator",
]
