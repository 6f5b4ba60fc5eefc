"""The function's config: ``krmfn.dev/v1alpha1 Merge`` or a ConfigMap."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from krmlib import ConfigError, FunctionConfig, KubeObject, Results


class Config(FunctionConfig):
    """What to merge into the package.

    ``resources``: inline resources, merged first, in order. ``files``: YAML files or folders
    (exec mode), relative to the package folder, merged after them. ``fromPackage``: the inputs
    come from another package, so their ``nephio.org/prepare`` moves on.
    """

    KIND = "Merge"

    resources: list[dict[str, Any]] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    from_package: bool = Field(default=False, alias="fromPackage")

    @classmethod
    def configmap_keys(cls) -> dict[str, str]:
        keys = super().configmap_keys()
        keys.pop("resources", None)
        return keys

    @classmethod
    def from_configmap(
        cls,
        data: dict[str, Any],
        results: Results | None = None,
        obj: KubeObject | None = None,
    ) -> Config:
        if "resources" in data:
            raise ConfigError(
                "resources cannot be given in the ConfigMap form: use files, or the typed "
                "krmfn.dev/v1alpha1 Merge config with spec.resources",
                obj=obj,
                field="data.resources",
            )
        return super().from_configmap(data, results, obj)
