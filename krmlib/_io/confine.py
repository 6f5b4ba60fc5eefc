"""Confinement: where a command may write and read (inside the package tree, the command's
root, the folders the user allows), the rules SECURITY.md states.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from krmlib._base.errors import KrmError
from krmlib._base.pkgpath import check_relative_path

from . import tree as _tree

if TYPE_CHECKING:
    from pathlib import Path


def _path(value: str | os.PathLike[str]) -> Path:
    """``Path(value)``: pathlib (with urllib.parse and ipaddress, about 2 ms) is imported on the
    first path a run uses, not at every function's start-up."""
    from pathlib import Path

    return Path(value)


ALLOW_READ_ENV = "KRMFN_ALLOW_READ"
KPTFILE = "Kptfile"
_REFUSED_TREES = ("/proc", "/sys", "/dev")

read_file_text = _tree.read_file_text


def safe_target(root: Path, rel: str) -> Path:
    """``root/rel`` to write or remove, after checking that it stays inside ``root``: ``rel`` is
    a clean relative path, and no existing part of it is a symbolic link leaving ``root`` (the
    file itself must not be a link at all)."""
    clean = check_relative_path(rel)
    base = _path(root).resolve()
    target = base / clean
    if target.is_symlink():
        raise KrmError(f"{clean}: a symbolic link; refused to write through it")
    if not target.resolve().is_relative_to(base):
        raise KrmError(f"{clean}: leaves {root} through a symbolic link; refused")
    return target


def package_tree_root(folder: Path) -> Path:
    """The outermost folder of the package tree ``folder`` belongs to: ``folder`` and each
    parent as long as the parent has a Kptfile too (kpt's nested packages)."""
    current = _path(folder).resolve()
    while current.parent != current and (current.parent / KPTFILE).is_file():
        current = current.parent
    return current


_COMMAND_ROOTS: ContextVar[tuple[Path, ...]] = ContextVar("krmfn_command_roots", default=())


@contextmanager
def command_read_root(*roots: Path) -> Iterator[None]:
    """Within the block, files under ``roots`` may be read too: the folders the person running a
    command named on its command line (``krmfn prepare-all ROOT``, ``--catalog DIR``)."""
    token = _COMMAND_ROOTS.set(_COMMAND_ROOTS.get() + tuple(_path(r).resolve() for r in roots))
    try:
        yield
    finally:
        _COMMAND_ROOTS.reset(token)


def read_roots(package_folder: Path | str | None) -> list[Path]:
    """Where a function may read the files its config names: the package tree of the package
    folder kpt gives (``package-path``), else the working directory."""
    if package_folder:
        return [package_tree_root(_path(package_folder))]
    return [_path(os.getcwd()).resolve()]


def allowed_read_roots(roots: Sequence[Path], environ: dict[str, str] | None = None) -> list[Path]:
    """Where named files may be read from: ``roots`` (the package tree, the command's root) and
    every path of ``KRMFN_ALLOW_READ`` (``os.pathsep``-separated, set by the person running the
    command; relative paths from the working directory)."""
    env = os.environ if environ is None else environ
    extra = [_path(p) for p in env.get(ALLOW_READ_ENV, "").split(os.pathsep) if p.strip()]
    return [p.resolve() for p in [*roots, *_COMMAND_ROOTS.get(), *extra]]


def check_readable(path: Path, roots: Sequence[Path], what: str) -> Path:
    """``path`` after symbolic links, if it lies inside one of ``roots`` (see
    :func:`allowed_read_roots`); else an error telling how to allow it."""
    resolved = _path(path).resolve()
    if any(resolved.is_relative_to(tree) for tree in _REFUSED_TREES):
        raise KrmError(f"{what} {path}: a special file system ({resolved}); refused")
    allowed = allowed_read_roots(roots)
    if not any(resolved == r or resolved.is_relative_to(r) for r in allowed):
        where = " or ".join(str(r) for r in allowed[: len(roots)]) or "(none)"
        raise KrmError(
            f"{what} {path} resolves to {resolved}, outside {where}; a config may only name "
            f"files inside the package tree or the command's root. To allow it, the person "
            f"running the command sets {ALLOW_READ_ENV}={resolved.parent}"
        )
    return resolved


def read_named_file(path: Path, roots: Sequence[Path], what: str) -> str:
    """The text of a file a config names: confined to ``roots`` (after symbolic links), a regular
    file, within the input cap."""
    resolved = check_readable(path, roots, what)
    return read_file_text(resolved, f"{what} {path}")
