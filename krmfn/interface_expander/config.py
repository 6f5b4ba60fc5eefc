"""The functionConfig: ``krmfn.dev/v1alpha1 InterfaceExpander`` or a ConfigMap (kebab-case keys)."""

from __future__ import annotations

from typing import Literal

from krmlib import Field, FunctionConfig, field_validator

Dialect = Literal["design", "nephio", "nephio-2023-05", "nephio-r1"]


class Config(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 InterfaceExpander``."""

    KIND = "InterfaceExpander"

    dialect: Dialect | None = None  # None: chosen from the package (see dialect_choice)
    network_instance_namespace: str = Field(default="default", alias="networkInstanceNamespace")
    keep_local_config: bool = Field(default=False, alias="keepLocalConfig")

    @field_validator("network_instance_namespace")
    @classmethod
    def _namespace_set(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        return value
