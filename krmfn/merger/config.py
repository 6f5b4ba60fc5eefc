"""The function's config: ``krmfn.dev/v1alpha1 Merge`` or a ConfigMap."""

from __future__ import annotations

from typing import Any, ClassVar

from krmlib import Field, FunctionConfig


class Config(FunctionConfig):
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
