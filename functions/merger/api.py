"""The public calls: ``merge_resources`` (the library merge) and ``create_deployment``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from krmlib import Items, KubeObject, Results

from .merge import merge_planned, plan


def merge_resources(
    target: Items,
    inputs: Sequence[KubeObject],
    *,
    from_package: bool = False,
    results: Results | None = None,
    file_dir: str = "",
) -> list[KubeObject]:
    """Merge ``inputs`` into ``target`` in order (later inputs see earlier results).

    Identity is group/kind plus the name after ``nephio.org/rename`` (namespace ignored, version
    ignored). A matched resource is merged per ``nephio.org/merge``: absent or ``Override``
    merges properties (maps recursively, lists and scalars replaced, ``null`` removes the key);
    ``Replace`` replaces the whole resource in place, keeping the target's kpt annotations (file
    path, index, ids). An unmatched input is appended as a copy, in
    ``file_dir/<lower kind>_<name>.yaml``. ``from_package=True`` moves ``nephio.org/prepare``
    (Postpone→Here, Here→Never, Never stays, absent stays absent); False leaves it as it is.
    ``nephio.org/merge`` and ``nephio.org/rename`` are not carried into the result; the inputs
    themselves are never changed.

    Renames are not transitive: each input's rename names its own destination, resolved before
    any merge. A rename onto the input's own name, a cycle of renames among the inputs, or a
    rename that lands where another input lands raise :class:`krmlib.KrmError` before anything is
    changed. Inputs that land on one identity without a rename merge one after the other.

    Returns the resulting objects (merged, replaced or appended), once each, in input order.
    """
    planned = plan(inputs, from_package)
    return merge_planned(
        target, planned, from_package=from_package, results=results, file_dir=file_dir
    )


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
