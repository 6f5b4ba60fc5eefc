"""The public calls: ``merge_resources`` (the library merge, from :mod:`krmfn.tko`) and
``create_deployment``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from krmfn.tko import merge_resources


def create_deployment(
    template_dir: Path,
    merge_files: Sequence[Path],
    out_dir: Path,
    *,
    site_id: str | None = None,
) -> None:
    """``krmfn deployment create``: a new deployment package from a template plus merges."""
    from .deployment import create

    create(Path(template_dir), [Path(p) for p in merge_files], Path(out_dir), site_id=site_id)


__all__ = ["create_deployment", "merge_resources"]
