"""functionConfig: a typed ``krmfn.dev/v1alpha1`` resource or a ConfigMap, into one frozen model."""

from __future__ import annotations

import re
import types
import typing
from typing import Any, ClassVar, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import ConfigError
from .models import validation_errors
from .object import KubeObject
from .results import Results

API_VERSION = "krmfn.dev/v1alpha1"
C = TypeVar("C", bound="FunctionConfig")


class FunctionConfig(BaseModel):
    """Base of every function's config.

    The typed form is ``apiVersion: krmfn.dev/v1alpha1``, ``kind: <KIND>`` with the fields under
    ``spec``; the ConfigMap form has one ``data`` key per field, in kebab case (``parent-kind``).
    ``CONFIGMAP_KEYS`` maps a ConfigMap key to a dotted field path for nested fields; a list field
    takes a comma-separated string. Subclasses set ``KIND`` and declare their fields.
    """

    # defer_build: the validator is built on first validation, not at import (start-up time).
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = ""
    CONFIGMAP_KEYS: ClassVar[dict[str, str]] = {}

    @classmethod
    def configmap_keys(cls) -> dict[str, str]:
        """ConfigMap key → dotted field path (by alias)."""
        keys = {
            _kebab(info.alias or name): info.alias or name
            for name, info in cls.model_fields.items()
        }
        keys.update(cls.CONFIGMAP_KEYS)
        return keys

    @classmethod
    def from_configmap(
        cls: type[C],
        data: dict[str, Any],
        results: Results | None = None,
        obj: KubeObject | None = None,
    ) -> C:
        """The model from ConfigMap ``data`` (strings); unknown keys are warnings."""
        keys = cls.configmap_keys()
        spec: dict[str, Any] = {}
        origin: dict[str, str] = {}
        for key, value in data.items():
            path = keys.get(str(key))
            if path is None:
                if results is not None:
                    results.warning(
                        f"unknown key {key!r} in the ConfigMap config "
                        f"(known: {', '.join(sorted(keys))})",
                        obj,
                        f"data.{key}",
                    )
                continue
            parts = path.split(".")
            text = "" if value is None else str(value)
            if _is_list_field(cls, parts):
                parsed: Any = [part.strip() for part in text.split(",") if part.strip()]
            elif _is_map_field(cls, parts):
                parsed = _parse_pairs(text)
            else:
                parsed = text
            target = spec
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = parsed
            origin[path] = f"data.{key}"
        try:
            return cls.model_validate(spec)
        except ValidationError as exc:
            field, message = validation_errors(exc)[0]
            where = next(
                (
                    key
                    for path, key in origin.items()
                    if field == path or field.startswith(path + "[")
                ),
                f"data.{field}",
            )
            raise ConfigError(f"invalid config: {where}: {message}", obj=obj, field=where) from None


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).replace("_", "-").lower()


def _field_annotation(model: type[BaseModel], parts: list[str]) -> Any:
    current: Any = model
    annotation: Any = None
    for part in parts:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = next(
            (i for n, i in current.model_fields.items() if part in (i.alias or n, n)),
            None,
        )
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


def _is_list_field(model: type[BaseModel], parts: list[str]) -> bool:
    return get_origin(_field_annotation(model, parts)) in (list, tuple, typing.Sequence)


def _is_map_field(model: type[BaseModel], parts: list[str]) -> bool:
    return get_origin(_field_annotation(model, parts)) in (dict, typing.Mapping)


def _parse_pairs(text: str) -> dict[str, str]:
    """``a=b,c=d`` as a map (ConfigMap values are strings)."""
    out: dict[str, str] = {}
    for part in text.split(","):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def parse_config(model: type[C], config: KubeObject | None, results: Results) -> C:
    """The function's config from its functionConfig item; ConfigError names the field."""
    if config is None:
        return _defaults(model)
    kind, api_version = config.kind, config.api_version
    if kind == "ConfigMap" and api_version == "v1":
        data = config.get("data", {}) or {}
        if not isinstance(data, dict):
            raise ConfigError("ConfigMap data must be a map", obj=config, field="data")
        if not data:
            return _defaults(model)
        return model.from_configmap(data, results, config)
    if kind == model.KIND and api_version == model.API_VERSION:
        spec = config.get("spec", {})
        if spec is None:
            spec = {}
        if not isinstance(spec, dict):
            raise ConfigError("spec must be a map", obj=config, field="spec")
        try:
            return model.model_validate(spec)
        except ValidationError as exc:
            errors = validation_errors(exc, "spec")
            message = "; ".join(f"{f}: {m}" for f, m in errors)
            raise ConfigError(
                f"invalid config: {message}", obj=config, field=errors[0][0]
            ) from None
    raise ConfigError(
        f"functionConfig {api_version} {kind} is not accepted: expected a v1 ConfigMap or "
        f"{model.API_VERSION} {model.KIND}",
        obj=config,
        field="kind",
    )


def _defaults(model: type[C]) -> C:
    """The config with every default (no validator is built when nothing is required)."""
    if not any(field.is_required() for field in model.model_fields.values()):
        return model.model_construct()
    try:
        return model()
    except ValidationError as exc:
        errors = validation_errors(exc, "spec")
        raise ConfigError(
            f"this function needs a functionConfig: {'; '.join(f'{f}: {m}' for f, m in errors)}",
            field=errors[0][0],
        ) from None


def parse_config_value(model: type[C], value: dict[str, Any]) -> C:
    """A config model from plain data (for library callers and tests)."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        errors = validation_errors(exc)
        raise ConfigError("; ".join(f"{f}: {m}" for f, m in errors), field=errors[0][0]) from None


__all__ = ["API_VERSION", "FunctionConfig", "parse_config", "parse_config_value"]
