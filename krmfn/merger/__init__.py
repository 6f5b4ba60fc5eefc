"""krmfn-merger: merge resources into a package by group/kind + name (TKO merges).

The library call the preparer uses is :func:`merge_resources`; :func:`create_deployment` is
``krmfn deployment create``. Both load on first use: a KRM run of the function does not import
the deployment commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import create_deployment, merge_resources

__all__ = ["create_deployment", "merge_resources"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import api

    return getattr(api, name)
