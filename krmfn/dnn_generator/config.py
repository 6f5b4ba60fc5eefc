"""The functionConfig: ``krmfn.dev/v1alpha1 DnnGenerator`` or a ConfigMap; none is needed."""

from __future__ import annotations

from krmlib import FunctionConfig


class Config(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 DnnGenerator`` (no fields: Nephio's dnn-fn has none)."""

    KIND = "DnnGenerator"
