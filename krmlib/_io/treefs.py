"""The one way the tree commands open a file or list a folder of a package tree.

``krmfn prepare-all`` (and ``--check``), ``krmfn deployments list``, ``krmfn deployment create``
and ``approve``, the catalog and the merger's folders read package trees that anyone with write
access to the repository shapes. Every file and folder of such a tree is reached through this
module, which keeps the promises of SECURITY.md ("Package trees on disk"):

- **symbolic links are not followed**: a link, to a file or to a folder, is left out of a
  listing, and a file is opened with ``O_NOFOLLOW`` (a link swapped in after the listing is
  refused, never read through);
- **hidden files and folders are left out** (a name starting with ``.``: ``.git``, ``.github``);
- **regular files only**: a FIFO, a socket or a device is refused when opened, without blocking
  (``O_NONBLOCK``, then ``fstat``);
- **a size cap**: a file over :data:`MAX_TREE_FILE` bytes is refused from its size, before a byte
  of it is read;
- **a folder that cannot be listed is an error** naming it (:class:`UnlistableFolder`), never
  skipped: a tree read in part would be prepared or listed as if whole.

kpt itself reads hidden files and reads through links to files (a link to a folder it does not
follow); the tree commands do not. Both rule sets are stated here, once: :func:`entries` and
:func:`is_file` take ``kpt=True`` for what kpt reads (``krmlib/_io/reader.py``'s
``package_files``), and :func:`walk` is the one walker of package trees (every tree command
lists folders through it; ``tests/test_tree_walkers.py`` counts the walkers left in krmfn).
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from krmlib._base.errors import KrmError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

MAX_TREE_FILE = 32 * 1024 * 1024
"""The largest file of a package tree the tree commands read, in bytes (32 MiB: a Kubernetes
object is at most 1.5 MiB in etcd; a file past this is refused from its size)."""

KPTFILE = "Kptfile"


class TreeError(KrmError):
    """A file or folder of a package tree the tree commands refuse to read."""


class UnlistableFolder(TreeError):
    """A folder of the tree that cannot be listed (permissions, an I/O error): the tree would
    be read in part, so the command stops with this error instead. ``folder`` and ``reason``
    (the system's words) name it for a caller that reports every such folder."""

    folder = ""
    reason = ""


def is_hidden(name: str) -> bool:
    """A hidden file or folder: its name starts with ``.``."""
    return name.startswith(".")


def entries(folder: str | os.PathLike[str], *, kpt: bool = False) -> list[os.DirEntry[str]]:
    """The entries of ``folder``, by name: under the tree rules, hidden ones and symbolic links
    left out, :class:`UnlistableFolder` when it cannot be listed; under kpt's rules
    (``kpt=True``), every entry, a :class:`KrmError` when it cannot be listed."""
    try:
        with os.scandir(folder) as listing:
            if kpt:
                found = list(listing)
            else:
                found = [e for e in listing if not is_hidden(e.name) and not e.is_symlink()]
    except OSError as exc:
        if kpt:
            raise KrmError(f"cannot read the folder {os.fspath(folder)}: {exc.strerror}") from None
        error = UnlistableFolder(
            f"cannot list the folder {os.fspath(folder)}: {exc.strerror}; the tree is not read "
            "in part"
        )
        error.folder, error.reason = os.fspath(folder), exc.strerror or str(exc)
        raise error from None
    return sorted(found, key=lambda e: e.name)


def is_folder(entry: os.DirEntry[str]) -> bool:
    """A folder, not a link to one (neither rule set follows a link to a folder)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def is_file(entry: os.DirEntry[str], *, kpt: bool = False) -> bool:
    """A regular file, not a link to one; under kpt's rules (``kpt=True``) a link to a regular
    file too (kpt reads through links to files)."""
    try:
        return entry.is_file(follow_symlinks=kpt)
    except OSError:
        return False


def walk(
    root: str | os.PathLike[str], unlistable: list[tuple[Path, str]] | None = None
) -> Iterator[tuple[Path, list[str], list[str]]]:
    """``os.walk`` under the tree rules, top down: (folder, its folders, its regular files),
    hidden entries and links left out, names sorted. The caller may prune the folder list in
    place. :class:`UnlistableFolder` for a folder that cannot be listed, or, given
    ``unlistable``, each such folder and the reason appended there and the walk goes on (a
    command that names every one of them, then fails)."""
    from pathlib import Path  # the tree commands only: not a start-up cost

    pending = [Path(root)]
    while pending:
        folder = pending.pop()
        try:
            found = entries(folder)
        except UnlistableFolder as exc:
            if unlistable is None:
                raise
            unlistable.append((folder, exc.reason))
            continue
        folders = [e.name for e in found if is_folder(e)]
        files = [e.name for e in found if is_file(e)]
        yield folder, folders, files
        pending.extend(folder / name for name in reversed(folders))


def kptfile_folders(
    root: str | os.PathLike[str],
    skip: Path | None = None,
    unlistable: list[tuple[Path, str]] | None = None,
) -> list[Path]:
    """Every folder under ``root`` (itself included) holding a Kptfile that is a regular file,
    in name order, depth first; folders resolving under ``skip`` left out; ``unlistable`` as
    :func:`walk` takes it."""
    found = []
    for folder, folders, files in walk(root, unlistable):
        if skip is not None:
            folders[:] = [d for d in folders if not (folder / d).resolve().is_relative_to(skip)]
        if KPTFILE in files:
            found.append(folder)
    return found


def read_text(path: str | os.PathLike[str], where: str | None = None) -> str:
    """The text of a file of the tree: opened with ``O_NOFOLLOW | O_NONBLOCK``, a regular file,
    at most :data:`MAX_TREE_FILE` bytes, UTF-8; else a :class:`TreeError` naming it."""
    label = where or os.fspath(path)
    data = read_bytes(path, label)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TreeError(
            f"{label}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def read_bytes(path: str | os.PathLike[str], where: str | None = None) -> bytes:
    """The bytes of a file of the tree, under :func:`read_text`'s rules (no link, a regular
    file, at most :data:`MAX_TREE_FILE` bytes); else a :class:`TreeError` naming it."""
    label = where or os.fspath(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if os.path.islink(path):
            raise TreeError(
                f"cannot read {label}: a symbolic link; links in a package tree are not followed"
            ) from None
        raise TreeError(f"cannot read {label}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TreeError(f"cannot read {label}: not a regular file")
        if info.st_size > MAX_TREE_FILE:
            raise TreeError(
                f"cannot read {label}: {info.st_size} bytes, over the cap of {MAX_TREE_FILE} "
                "bytes for a file of a package tree"
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_TREE_FILE + 1)
    except OSError as exc:
        raise TreeError(f"cannot read {label}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_TREE_FILE:
        raise TreeError(f"cannot read {label}: over the cap of {MAX_TREE_FILE} bytes")
    return data


__all__ = [
    "MAX_TREE_FILE",
    "TreeError",
    "UnlistableFolder",
    "entries",
    "is_file",
    "is_folder",
    "is_hidden",
    "kptfile_folders",
    "read_bytes",
    "read_text",
    "walk",
]
