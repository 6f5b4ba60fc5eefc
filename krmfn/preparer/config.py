"""The preparer's functionConfig: plugins by GVK, the pass cap and the catalog."""

from __future__ import annotations

from typing import ClassVar, Literal

from krmlib import Field, FunctionConfig, Record, model_validator

BUILTINS = ("placement", "site", "sites", "template", "tosca")
Builtin = Literal["placement", "site", "sites", "template", "tosca"]
RUNNERS = ("exec", "python", "builtin", "image")
MAX_TIMEOUT = 86400  # seconds: a day


class PluginSpec(Record):
    """One preparation plugin, triggered by resources of ``apiVersion``/``kind``."""

    api_version: str = Field(alias="apiVersion", min_length=1)
    kind: str = Field(min_length=1)
    # TKO's plugin types: prepare (the default), validate (TKO's command executor only);
    # schedule has no counterpart here and is refused
    plugin_type: Literal["prepare", "validate", "schedule"] = Field(default="prepare", alias="type")
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


class Config(FunctionConfig):
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
