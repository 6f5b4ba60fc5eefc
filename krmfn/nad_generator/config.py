"""The functionConfig: ``krmfn.dev/v1alpha1 NadGenerator`` or a ConfigMap (kebab-case keys)."""

from __future__ import annotations

from typing import Literal

from krmlib import FunctionConfig

Dialect = Literal["design", "nephio", "nephio-2023-05"]


class Config(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 NadGenerator``."""

    KIND = "NadGenerator"

    dialect: Dialect | None = None  # None: chosen from the package (see dialects.choose)
