"""The functionConfig: ``krmfn.dev/v1alpha1 NfDeploy`` or a ConfigMap; none is needed."""

from __future__ import annotations

from krmlib import FunctionConfig


class Config(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 NfDeploy`` (no fields: Nephio's nfdeploy-fn has none)."""

    KIND = "NfDeploy"
