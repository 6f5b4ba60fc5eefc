"""functionConfig: a typed resource (the config's ``API_VERSION``, ``KIND``) or a ConfigMap.

Both forms are strict alike: an unknown field (``spec.x``) or key (``data.x``) is an error with a
"did you mean" suggestion, and so is a value outside an enum. The model remembers which form it
came from, so a function names a field the way the user wrote it
(:meth:`FunctionConfig.field_path`).

A config is a :class:`krmlib.Record` (:mod:`.records`), validated by krmlib: no pydantic at
start-up.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin

from krmlib.errors import ConfigError
from krmlib.paths import format_path

from .records import Record, RecordError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from krmlib.object import KubeObject

API_VERSION = "krmfn.dev/v1alpha1"
C = TypeVar("C", bound="FunctionConfig")
Form = Literal["spec", "data"]


class FunctionConfig(Record):
    """Base of every function's config.

    The typed form is ``apiVersion: <API_VERSION>``, ``kind: <KIND>`` with the fields under
    ``spec``; the ConfigMap form has one ``data`` key per field, in kebab case (``parent-kind``).
    A function names its own typed form with two class attributes::

        class Config(FunctionConfig):
            API_VERSION = "fn.example.com/v1alpha1"  # default: krmlib.API_VERSION
            KIND = "SetTeam"
            team: str

    ``--help`` and the error for a config of another kind name that ``apiVersion`` and ``kind``;
    without ``KIND`` only the ConfigMap form is accepted.
    ``CONFIGMAP_KEYS`` maps a ConfigMap key to a dotted field path for nested fields; a list field
    takes a comma-separated string, a map field ``a=b,c=d``. Subclasses set ``KIND`` and declare
    their fields (:mod:`krmlib._config.records`); defaults are validated like given values. A
    snake_case field takes its KRM camelCase name (``init_containers: list[str]`` reads
    ``spec.initContainers``; ``CAMEL_CASE = False`` turns it off; a nested :class:`Record` sets
    ``CAMEL_CASE = True`` itself), and errors name it that way.
    """

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = ""
    CAMEL_CASE: ClassVar[bool] = True  # ``init_containers`` is written ``initContainers``
    CONFIGMAP_KEYS: ClassVar[dict[str, str]] = {}
    # Keys of the ConfigMap form this config refuses (key → why), e.g. a field too rich for text.
    CONFIGMAP_REFUSED: ClassVar[dict[str, str]] = {}

    @property
    def form(self) -> Form:
        """``spec`` (typed form, or no config) or ``data`` (ConfigMap form); the form is not
        part of the config's value (equality compares the fields only)."""
        form: Form = self.__dict__.get("_form", "spec")
        return form

    def field_path(self, path: str) -> str:
        """A field (dotted, by alias: ``parent.name``, ``files[0]``) as the user writes it.

        ``spec.parent.name`` in the typed form (and when there is no config), ``data.parent-name``
        in the ConfigMap form, where a list is one key (``files[0]`` is ``data.files``).
        """
        return _in_form(type(self), path, self.form)

    @classmethod
    def configmap_keys(cls) -> dict[str, str]:
        """ConfigMap key → dotted field path (by alias)."""
        keys = {
            _kebab(info.alias or name): info.alias or name for name, info in _fields(cls).items()
        }
        keys.update(cls.CONFIGMAP_KEYS)
        for key in cls.CONFIGMAP_REFUSED:
            keys.pop(key, None)
        return keys

    @classmethod
    def configmap_key_of(cls, path: str) -> str:
        """``data.<key>`` of the ConfigMap key holding the field at ``path`` (or its parent)."""
        best = ""
        best_key = ""
        for key, target in cls.configmap_keys().items():
            if _covers(target, path) and len(target) > len(best):
                best, best_key = target, key
        if not best_key:
            head = re.split(r"[.\[]", path, maxsplit=1)[0]
            best_key = _kebab(head)
        return f"data.{best_key}"

    @classmethod
    def from_configmap(cls: type[C], data: Mapping[str, Any], obj: KubeObject | None = None) -> C:
        """The model from ConfigMap ``data`` (strings); an unknown key is an error."""
        keys = cls.configmap_keys()
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
    """``model.model_fields`` (None when it has none), read from a record class as krmlib read it
    on first use without leaving the layer's parse module (one entry per parse)."""
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
    """``model.model_validate(spec)``; a RecordError becomes one ConfigError (the only place).

    Every failure is listed as ``field: message`` with the field as the user writes it in
    ``form`` (``spec.x``, ``data.x``; bare when ``form`` is None); the first one is the result's
    field. Unknown fields and enum values get a "did you mean" suggestion.
    """
    try:
        return model.model_validate(spec)
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
    return model.configmap_key_of(path)


def parse_config(model: type[C], config: KubeObject | None) -> C:
    """The function's config from its functionConfig item; ConfigError names the field."""
    if config is None:
        return _validate(model, {}, None, "spec", "this function needs a functionConfig")
    kind, api_version = config.kind, config.api_version
    if kind == "ConfigMap" and api_version == "v1":
        data = config.get("data", {}) or {}
        if not isinstance(data, dict):
            raise ConfigError("ConfigMap data must be a map", obj=config, field="data")
        return model.from_configmap(data, config)
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


# --- failures as the user reads them: field paths, did-you-mean -----------------------------


def validation_errors(
    exc: ValidationError | RecordError, prefix: str = "", *, model: type[Any] | None = None
) -> list[tuple[str, str]]:
    """Every failure as (field path, message): the one reading of a ValidationError of
    pydantic or a RecordError of krmlib.

    With ``model``, an unknown field or enum value gets a "did you mean" suggestion.
    """
    out = []
    # a RecordError's list read in place: the parse stays in this module (one entry per parse)
    for err in exc._errors if isinstance(exc, RecordError) else exc.errors():
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
    "FunctionConfig",
    "did_you_mean",
    "field_annotation",
    "parse_config",
    "parse_config_value",
    "validation_errors",
]
