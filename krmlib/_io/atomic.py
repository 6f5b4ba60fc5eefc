"""Crash-safe writes: the one place that puts bytes on disk for a command that edits a package
tree, and the lock that keeps two such commands from writing one tree at once.

- :func:`write_text`: a temporary file in the target's folder (a name kpt never reads: hidden,
  ending in neither ``.yaml``, ``.yml``, ``.json`` nor named ``Kptfile``), written, flushed and
  ``fsync``-ed, its permissions set to the old file's, renamed over the target; the folder is
  ``fsync``-ed by :func:`sync_folders` (once per folder of a batch). A kill at any instant leaves
  the old content or the new one, never an empty or half file. A file that had no trailing
  newline keeps none.
- :class:`NewFolder`: a new folder (a child package) built in a hidden holder folder next to
  it, its files under pending names (``.NAME.krmfn-new``, never read by kpt), then the holder
  renamed into place and each file renamed to its name, the ``Kptfile`` first. kpt reads hidden
  folders (``.git`` included, checked with kpt 1.0.0-beta.56), so no hidden place inside a
  package hides a folder of final names from it: the pending names do. A crash leaves either a
  holder kpt reads nothing from, or the published folder with some files still pending; the
  window in which kpt could see a partial child is the few renames of one folder (no data is
  written in it), and the next run finishes those renames first.
- :func:`remove_leftovers`: a later run removes what a crash left (the temporary names above).
- :func:`tree_lock`: ``flock`` on the folder's own descriptor (no file is created), exclusive
  for the folder written and shared on each folder above it, so two commands on nested trees
  exclude each other too.

``KRMFN_FSYNC=0`` turns the ``fsync`` calls off (for measuring what they cost; the order of
renames, and so what a killed process leaves, is the same).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress

from krmlib._base.errors import KrmError

TEMP_MARK = ".krmfn-tmp-"
PENDING_MARK = ".krmfn-new"
FSYNC_ENV = "KRMFN_FSYNC"


def _fsync_on() -> bool:
    return os.environ.get(FSYNC_ENV, "1") != "0"


def io_error(action: str, path: str | os.PathLike[str], exc: OSError) -> KrmError:
    """One message for an I/O error: what was being done, to which file, and the system's
    reason (``cannot write a/b.yaml: No space left on device``)."""
    reason = exc.strerror or str(exc)
    return KrmError(f"cannot {action} {os.fspath(path)}: {reason}")


def temp_name(name: str) -> str:
    """A temporary name next to ``name`` that kpt never reads as package content."""
    return f".{name}{TEMP_MARK}{os.getpid()}-{os.urandom(4).hex()}"


def is_leftover(name: str) -> bool:
    """A temporary file or holder folder name of this module (a crash's leftover)."""
    return name.startswith(".") and TEMP_MARK in name


def write_text(target: str | os.PathLike[str], text: str | bytes, *, sync: bool = True) -> None:
    """Replace ``target`` with ``text`` (UTF-8 when a str) atomically: see the module's
    docstring. The folder must exist; its ``fsync`` is left to :func:`sync_folders`. An
    ``OSError`` becomes a :class:`KrmError` naming the file; the temporary file is removed."""
    path = os.fspath(target)
    folder, name = os.path.split(path)
    old_mode: int | None = None
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise io_error("write", path, exc) from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise KrmError(f"{path}: a symbolic link; refused to write through it")
        if stat.S_ISDIR(info.st_mode):
            raise KrmError(f"cannot write {path}: a folder is in the way")
        old_mode = stat.S_IMODE(info.st_mode)
    data = text.encode("utf-8") if isinstance(text, str) else text
    if info is not None and data.endswith(b"\n") and info.st_size and not _ends_with_newline(path):
        data = data[:-1]
    temp = os.path.join(folder, temp_name(name))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(temp, flags, 0o644)
    except OSError as exc:
        raise io_error("write", path, exc) from None
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if old_mode is not None:
                os.fchmod(fd, old_mode)
            if sync and _fsync_on():
                os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, path)
    except OSError as exc:
        _remove_quietly(temp)
        raise io_error("write", path, exc) from None


def write_file(target: str | os.PathLike[str], text: str | bytes) -> None:
    """:func:`write_text`, then its folder synced: one file replaced atomically, on disk."""
    write_text(target, text)
    sync_folders([os.path.dirname(os.path.abspath(os.fspath(target)))])


def _ends_with_newline(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
    except OSError:
        return True


def remove_file(target: str | os.PathLike[str]) -> None:
    """Remove a file (gone already is fine); an error names it."""
    try:
        os.unlink(target)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise io_error("remove", target, exc) from None


def sync_folders(folders: Iterable[str | os.PathLike[str]]) -> None:
    """``fsync`` each folder once (the renames into it are on disk afterwards)."""
    if not _fsync_on():
        return
    for folder in dict.fromkeys(os.fspath(f) for f in folders):
        try:
            fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError as exc:
            raise io_error("sync the folder", folder, exc) from None
        try:
            os.fsync(fd)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.EROFS):  # folders some file systems refuse
                raise io_error("sync the folder", folder, exc) from None
        finally:
            os.close(fd)


def make_folders(folder: str | os.PathLike[str]) -> None:
    """``mkdir -p``, durably: the folder holding each new folder is ``fsync``-ed (the first
    existing one above included), so a new folder is on disk before anything is put in it. An
    error names the folder (a regular file in the way included)."""
    path = os.path.abspath(os.fspath(folder))
    missing: list[str] = []
    current = path
    while not os.path.isdir(current) and os.path.dirname(current) != current:
        if os.path.lexists(current):
            if os.path.isdir(current):
                break  # made meanwhile by another process (prepare-all's workers, shards)
            raise KrmError(f"cannot create the folder {path}: a file is in the way")
        missing.append(current)
        current = os.path.dirname(current)
    for made in reversed(missing):
        try:
            os.mkdir(made)
        except FileExistsError:
            if not os.path.isdir(made):
                raise KrmError(f"cannot create the folder {path}: a file is in the way") from None
        except OSError as exc:
            raise io_error("create the folder", path, exc) from None
    sync_folders(os.path.dirname(made) for made in reversed(missing))


class NewFolder:
    """A new folder (a child package) built aside, then put in place whole (see the module's
    docstring): files are written under pending names kpt never reads, in a hidden holder
    folder; :meth:`publish` renames the holder to the target, then each pending file to its
    name (the ``Kptfile`` of each folder first). A crash before the holder is renamed leaves a
    holder (removed by the next run); one after it leaves pending files, which the next run
    renames (:func:`remove_leftovers`)."""

    __slots__ = ("holder", "parent", "pending", "target")

    def __init__(self, target: str | os.PathLike[str]) -> None:
        self.target = os.path.abspath(os.fspath(target))
        self.parent = os.path.dirname(self.target)
        if os.path.lexists(self.target):
            kind = "a folder" if os.path.isdir(self.target) else "a file"
            raise KrmError(f"cannot create the folder {self.target}: {kind} is in the way")
        make_folders(self.parent)
        self.holder = os.path.join(self.parent, f"{TEMP_MARK}{os.getpid()}-{os.urandom(4).hex()}")
        self.pending: list[str] = []  # relative paths
        try:
            os.mkdir(self.holder)
        except OSError as exc:
            raise io_error("create the folder", self.target, exc) from None

    def write(self, rel: str, text: str | bytes) -> None:
        """Write the file ``rel`` (``/``-separated, inside the new folder) under its pending
        name, synced."""
        folder, name = os.path.split(rel)
        where = os.path.join(self.holder, folder)
        if folder:
            make_folders(where)
        path = os.path.join(where, pending_name(name))
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
            try:
                view = memoryview(text.encode("utf-8") if isinstance(text, str) else text)
                while view:
                    view = view[os.write(fd, view) :]
                if _fsync_on():
                    os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise io_error("write", os.path.join(self.target, rel), exc) from None
        self.pending.append(rel)

    def publish(self) -> None:
        """Put the folder in place, then give each file its name."""
        folders = [current for current, _dirs, _files in os.walk(self.holder)]
        sync_folders(reversed(folders))
        try:
            os.rename(self.holder, self.target)
        except OSError as exc:
            raise io_error("create the folder", self.target, exc) from None
        sync_folders([self.parent])
        order = sorted(self.pending, key=_publish_order)
        for rel in order:
            folder, name = os.path.split(rel)
            where = os.path.join(self.target, folder)
            try:
                os.rename(os.path.join(where, pending_name(name)), os.path.join(where, name))
            except OSError as exc:
                raise io_error("write", os.path.join(self.target, rel), exc) from None
        sync_folders(os.path.join(self.target, os.path.dirname(rel)) for rel in order)

    def discard(self) -> None:
        _remove_tree_quietly(self.holder)


def _publish_order(rel: str) -> tuple[int, int, str]:
    # Kptfiles first, the outermost first: the folder is a package as soon as it has any file
    return (0 if os.path.basename(rel) == "Kptfile" else 1, rel.count("/"), rel)


def pending_name(name: str) -> str:
    return f".{name}{PENDING_MARK}"


def remove_leftovers(root: str | os.PathLike[str], *, recursive: bool = True) -> list[str]:
    """Clean up what a killed run left under ``root`` (symbolic links not followed, ``.git``
    folders not entered; ``recursive=False``: ``root``'s own entries only): temporary files
    and unpublished holder folders are removed; pending files of a published folder get their
    names (see :class:`NewFolder`). Returns the paths handled. Call it holding the tree's lock
    (:func:`tree_lock`): a running writer's temporaries look the same."""
    handled: list[str] = []
    for current, dirs, files in os.walk(os.fspath(root), followlinks=False):
        if not recursive and current != os.fspath(root):
            break
        pending = sorted(
            (n for n in files if n.startswith(".") and n.endswith(PENDING_MARK)),
            key=lambda n: n != pending_name("Kptfile"),
        )
        for name in pending:
            path = os.path.join(current, name)
            final = os.path.join(current, name[1 : -len(PENDING_MARK)])
            try:
                if os.path.lexists(final):
                    os.unlink(path)
                else:
                    os.rename(path, final)
            except OSError as exc:
                raise io_error("finish", final, exc) from None
            handled.append(path)
        for name in files:
            if is_leftover(name):
                path = os.path.join(current, name)
                _remove_quietly(path)
                handled.append(path)
        for name in list(dirs):
            if is_leftover(name) or name == ".git":
                dirs.remove(name)  # a holder is removed whole; .git is not ours
            if is_leftover(name):
                path = os.path.join(current, name)
                _remove_tree_quietly(path)
                handled.append(path)
        if pending:
            sync_folders([current])
    return handled


def unfinished_folders(root: str | os.PathLike[str]) -> list[str]:
    """The folders under ``root`` (symbolic links not followed, ``.git`` not entered) that a
    killed writer put in place with files still under their pending names: half made, until
    :func:`remove_leftovers` (any later run of a writing command) finishes them."""
    found = []
    for current, dirs, files in os.walk(os.fspath(root), followlinks=False):
        dirs[:] = [d for d in dirs if d != ".git" and not is_leftover(d)]
        if any(n.startswith(".") and n.endswith(PENDING_MARK) for n in files):
            found.append(current)
    return found


def _remove_quietly(path: str) -> None:
    with suppress(OSError):
        os.unlink(path)


def _remove_tree_quietly(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


# --- one writer per tree -----------------------------------------------------------------------


# The descriptors of the locks this process holds. A forked child (a worker, a plugin, the input
# check) closes its copies at once: ``flock`` belongs to the open file description, so a child
# holding a copy would keep the tree locked after this process died (issue 36.1).
_HELD: set[int] = set()


def _drop_locks_in_child() -> None:
    for fd in _HELD:
        with suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_locks_in_child)

_NO_FLOCK = (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL)  # a file system without flock


class TreeLock:
    """The descriptors of a held :func:`tree_lock` (closed, so released, by :meth:`release`)."""

    __slots__ = ("fds",)

    def __init__(self, fds: list[int]) -> None:
        self.fds = fds
        _HELD.update(fds)

    def release(self) -> None:
        for fd in self.fds:
            _HELD.discard(fd)
            os.close(fd)
        self.fds = []


def lock_tree(
    folder: str | os.PathLike[str],
    *,
    exclusive: bool = True,
    wait: bool = True,
    on_wait: Callable[[], None] | None = None,
) -> TreeLock:
    """Lock the tree at ``folder`` (see :func:`tree_lock`); the caller releases it."""
    import fcntl

    path = os.path.abspath(os.fspath(folder))
    chain = [path]
    while os.path.dirname(chain[-1]) != chain[-1]:
        chain.append(os.path.dirname(chain[-1]))
    chain.reverse()  # from / down: every process takes them in one order (no deadlock)
    fds: list[int] = []
    told = False
    try:
        for current in chain:
            mine = current == path
            try:
                fd = os.open(current, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError as exc:
                if mine:
                    raise io_error("lock", current, exc) from None
                continue  # a folder above that we may not open: not ours to lock
            fds.append(fd)
            _HELD.add(fd)
            mode = fcntl.LOCK_EX if mine and exclusive else fcntl.LOCK_SH
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                continue
            except BlockingIOError:
                pass
            except OSError as exc:
                if exc.errno not in _NO_FLOCK:
                    raise io_error("lock", current, exc) from None
                if mine and exclusive:  # no silent unlocked write (issue 36.5)
                    raise KrmError(
                        f"cannot lock {path}: its file system refuses flock "
                        f"({exc.strerror or exc}); refused to write unlocked (--no-lock writes "
                        "without the lock, when no other krmfn command writes this tree)"
                    ) from None
                continue  # a reader, or a folder above: nothing to take there
            if not wait:
                raise KrmError(
                    f"another krmfn command is writing {path} (a lock on {current}); "
                    "refused (--no-wait)"
                )
            if on_wait is not None and not told:
                on_wait()
                told = True
            fcntl.flock(fd, mode)
    except BaseException:
        TreeLock(fds).release()
        raise
    return TreeLock(fds)


@contextmanager
def tree_lock(
    folder: str | os.PathLike[str],
    *,
    exclusive: bool = True,
    wait: bool = True,
    on_wait: Callable[[], None] | None = None,
    lock: bool = True,
) -> Iterator[None]:
    """One writer per tree: ``flock`` on ``folder`` (exclusive, or shared to only read) and a
    shared one on each folder above it. A command writing an enclosing or the same tree holds
    an exclusive lock on one of them, so the two exclude each other; two readers do not. When
    the lock is taken, ``on_wait`` is called once and the call waits, or with ``wait=False``
    a :class:`KrmError` says who holds it. The lock goes with the process (a kill releases it;
    a forked child closes its copies at once). Where the file system refuses ``flock`` an
    exclusive lock is a :class:`KrmError` (no unlocked write); ``lock=False`` takes none."""
    if not lock:
        yield
        return
    held = lock_tree(folder, exclusive=exclusive, wait=wait, on_wait=on_wait)
    try:
        yield
    finally:
        held.release()
