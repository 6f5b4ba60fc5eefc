"""The public calls: ``merge_resources`` (the library merge, from :mod:`krmfn.tko`) and
``create_deployment``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from krmfn.tko import merge_resources
from krmlib import KubeObject


def create_deployment(
    template: str | Path,
    merge_files: Sequence[Path],
    out_dir: Path,
    *,
    site_id: str | None = None,
    parent: Path | None = None,
    metadata: Mapping[str, str] | None = None,
    prepared: bool = False,
    approved: bool = False,
    catalog: Path | None = None,
    merge_objects: Sequence[KubeObject] = (),
) -> None:
    """``krmfn deployment create``: a new deployment package from a template (a folder, or a
    catalog id with ``catalog``) plus merges, with TKO's options."""
    from .deployment import CreateOptions, create

    options = CreateOptions(
        merge_files=[Path(p) for p in merge_files],
        merge_objects=merge_objects,
        site_id=site_id,
        parent=parent,
        metadata=dict(metadata or {}),
        prepared=prepared,
        approved=approved,
        catalog=catalog,
    )
    create(template, Path(out_dir), options)


__all__ = ["create_deployment", "merge_resources"]
