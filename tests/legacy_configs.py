"""The function configs as they were before krmlib validated them itself: pydantic models.

A frozen copy of krmlib/config.py and functions/*/config.py at the commit before the change
(91e0729), kept only so that tests/test_config_differential.py can check the krmlib config
layer against it, input by input. Not used by the functions.
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, TypeVar, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from krmlib import ConfigError, KubeObject, label_key_problem, label_value_problem
from krmlib.models import did_you_mean, field_annotation, validation_errors

API_VERSION = "krmfn.dev/v1alpha1"
C = TypeVar("C", bound="FunctionConfig")
Form = Literal["spec", "data"]


class FunctionConfig(BaseModel):
    """Base of every function's config.

    The typed form is ``apiVersion: krmfn.dev/v1alpha1``, ``kind: <KIND>`` with the fields under
    ``spec``; the ConfigMap form has one ``data`` key per field, in kebab case (``parent-kind``).
    ``CONFIGMAP_KEYS`` maps a ConfigMap key to a dotted field path for nested fields; a list field
    takes a comma-separated string, a map field ``a=b,c=d``. Subclasses set ``KIND`` and declare
    their fields; defaults are validated like given values.
    """

    # defer_build: the validator is built on first validation, not at import (start-up time).
    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, defer_build=True, validate_default=True
    )

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = ""
    CONFIGMAP_KEYS: ClassVar[dict[str, str]] = {}
    # Keys of the ConfigMap form this config refuses (key → why), e.g. a field too rich for text.
    CONFIGMAP_REFUSED: ClassVar[dict[str, str]] = {}

    _form: Form = PrivateAttr(default="spec")

    def __eq__(self, other: object) -> bool:
        """Equal when the fields are: the form a config came from is not part of its value."""
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, FunctionConfig)
        return self.__dict__ == other.__dict__

    __hash__ = BaseModel.__hash__

    @property
    def form(self) -> Form:
        """``spec`` (typed form, or no config) or ``data`` (ConfigMap form)."""
        return self._form

    def field_path(self, path: str) -> str:
        """A field (dotted, by alias: ``parent.name``, ``files[0]``) as the user writes it.

        ``spec.parent.name`` in the typed form (and when there is no config), ``data.parent-name``
        in the ConfigMap form, where a list is one key (``files[0]`` is ``data.files``).
        """
        if self._form == "spec":
            return f"spec.{path}" if path else "spec"
        return self.configmap_key_of(path)

    @classmethod
    def configmap_keys(cls) -> dict[str, str]:
        """ConfigMap key → dotted field path (by alias)."""
        keys = {
            _kebab(info.alias or name): info.alias or name
            for name, info in cls.model_fields.items()
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
        config = _validate(cls, spec, obj, "data", "invalid config")
        config._form = "data"
        return config


def _covers(target: str, path: str) -> bool:
    return path == target or path.startswith((target + ".", target + "["))


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).replace("_", "-").lower()


def _is_list_field(model: type[BaseModel], parts: list[str]) -> bool:
    return get_origin(field_annotation(model, parts)) in (list, tuple, typing.Sequence)


def _is_map_field(model: type[BaseModel], parts: list[str]) -> bool:
    return get_origin(field_annotation(model, parts)) in (dict, typing.Mapping)


def _parse_pairs(text: str) -> dict[str, str]:
    """``a=b,c=d`` as a map (ConfigMap values are strings)."""
    out: dict[str, str] = {}
    for part in text.split(","):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def _validate(model: type[C], spec: Any, obj: KubeObject | None, form: Form | None, lead: str) -> C:
    """``model.model_validate(spec)``; a ValidationError becomes one ConfigError (the only place).

    Every failure is listed as ``field: message`` with the field as the user writes it in
    ``form`` (``spec.x``, ``data.x``; bare when ``form`` is None); the first one is the result's
    field. Unknown fields and enum values get a "did you mean" suggestion.
    """
    try:
        return model.model_validate(spec)
    except ValidationError as exc:
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


# --- functions/applyset_labeler/config.py --------------------------------------------


PREFIXES = ("applyset.kubernetes.io", "applyset.k8s.io")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class ParentRef(_Frozen):
    """The ApplySet parent: a ConfigMap, a Secret or a custom resource."""

    api_version: str = Field("v1", alias="apiVersion")
    kind: str = "Secret"
    name: str = ""
    namespace: str = ""

    @property
    def group(self) -> str:
        return self.api_version.rsplit("/", 1)[0] if "/" in self.api_version else ""

    @property
    def group_kind(self) -> str:
        return f"{self.kind}.{self.group}" if self.group else self.kind

    @field_validator("kind")
    @classmethod
    def _kind_set(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        if value == "Kptfile":
            raise ValueError(
                "the Kptfile is kpt's package file, never applied to a cluster: it cannot be the "
                "ApplySet parent (use a ConfigMap, a Secret or a custom resource)"
            )
        return value

    @field_validator("api_version")
    @classmethod
    def _api_version_form(cls, value: str) -> str:
        group, _, version = value.rpartition("/")
        if not version or (value.count("/") > 1) or ("/" in value and not group):
            raise ValueError(f"must be <version> or <group>/<version>, got {json.dumps(value)}")
        return value


class OwnerReferences(_Frozen):
    """ownerReferences to the parent on the members (only where Kubernetes allows them)."""

    uid: str
    controller: bool = False
    block_owner_deletion: bool = Field(False, alias="blockOwnerDeletion")


class ApplysetConfig(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 ApplySet``."""

    KIND = "ApplySet"
    CONFIGMAP_KEYS: ClassVar[dict[str, str]] = {
        "parent-api-version": "parent.apiVersion",
        "parent-kind": "parent.kind",
        "parent-name": "parent.name",
        "parent-namespace": "parent.namespace",
        "owner-uid": "ownerReferences.uid",
        "owner-controller": "ownerReferences.controller",
    }

    parent: ParentRef = Field(default_factory=lambda: ParentRef.model_validate({}))
    mode: Literal["managed", "kubectl"] = "managed"
    tooling: str = ""
    tool_labels: dict[str, str] = Field(default_factory=dict, alias="toolLabels")
    key_prefix: Literal["applyset.kubernetes.io", "applyset.k8s.io"] = Field(
        "applyset.kubernetes.io", alias="keyPrefix"
    )
    cluster_scoped_kinds: list[str] = Field(default_factory=list, alias="clusterScopedKinds")
    owner_references: OwnerReferences | None = Field(None, alias="ownerReferences")
    live_objects: list[dict[str, Any]] | str | None = Field(None, alias="liveObjects")
    force: bool = False
    kubectl_version: str = Field("v1.32", alias="kubectlVersion")

    @field_validator("tooling")
    @classmethod
    def _tooling_form(cls, value: str, info: ValidationInfo) -> str:
        if value and ("/" not in value or value.startswith("/") or value.endswith("/")):
            raise ValueError(f"must be <name>/<version>, got {value!r}")
        if value and info.data.get("mode") == "kubectl" and not value.startswith("kubectl/"):
            raise ValueError(
                f"kubectl mode needs kubectl/<version> (kubectl refuses a parent whose tooling "
                f"is another tool's), got {value!r}"
            )
        return value

    @field_validator("tool_labels")
    @classmethod
    def _tool_labels_valid(cls, value: dict[str, str]) -> dict[str, str]:
        for key, text in value.items():
            problem = label_key_problem(key)
            if problem is not None:
                raise ValueError(f"the label key {json.dumps(key)} is not valid: {problem}")
            problem = label_value_problem(text)
            if problem is not None:
                raise ValueError(f"the value of {key}, {json.dumps(text)}, is not valid: {problem}")
        return value

    @field_validator("key_prefix", mode="before")
    @classmethod
    def _strip_slash(cls, value: Any) -> Any:
        return value.rstrip("/") if isinstance(value, str) else value

    @field_validator("key_prefix")
    @classmethod
    def _kubectl_prefix(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("mode") == "kubectl" and value != "applyset.kubernetes.io":
            raise ValueError(
                f"kubectl mode needs applyset.kubernetes.io (kubectl reads only that prefix), "
                f"got {value!r}"
            )
        return value

    def effective_tooling(self) -> str:
        if self.tooling:
            return self.tooling
        return f"kubectl/{self.kubectl_version}" if self.mode == "kubectl" else "krmfn/v1"

    def key(self, name: str) -> str:
        return f"{self.key_prefix}/{name}"


# --- functions/interface_expander/config.py ------------------------------------------


Dialect = Literal["design", "nephio", "nephio-2023-05", "nephio-r1"]


class InterfaceExpanderConfig(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 InterfaceExpander``."""

    KIND = "InterfaceExpander"

    dialect: Dialect | None = None  # None: chosen from the package (see dialect_choice)
    network_instance_namespace: str = Field("default", alias="networkInstanceNamespace")
    keep_local_config: bool = Field(False, alias="keepLocalConfig")

    @field_validator("network_instance_namespace")
    @classmethod
    def _namespace_set(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        return value


# --- functions/merger/config.py ------------------------------------------------------


class MergerConfig(FunctionConfig):
    """What to merge into the package.

    ``resources``: inline resources, merged first, in order. ``files``: YAML files or folders
    (exec mode), relative to the package folder, merged after them. ``fromPackage``: the inputs
    come from another package, so their ``nephio.org/prepare`` moves on.
    """

    KIND = "Merge"
    CONFIGMAP_REFUSED: ClassVar[dict[str, str]] = {
        "resources": "resources cannot be given in the ConfigMap form: use files, or the typed "
        "krmfn.dev/v1alpha1 Merge config with spec.resources",
    }

    resources: list[dict[str, Any]] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    from_package: bool = Field(default=False, alias="fromPackage")


# --- functions/preparer/config.py ----------------------------------------------------


BUILTINS = ("placement", "site", "sites", "template", "tosca")
Builtin = Literal["placement", "site", "sites", "template", "tosca"]
RUNNERS = ("exec", "python", "builtin", "image")
MAX_TIMEOUT = 86400  # seconds: a day


class PluginSpec(BaseModel):
    """One preparation plugin, triggered by resources of ``apiVersion``/``kind``."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    api_version: str = Field(alias="apiVersion", min_length=1)
    kind: str = Field(min_length=1)
    plugin_type: Literal["prepare", "validate", "schedule"] = Field(
        default="prepare", alias="type"
    )  # issue 28: TKO's plugin types
    exec: str | None = None
    python: str | None = None
    builtin: Builtin | None = None
    image: str | None = None
    protocol: Literal["krm", "tko"] = "krm"
    timeout: float = Field(default=60.0, gt=0)
    properties: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_runner(self) -> PluginSpec:
        given = [k for k in RUNNERS if getattr(self, k)]
        if len(given) != 1:
            raise ValueError("set exactly one of exec, python, builtin, image")
        if self.protocol == "tko" and not self.exec:
            raise ValueError("protocol tko is for exec plugins (TKO's command executor)")
        if not self.timeout <= MAX_TIMEOUT:  # .inf: a deadline no clock reaches
            raise ValueError(f"timeout must be a number of seconds up to {MAX_TIMEOUT} (a day)")
        if self.plugin_type == "schedule":
            raise ValueError(
                "type schedule: TKO's schedule plugins run in its meta-scheduler on site "
                "packages, which krmfn does not have; krmfn runs prepare and validate plugins"
            )
        if self.plugin_type == "validate" and not (self.exec and self.protocol == "tko"):
            raise ValueError(
                "type validate: a validate plugin runs TKO's command executor (exec with "
                "protocol: tko), as TKO runs them"
            )
        return self

    @property
    def label(self) -> str:
        how = self.exec or self.python or self.image or f"builtin {self.builtin}"
        return f"{self.kind} plugin ({how})"


class PreparerConfig(FunctionConfig):
    """``krmfn.dev/v1alpha1 Preparer``."""

    KIND: ClassVar[str] = "Preparer"
    CONFIGMAP_KEYS: ClassVar[dict[str, str]] = {
        "max-iterations": "maxIterations",
        "catalog": "catalog",
        "auto-approve": "autoApprove",
    }

    plugins: tuple[PluginSpec, ...] = ()
    max_iterations: int = Field(default=16, alias="maxIterations", ge=1, le=1000)
    catalog: str = ""
    auto_approve: bool = Field(default=True, alias="autoApprove")


# --- functions/topology_to_pvs/config.py ---------------------------------------------


NF_TYPES = ("upf", "smf", "amf")
PLACEHOLDERS = ("topology", "instance")

TargetSelector = Literal["repositorySelector", "objectSelector"]
RevisionType = Literal["string", "integer", "asWritten"]
CapacityMode = Literal["packageContext", "capacityResource", "annotations", "none"]


class WaitRule(BaseModel):
    """``waiter`` instances are not published before their connected ``waitsFor`` instances.

    The ConfigMap form writes one rule as ``waiter:waitsFor`` (``smf:upf``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    waiter: Literal["upf", "smf", "amf"]
    waits_for: Literal["upf", "smf", "amf"] = Field(alias="waitsFor")

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            waiter, sep, waits_for = value.partition(":")
            if not sep:
                raise ValueError(f"a wait rule is written waiter:waitsFor (smf:upf), not {value!r}")
            return {"waiter": waiter.strip(), "waitsFor": waits_for.strip()}
        return value

    @model_validator(mode="after")
    def _not_self(self) -> WaitRule:
        if self.waiter == self.waits_for:
            raise ValueError(f"a {self.waiter} cannot wait for its own type")
        return self


class TopologyToPvsConfig(FunctionConfig):
    """Options of krmfn-topology-to-pvs (all optional)."""

    KIND = "TopologyToPVS"

    target_selector: TargetSelector = Field(default="repositorySelector", alias="targetSelector")
    revision_type: RevisionType = Field(default="integer", alias="revisionType")
    list_planned: bool = Field(default=False, alias="listPlanned")
    wait_rules: tuple[WaitRule, ...] = Field(
        default=(WaitRule(waiter="smf", waitsFor="upf"),), alias="waitRules"
    )
    capacity_mode: CapacityMode = Field(default="packageContext", alias="capacityMode")
    approval_policy: str = Field(default="", alias="approvalPolicy")
    downstream_package: str = Field(default="", alias="downstreamPackage")
    adoption_policy: Literal["adoptNone", "adoptExisting", ""] = Field(
        default="", alias="adoptionPolicy"
    )

    @field_validator("downstream_package")
    @classmethod
    def _placeholders(cls, value: str) -> str:
        unknown = set(re.findall(r"\{([^}]*)\}", value)) - set(PLACEHOLDERS)
        if unknown:
            raise ValueError(
                f"unknown placeholder {{{sorted(unknown)[0]}}}: write {{topology}} or {{instance}}"
            )
        return value
