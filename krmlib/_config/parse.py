"""Everything a config's parse runs, in one module: a parse enters the layer once.

:func:`parse_config` reads the functionConfig (a typed ``<API_VERSION> <KIND>`` resource or a
ConfigMap, strict alike), the walker checks each value against its field's shape (pydantic's lax
rules and messages), and :func:`validation_errors` reads the failures as users see them: the
field as they wrote it (:meth:`FunctionConfig.field_path`), "did you mean" for a typo. The
classes are declared in :mod:`.records`, which imports this module (never the other way at run
time): a record reaches its check here, and this module reads a class through its metaclass.
"""

from __future__ import annotations

import math
import operator
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Union, get_args, get_origin

from krmlib._base.errors import ConfigError
from krmlib._base.paths import format_path

if TYPE_CHECKING:
    from pydantic import ValidationError

    from krmlib._model.object import KubeObject

    from .records import FieldInfo, FunctionConfig, Record

    C = TypeVar("C", bound="FunctionConfig")  # for the checker only: no ForwardRef at run time
    R = TypeVar("R", bound="Record")

API_VERSION = "krmfn.dev/v1alpha1"
Loc = tuple[str | int, ...]
ErrorDict = dict[str, Any]
Shape = tuple[Any, ...]  # an annotation as the walker reads it (records._shape)
Form = Literal["spec", "data"]


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


MISSING: Any = _Sentinel("MISSING")
_BAD: Any = _Sentinel("invalid")  # what a failed check returns, once its error is recorded


def configmap_keys(cls: type[FunctionConfig]) -> dict[str, str]:
    """ConfigMap key → dotted field path (by alias)."""
    keys = {_kebab(info.alias or name): info.alias or name for name, info in _fields(cls).items()}
    keys.update(cls.CONFIGMAP_KEYS)
    for key in cls.CONFIGMAP_REFUSED:
        keys.pop(key, None)
    return keys


def configmap_key_of(cls: type[FunctionConfig], path: str) -> str:
    """``data.<key>`` of the ConfigMap key holding the field at ``path`` (or its parent)."""
    best = ""
    best_key = ""
    for key, target in configmap_keys(cls).items():
        if _covers(target, path) and len(target) > len(best):
            best, best_key = target, key
    if not best_key:
        head = re.split(r"[.\[]", path, maxsplit=1)[0]
        best_key = _kebab(head)
    return f"data.{best_key}"


def from_configmap(cls: type[C], data: Mapping[str, Any], obj: KubeObject | None = None) -> C:
    """The model from ConfigMap ``data`` (strings); an unknown key is an error."""
    keys = configmap_keys(cls)
    spec: dict[str, Any] = {}
    given: dict[str, str] = {}  # field path -> the key that set it
    for raw_key, value in data.items():
        key = str(raw_key)
        if key in cls.CONFIGMAP_REFUSED:
            raise ConfigError(cls.CONFIGMAP_REFUSED[key], obj=obj, field=f"data.{key}")
        path = keys.get(key)
        if path is None:
            raise ConfigError(
                f"unknown key {key!r} in the ConfigMap config{did_you_mean(key, keys)} "
                f"(known: {', '.join(sorted(keys))})",
                obj=obj,
                field=f"data.{key}",
            )
        for other, other_key in given.items():
            if _covers(other, path) or _covers(path, other):
                raise ConfigError(
                    f"data.{other_key} and data.{key} both set "
                    f"{min(other, path, key=len)}: give one of them",
                    obj=obj,
                    field=f"data.{key}",
                )
        given[path] = key
        parts = path.split(".")
        text = "" if value is None else str(value)
        shape = get_origin(field_annotation(cls, parts))
        if shape in (list, tuple, typing.Sequence):
            parsed: Any = [part.strip() for part in text.split(",") if part.strip()]
        elif shape in (dict, typing.Mapping):
            parsed = _parse_pairs(text)
        else:
            parsed = text
        target = spec
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = parsed
    config = _validate(cls, spec, obj, "data", "invalid config")
    config.__dict__["_form"] = "data"
    return config


def _covers(target: str, path: str) -> bool:
    return path == target or path.startswith((target + ".", target + "["))


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).replace("_", "-").lower()


def _fields(model: Any) -> Any:
    """``model.model_fields`` or None, read in place for a record class already read."""
    schema = model.__dict__.get("__krm_schema__") if isinstance(model, type) else None
    return schema.fields if schema is not None else getattr(model, "model_fields", None)


def _parse_pairs(text: str) -> dict[str, str]:
    """``a=b,c=d`` as a map (ConfigMap values are strings)."""
    out: dict[str, str] = {}
    for part in text.split(","):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def _validate(model: type[C], spec: Any, obj: KubeObject | None, form: Form | None, lead: str) -> C:
    """The record, or one ConfigError (the only place) listing every failure as ``field:
    message``, the field as written in ``form`` (bare when None); the first is the result's."""
    try:
        return validated(model, spec)
    except RecordError as exc:
        problems = [
            (_in_form(model, field, form), message)
            for field, message in validation_errors(exc, model=model)
        ]
    text = "; ".join(f"{field}: {message}" if field else message for field, message in problems)
    raise ConfigError(f"{lead}: {text}" if lead else text, obj=obj, field=problems[0][0])


def _in_form(model: type[FunctionConfig], path: str, form: Form | None) -> str:
    if form is None:
        return path
    if form == "spec":
        return f"spec.{path}" if path else "spec"
    return configmap_key_of(model, path)


def parse_config(model: type[C], config: KubeObject | None) -> C:
    """The function's config from its functionConfig item; ConfigError names the field."""
    if config is None:
        return _validate(model, {}, None, "spec", "this function needs a functionConfig")
    kind, api_version = config.kind, config.api_version
    if kind == "ConfigMap" and api_version == "v1":
        data = config.get("data", {}) or {}
        if not isinstance(data, dict):
            raise ConfigError("ConfigMap data must be a map", obj=config, field="data")
        return from_configmap(model, data, config)
    if kind == model.KIND and api_version == model.API_VERSION:
        spec = config.get("spec", {})
        if spec is None:
            spec = {}
        if not isinstance(spec, dict):
            raise ConfigError("spec must be a map", obj=config, field="spec")
        return _validate(model, spec, config, "spec", "invalid config")
    raise ConfigError(
        f"functionConfig {api_version} {kind} is not accepted: expected a v1 ConfigMap or "
        f"{model.API_VERSION} {model.KIND}",
        obj=config,
        field="kind",
    )


def parse_config_value(model: type[C], value: Mapping[str, Any]) -> C:
    """A config model from plain data, as the typed form's ``spec`` (library callers, tests)."""
    return _validate(model, dict(value), None, None, "")


# --- the records' check: one walker over the shapes, with pydantic's lax rules and messages ----


class ValidationInfo:
    """What a field validator with a third parameter gets: ``data``, the fields validated so far
    (by name; a field that failed is absent)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data


class RecordError(ValueError):
    """A record failed validation; ``errors()`` lists every failure in pydantic's shape."""

    def __init__(self, model: type[Record], errors: list[ErrorDict]) -> None:
        self.model, self._errors, name = model, errors, model.__name__
        lines = [f"{'.'.join(str(k) for k in e['loc']) or name}: {e['msg']}" for e in errors]
        super().__init__(f"{len(errors)} error(s) validating {name}: " + "; ".join(lines))

    def errors(self) -> list[ErrorDict]:
        """Each failure as a dict: ``loc`` (the path of keys), ``msg``, ``type``, ``input``."""
        return list(self._errors)


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


class _Invalid(Exception): ...  # a scalar's check failed; args[0]: its type in _MESSAGES


# Unicode White_Space (what pydantic strips around a number; str.strip also strips \x1c-\x1f).
_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
# The number forms, compiled on first use (re caches them): not at start-up.
_INT_TEXT = r"[+-]?[0-9](?:_?[0-9])*(?:\.0+)?\Z"
_FLOAT_TEXT = (
    r"(?i)[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z"
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
        if not re.match(_INT_TEXT, text):
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
    if re.match(_FLOAT_TEXT, value.strip(_SPACE)):
        return float(value)
    # Underscores between characters (none first, last or doubled), then no spaces around.
    text = value.replace("_", "")
    if value[:1] != "_" and value[-1:] != "_" and "__" not in value and re.match(_FLOAT_TEXT, text):
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


SCALARS: dict[Any, Callable[[Any], Any]] = {str: _str, int: _int, float: _float, bool: _bool}


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


def _key_loc(key: Any) -> str | int:  # a key in a field path: text or a number
    return key if isinstance(key, str) else int(key) if isinstance(key, int) else str(key)


def validated(model: type[R], data: Any) -> R:
    """``model.model_validate(data)``: the record, or RecordError listing every failure."""
    errors: list[ErrorDict] = []
    value = _record(model, data, (), errors)
    if errors:
        raise RecordError(model, errors)
    assert isinstance(value, model)
    return value


def _record(cls: type[Record], value: Any, loc: Loc, errors: list[ErrorDict]) -> Any:
    schema = cls.__dict__.get("__krm_schema__") or cls._krm_schema()  # read on first use
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
        elif info.default is MISSING and info.default_factory is None:  # required
            _error(errors, "missing", (*loc, info.alias or name), value)
            continue
        else:
            factory = info.default_factory
            raw = info.default if factory is None else factory()
            where = (*loc, info.alias or name)
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
        twin = schema.fields.get(key) if isinstance(key, str) else None
        if twin is not None:  # the Python name of a field given by its alias too
            text, ctx = f"also given as {twin.alias!r}: give the field once", {"twin": twin.alias}
            _error(errors, "extra_forbidden", (*loc, key), value[key], text, ctx)
        elif isinstance(key, str):
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
    least = info.min_length  # the value when it keeps min_length, gt, ge and le
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
    try:  # a validator's result, or _BAD when it raised ValueError or AssertionError
        return func(*args)
    except AssertionError as exc:
        return _error(errors, "assertion_error", loc, value, f"Assertion failed, {exc}")
    except ValueError as exc:
        return _error(errors, "value_error", loc, value, f"Value error, {exc}", {"error": exc})


# --- failures as the user reads them: field paths, did-you-mean -----------------------------


def validation_errors(
    exc: ValidationError | RecordError, prefix: str = "", *, model: type[Any] | None = None
) -> list[tuple[str, str]]:
    """Every failure of a RecordError or pydantic ValidationError as (field path, message);
    with ``model``, "did you mean" for an unknown field or enum value."""
    out = []
    for err in exc._errors if isinstance(exc, RecordError) else exc.errors():
        loc = [k if isinstance(k, int) else str(k) for k in err["loc"]]
        field = ".".join(p for p in (prefix, format_path(loc)) if p)
        message = str(err["msg"])
        if err["type"] == "extra_forbidden" and "twin" not in (err.get("ctx") or {}):
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
        fields = _fields(current)
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
    fields = _fields(target)
    if not isinstance(target, type) or fields is None:
        return []
    return [info.alias or name for name, info in fields.items()]


__all__ = [
    "API_VERSION",
    "did_you_mean",
    "field_annotation",
    "parse_config",
    "parse_config_value",
    "validation_errors",
]
