"""Records: frozen, declarative, validated by krmlib (the config layer, without pydantic).

A :class:`Record` declares its fields as class annotations with defaults, like a dataclass; a
default may be a :func:`Field` with an ``alias`` (the name users write: ``apiVersion``), a
``default_factory`` and constraints (``min_length``, ``gt``, ``ge``, ``le``). ``Record(**data)``
and ``Record.model_validate(data)`` take fields by name or alias and check every value against
its annotation, as pydantic's lax mode does (the configs were pydantic models before krmlib 0.2.x
and the errors read the same): ``"3"`` is an int, ``"yes"`` a bool, an int a float, never an int
a string. Supported annotations: ``str``, ``bool``, ``int``, ``float``, ``Any``, ``Literal[...]``,
``X | None``, unions of those, ``list[T]``, ``tuple[T, ...]``, ``dict[K, V]`` and nested Records:
what a YAML config holds (bytes, from ``!!binary``, read as text).

Unknown fields are errors; defaults are validated like given values. ``@field_validator(name)``
checks a field after its type (``mode="before"``: the raw value, before it); with a third
parameter it gets a :class:`ValidationInfo` whose ``data`` holds the fields validated so far.
``@model_validator(mode="before")`` rewrites the raw input, ``mode="after"`` checks the record.
A validator raises ``ValueError`` to reject (``Value error, <message>``).

Each class is read once, on first use: its fields, and each annotation as a shape (a tuple) that
one walker, :func:`_check`, follows for every value. A failure raises :class:`RecordError`, whose
``errors()`` has pydantic's shape (``type``, ``loc``, ``msg``, ``input``, ``ctx``):
:func:`krmlib._config.config.validation_errors` reads both.

Why not pydantic: importing it costs about 100 ms, more than a function's whole start-up budget
(issue 17.3). pydantic stays for :meth:`KubeObject.as_model` only.
"""

from __future__ import annotations

import math
import operator
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin

T = TypeVar("T")
R = TypeVar("R", bound="Record")
Loc = tuple[str | int, ...]
ErrorDict = dict[str, Any]
Shape = tuple[Any, ...]  # an annotation as the validator reads it (_shape)


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


MISSING: Any = _Sentinel("MISSING")
_BAD: Any = _Sentinel("invalid")  # what a failed check returns, once its error is recorded


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
        self.default, self.alias, self.default_factory = default, alias, default_factory
        self.min_length, self.gt, self.ge, self.le = min_length, gt, ge, le

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
        """Each failure as a dict: ``loc`` (the path of keys), ``msg``, ``type``, ``input``."""
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
    return lambda func: typing.cast(Any, _Hook("field", mode, (name, *names), func))


def model_validator(*, mode: Literal["before", "after"]) -> Callable[[T], T]:
    """Declare ``(cls, raw) -> raw`` (``before``) or ``(self) -> self`` (``after``)."""
    return lambda func: typing.cast(Any, _Hook("model", mode, (), func))


class _Schema:
    """A Record class read once: its fields in order, their shapes and the validators."""

    def __init__(self, cls: type[Record]) -> None:
        hooks = [v for k in reversed(cls.__mro__) for v in vars(k).values() if isinstance(v, _Hook)]
        self.fields: dict[str, FieldInfo] = {}
        # per field: name, info, shape, steps (its validators; None: its type), has limits
        self.plan: list[tuple[str, FieldInfo, Shape, tuple[_Hook | None, ...], bool]] = []
        for name, annotation in typing.get_type_hints(cls).items():
            if name.startswith("_") or get_origin(annotation) is ClassVar:
                continue
            declared = getattr(cls, name, MISSING)
            if not isinstance(declared, FieldInfo):
                declared = FieldInfo(declared)
            info = FieldInfo.__new__(FieldInfo)  # a copy: a subclass may annotate it anew
            info.__dict__.update(vars(declared), name=name, annotation=annotation)
            if info.alias is None and cls.CAMEL_CASE and "_" in name.strip("_"):
                info.alias = camel_case(name)  # KRM spells fields in camelCase
            self.fields[name] = info
            mine = [h for h in hooks if name in h.names]
            before = [h for h in mine if h.mode == "before"]
            steps = (*before, None, *[h for h in mine if h.mode == "after"])
            limits = (info.min_length, info.gt, info.ge, info.le) != (None,) * 4
            self.plan.append((name, info, _shape(annotation), steps, limits))
        for hook in hooks:
            unknown = [n for n in hook.names if n not in self.fields]
            if unknown:
                raise TypeError(f"{cls.__name__}: a validator names unknown fields {unknown}")
        self.before = [h for h in hooks if h.kind == "model" and h.mode == "before"]
        self.after = [h for h in hooks if h.kind == "model" and h.mode == "after"]


def camel_case(name: str) -> str:
    """``init_containers`` → ``initContainers``: a field name as KRM spells it."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


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

    # Each snake_case field without an alias also takes its camelCase name (``init_containers``
    # reads ``initContainers``): declared once for the class. True for a FunctionConfig.
    CAMEL_CASE: ClassVar[bool] = False

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
        copy.__dict__.update(self.__dict__, **(update or {}))
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


# --- validation: one walker over the annotation, with pydantic's lax rules and messages ----------

_MESSAGES = {
    "missing": "Field required",
    "extra_forbidden": "Extra inputs are not permitted",
    "invalid_key": "Keys should be strings",
    "string_type": "Input should be a valid string",
    "int_type": "Input should be a valid integer",
    "int_parsing": "Input should be a valid integer, unable to parse string as an integer",
    "int_from_float": "Input should be a valid integer, got a number with a fractional part",
    "int_parsing_size": "Unable to parse input string as an integer, exceeded maximum size",
    "finite_number": "Input should be a finite number",
    "float_type": "Input should be a valid number",
    "float_parsing": "Input should be a valid number, unable to parse string as a number",
    "bool_type": "Input should be a valid boolean",
    "bool_parsing": "Input should be a valid boolean, unable to interpret input",
    "list_type": "Input should be a valid list",
    "tuple_type": "Input should be a valid tuple",
    "dict_type": "Input should be a valid dictionary",
}


def _error(
    errors: list[ErrorDict],
    kind: str,
    loc: Loc,
    value: Any,
    message: str = "",
    ctx: dict[str, Any] | None = None,
) -> Any:
    error = {"type": kind, "loc": loc, "msg": message or _MESSAGES[kind], "input": value}
    if ctx is not None:
        error["ctx"] = ctx
    errors.append(error)
    return _BAD


class _Invalid(Exception):
    """A scalar's check failed; args[0] is the error's type (a key of _MESSAGES)."""


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
_BOOLS = dict.fromkeys(("1", "on", "t", "true", "y", "yes"), True)
_BOOLS.update(dict.fromkeys(("0", "off", "f", "false", "n", "no"), False))


def _text(value: Any) -> Any:
    """bytes (YAML's ``!!binary``) as text, as pydantic reads them; anything else as it is."""
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            pass
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        value = _text(bytes(value) if isinstance(value, bytearray) else value)
    if isinstance(value, str):
        return value
    raise _Invalid("string_type")


def _int(value: Any) -> int:
    value = _text(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Invalid("finite_number")
        if not value.is_integer():
            raise _Invalid("int_from_float")
        if not -_I64 < value < _I64:
            raise _Invalid("int_parsing_size")
    elif isinstance(value, str):
        text = value.strip(_SPACE)
        if not _INT_TEXT.match(text):
            raise _Invalid("int_parsing")
        try:
            return int(text.partition(".")[0])
        except ValueError:  # more digits than Python reads from text
            raise _Invalid("int_parsing_size") from None
    elif not isinstance(value, int):
        raise _Invalid("int_type")
    return int(value)


def _float(value: Any) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            raise _Invalid("float_type") from None
    value = _text(value)
    if not isinstance(value, str):
        raise _Invalid("float_type")
    if _FLOAT_TEXT.match(value.strip(_SPACE)):
        return float(value)
    # Underscores between characters (none first, last or doubled), then no spaces around.
    text = value.replace("_", "")
    if value[:1] != "_" and value[-1:] != "_" and "__" not in value and _FLOAT_TEXT.match(text):
        return float(text)
    raise _Invalid("float_parsing")


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < _I64:  # not inf, nan
        value = int(value)
    if isinstance(value, int):
        if value in (0, 1):
            return value == 1
        raise _Invalid("bool_parsing" if -_I64 <= value < _I64 else "bool_type")
    value = _text(value)
    if not isinstance(value, str):
        raise _Invalid("bool_type")
    if value.lower() in _BOOLS:
        return _BOOLS[value.lower()]
    raise _Invalid("bool_parsing")


_SCALARS: dict[Any, Callable[[Any], Any]] = {str: _str, int: _int, float: _float, bool: _bool}


def _shape(annotation: Any) -> Shape:
    """An annotation as :func:`_check` reads it, ``(kind, ...)``; TypeError if not supported."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is Any:
        return ("any",)
    if origin is None and annotation in _SCALARS:
        return ("scalar", _SCALARS[annotation])
    if origin is None and isinstance(annotation, type) and issubclass(annotation, Record):
        return ("record", annotation)
    if origin is Literal:
        shown = [repr(a) for a in args]
        expected = f"{', '.join(shown[:-1])} or {shown[-1]}" if len(shown) > 1 else shown[0]
        return ("literal", args, expected)
    if origin is dict:
        return ("dict", _shape(args[0]), _shape(args[1]))
    if origin is list or (origin is tuple and args[1:] == (...,)):
        return ("sequence", origin, _shape(args[0]))
    if origin in (Union, types.UnionType):
        members = [m for m in args if m is not type(None)]
        return ("union", len(members) < len(args), tuple(_shape(m) for m in members))
    raise TypeError(f"krmlib records do not support the annotation {annotation!r}")


def _check(shape: Shape, value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    """``value`` as a field of this shape holds it, or _BAD with its errors recorded."""
    kind = shape[0]
    if kind == "scalar":
        try:
            return shape[1](value)
        except _Invalid as exc:
            return _error(errors, exc.args[0], loc, value)
    if kind == "any":
        return value
    if kind == "record":
        return _record(shape[1], value, loc, errors)
    before = len(errors)
    if kind == "literal":
        for choice in shape[1]:
            if value == choice and type(value) is type(choice):
                return choice
        message = f"Input should be {shape[2]}"
        return _error(errors, "literal_error", loc, value, message, {"expected": shape[2]})
    if kind == "dict":
        if not isinstance(value, Mapping):
            return _error(errors, "dict_type", loc, value)
        out = {}
        for raw_key, raw in value.items():
            where = (*loc, _key_loc(raw_key))
            key = _check(shape[1], raw_key, (*where, "[key]"), errors)
            item = _check(shape[2], raw, where, errors)
            if key is not _BAD and item is not _BAD:
                out[key] = item
        return _BAD if len(errors) > before else out
    if kind == "sequence":
        if not isinstance(value, list | tuple | set | frozenset):
            return _error(errors, f"{shape[1].__name__}_type", loc, value)
        items = [_check(shape[2], v, (*loc, i), errors) for i, v in enumerate(value)]
        return _BAD if len(errors) > before else shape[1](items)
    nullable, members = shape[1], shape[2]  # a union
    if value is None and nullable:
        return None
    if len(members) == 1:  # X | None: X's errors at the field itself
        return _check(members[0], value, loc, errors)
    for member in members:  # each member's errors at the field (not pydantic's type tags)
        attempt: list[ErrorDict] = []
        result = _check(member, value, loc, attempt)
        if not attempt:
            del errors[before:]
            return result
        errors += attempt
    return _BAD


def _key_loc(key: Any) -> str | int:
    return key if isinstance(key, str) else int(key) if isinstance(key, int) else str(key)


def _record(cls: type[Record], value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    schema = _schema(cls)
    for hook in schema.before:
        value = _run(hook.func, (cls, value), loc, errors, value)
        if value is _BAD:
            return _BAD
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        message = f"Input should be a valid dictionary or instance of {cls.__name__}"
        return _error(errors, "model_type", loc, value, message)
    before = len(errors)
    data: dict[str, Any] = {}
    used: set[Any] = set()
    for name, info, shape, steps, limits in schema.plan:
        key = info.alias if info.alias is not None and info.alias in value else name
        if key in value:
            used.add(key)
            raw, where = value[key], (*loc, key)  # as the input names it (by name or by alias)
        elif info.is_required():
            _error(errors, "missing", (*loc, info.alias or name), value)
            continue
        else:
            raw, where = info.get_default(), (*loc, info.alias or name)
        for step in steps:
            if step is None:  # the field's type, then its limits
                raw = _check(shape, raw, where, errors)
                if limits and raw is not _BAD:
                    raw = _limits(info, raw, where, errors)
            else:
                args = (cls, raw, ValidationInfo(data)) if step.takes_info else (cls, raw)
                raw = _run(step.func, args, where, errors, raw)
            if raw is _BAD:
                break
        else:
            data[name] = raw
    for key in value:
        if key in used:
            continue
        if isinstance(key, str):
            _error(errors, "extra_forbidden", (*loc, key), value[key])
        else:
            _error(errors, "invalid_key", (*loc, _key_loc(key)), key)
    if len(errors) > before:
        return _BAD
    record = cls.__new__(cls)
    record.__dict__.update(data)
    for hook in schema.after:
        if _run(hook.func, (record,), loc, errors, record) is _BAD:
            return _BAD
    return record


def _limits(info: FieldInfo, value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    """The value when it keeps the field's ``min_length``, ``gt``, ``ge`` and ``le``."""
    least = info.min_length
    if least is not None and len(value) < least:
        message = f"String should have at least {least} character{'' if least == 1 else 's'}"
        return _error(errors, "string_too_short", loc, value, message, {"min_length": least})
    for name, words, holds in _BOUNDS:
        bound = getattr(info, name)
        if bound is not None and not holds(value, bound):
            return _error(
                errors, name, loc, value, f"Input should be {words} {bound}", {name: bound}
            )
    return value


_BOUNDS = (
    ("gt", "greater than", operator.gt),
    ("ge", "greater than or equal to", operator.ge),
    ("le", "less than or equal to", operator.le),
)


def _run(
    func: Callable[..., Any], args: tuple[Any, ...], loc: Loc, errors: list[ErrorDict], value: Any
) -> Any:
    """A validator's result, or _BAD when it raised ValueError or AssertionError."""
    try:
        return func(*args)
    except AssertionError as exc:
        return _error(errors, "assertion_error", loc, value, f"Assertion failed, {exc}")
    except ValueError as exc:
        return _error(errors, "value_error", loc, value, f"Value error, {exc}", {"error": exc})


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
