"""krmfn-merger: merge resources into a package by group/kind + name (TKO merges).

The library call the preparer uses is :func:`merge_resources`; :func:`create_deployment` is
``krmfn deployment create``.
"""

from .api import create_deployment, merge_resources

__all__ = ["create_deployment", "merge_resources"]
