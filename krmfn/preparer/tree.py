"""A package tree on disk, for ``krmfn prepare-all``: its deployment packages, children first."""

from __future__ import annotations

from pathlib import Path

from krmfn.tko import preparer_step
from krmlib.packages import kptfile_folders


def packages_under(
    root: Path, skip: Path | None, unlistable: list[tuple[Path, str]] | None = None
) -> list[Path]:
    """Every folder with a Kptfile under ``root`` (``skip``, hidden folders and symbolic links
    left out, as SECURITY.md promises: ``krmlib.packages.kptfile_folders``), children before parents
    (kpt renders subpackages first). A folder that cannot be listed goes to ``unlistable`` with the
    system's reason (raised as ``UnlistableFolder`` without the list)."""
    found = kptfile_folders(root, skip, unlistable)  # krmlib's tree rules: no links or hidden
    return sorted(found, key=lambda p: (-len(p.parts), str(p)))


__all__ = ["packages_under", "preparer_step"]
