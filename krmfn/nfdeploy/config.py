"""The functionConfig: ``krmfn.dev/v1alpha1 NfDeploy`` or a ConfigMap (kebab-case keys); none is
needed."""

from __future__ import annotations

from typing import Literal

from krmlib import FunctionConfig

Dialect = Literal["nephio"]


class Config(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 NfDeploy`` (nfdeploy-fn has no config)."""

    KIND = "NfDeploy"

    dialect: Dialect | None = None  # one dialect, Nephio's (R1 to today): the README's "Dialects"
