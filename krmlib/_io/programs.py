"""The one way to run a program on a ResourceList (or any input): :func:`run_program`.

Its first act is krmlib's gate (``_reader.gate``): while the whole-input check of an input in use
runs apart (a big input, checked in a forked child) the run waits for its verdict, and a refused
input raises :class:`~krmlib._io.resourcelist.CheckFailed` before anything starts. A caller cannot
forget it: every program a function starts passes here, as every write passes ``write_package``.

Then the program runs in a process group of its own, its stdin written and its stdout and stderr
read at once (no pipe fills up while another waits), under one deadline and with a cap on what it
may print; on a timeout, too much output or an interrupt the whole group is killed and reaped,
with every process the program started, one that left its session (``setsid``) included.
A caller may give ``child``, a function to run in a forked copy of this process instead of
starting ``argv`` (the preparer's warm Python plugins): the child is set up as the process would
be (its own session, the working folder, the pipes on fds 0, 1 and 2) and the limits are the
same. A process that may not fork (:func:`~krmlib.packages.fork_safe`: more than one thread) starts
``argv`` instead.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from . import reader as _reader
from .background import fork_safe

if TYPE_CHECKING:
    import subprocess

MAX_OUTPUT = 64 * 1024 * 1024
"""The most a program may print on stdout, in bytes, unless its input is bigger: the cap is then
twice its input (a function gives back the package it was given)."""
STDERR_KEPT = 64 * 1024  # what is kept of stderr (only its end is ever shown)
_CHUNK = 1 << 16


class TooMuchOutput(Exception):
    """The program printed more than its cap on stdout (it was killed with its group)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} bytes")
        self.limit = limit


class _Timeout(Exception):
    """The deadline passed before the program closed its outputs or ended."""


def run_program(
    argv: Sequence[str],
    data: bytes,
    *,
    timeout: float,
    cwd: str | None = None,
    child: Callable[[], int] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` with ``data`` on its stdin, in ``cwd``, in a process group of its own; its
    stdout and stderr (the last :data:`STDERR_KEPT` bytes) collected. Raises
    :class:`~krmlib._io.resourcelist.CheckFailed` before starting anything when the check of an
    input in use refuses it; ``subprocess.TimeoutExpired`` past ``timeout`` seconds;
    :class:`TooMuchOutput` past ``max(MAX_OUTPUT, 2 * len(data))`` bytes on stdout; ``OSError``
    when it cannot start (or ``cwd`` cannot be entered). On any of them the group is killed.

    ``child``: run this function in a forked child of this process instead (when
    :func:`~krmlib.packages.fork_safe` allows it, else ``argv`` starts), set up as the process would
    be; its return value is the exit status (it must not return into the caller's code)."""
    import subprocess

    _reader.gate()  # the input check's verdict before any program runs
    deadline = time.monotonic() + timeout
    fds: list[int] = []
    try:
        if child is not None and fork_safe():
            pid = _fork(child, cwd, fds)
        else:
            pid = _spawn(argv, cwd, fds)
        code, out, err = _supervise(pid, (fds[0], fds[1], fds[2]), data, deadline, fds)
    except _Timeout:
        raise subprocess.TimeoutExpired(list(argv), timeout) from None
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
    return subprocess.CompletedProcess(list(argv), code, out, err)


def _spawn(argv: Sequence[str], cwd: str | None, fds: list[int]) -> int:
    """Start ``argv`` as a new process (a session of its own); its pipes' ends are appended to
    ``fds`` (stdin's write end, stdout's and stderr's read ends), ours to close."""
    import subprocess

    parent = os.getpid()
    _pdeathsig()
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
        # Killed with this process (its deadline dies with it); only where a fork is safe.
        preexec_fn=(lambda: die_with_parent(parent)) if fork_safe() else None,  # noqa: PLW1509
    )
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        assert stream is not None
        fds.append(os.dup(stream.fileno()))
        stream.close()
    proc.returncode = -1  # reaped by _wait, never by Popen
    return proc.pid


def _fork(child: Callable[[], int], cwd: str | None, fds: list[int]) -> int:
    """Fork a child that runs ``child()`` as the process ``argv`` would be: a session of its
    own, ``cwd`` entered, the pipes on fds 0, 1 and 2 and no other of ours open."""
    import sys

    _pdeathsig()  # looked up here, once, not in every child
    folder = os.open(cwd, os.O_RDONLY | os.O_DIRECTORY) if cwd is not None else None
    ends: list[int] = []
    try:
        for _ in range(3):
            ends.extend(os.pipe())
        stdin_r, stdin_w, stdout_r, stdout_w, stderr_r, stderr_w = ends
        for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
            with contextlib.suppress(Exception):
                stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child (tested through what it does)
            die_with_parent(parent)
            _become(child, (stdin_r, stdout_w, stderr_w), [*ends, *fds], folder)
        fds.extend((stdin_w, stdout_r, stderr_r))  # ours (run_program closes them)
        ends = [stdin_r, stdout_w, stderr_w]  # the child's
        return pid
    finally:
        for fd in [*ends, *([folder] if folder is not None else [])]:
            os.close(fd)


def _become(  # pragma: no cover - runs in the forked child
    child: Callable[[], int], std: tuple[int, int, int], ours: list[int], folder: int | None
) -> None:
    """In the forked child: set up, run ``child()``, exit with its status (never returns)."""
    import fcntl  # POSIX, as fork is

    code = 1
    try:
        os.setsid()
        if folder is not None:
            os.fchdir(folder)
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 3) for fd in std]  # none of them is 0, 1 or 2
        for target, fd in enumerate(high):
            os.dup2(fd, target)
        for fd in {*ours, *high, *([folder] if folder is not None else [])} - {0, 1, 2}:
            os.close(fd)
        # Nothing else of the parent's stays open here (a lock, a pool's pipes, a file).
        os.closerange(3, _fd_limit())
        code = child()
    except BaseException as exc:  # a failure to set up: say what, as a program would
        with contextlib.suppress(Exception):
            os.write(2, f"krmlib: cannot start the program: {exc!r}\n".encode())
    finally:
        os._exit(code)


def _fd_limit() -> int:
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return soft if 0 < soft < 1 << 20 else 1 << 20


_PR_SET_PDEATHSIG = 1
_PDEATHSIG: list[Callable[[], int]] = []  # the prctl call, once looked up


def _pdeathsig() -> None:
    """Look up Linux's ``prctl`` once, in the parent, so that a forked child only calls it."""
    if not _PDEATHSIG:
        try:
            import ctypes
            import signal

            prctl = ctypes.CDLL(None, use_errno=True).prctl
            number = int(signal.SIGKILL)
            _PDEATHSIG.append(lambda: int(prctl(_PR_SET_PDEATHSIG, number, 0, 0, 0)))
        except (ImportError, OSError, AttributeError):
            _PDEATHSIG.append(lambda: -1)


def die_with_parent(parent: int) -> None:
    """In a child forked by process ``parent``: be killed (``SIGKILL``) when the parent ends,
    whatever ends it, and end at once when it has ended already. A worker or a plugin never
    outlives the command that started it. Linux ``prctl(PR_SET_PDEATHSIG)``; elsewhere only
    the check that the parent is still alive."""
    _pdeathsig()
    _PDEATHSIG[0]()
    if os.getppid() != parent:  # the parent died before the call: nobody waits for us
        os._exit(1)


def _output_cap(data: bytes) -> int:
    return max(MAX_OUTPUT, 2 * len(data))


def _communicate(
    stdin_w: int, outputs: tuple[int, int], data: bytes, deadline: float, open_fds: list[int]
) -> tuple[bytes, bytes]:
    """Write ``data`` to ``stdin_w`` and read both ``outputs`` (stdout, stderr) until they are
    closed. Each fd is closed (and taken off ``open_fds``) when done. :class:`_Timeout` past
    ``deadline``; :class:`TooMuchOutput` as soon as stdout passes its cap; stderr keeps its last
    :data:`STDERR_KEPT` bytes."""
    import selectors

    limit = _output_cap(data)
    out: list[bytes] = []
    size = 0
    err = bytearray()
    view = memoryview(data)
    offset = 0
    with selectors.DefaultSelector() as selector:

        def close(fd: int) -> None:
            selector.unregister(fd)
            open_fds.remove(fd)
            os.close(fd)

        for fd in outputs:
            selector.register(fd, selectors.EVENT_READ)
        if data:
            os.set_blocking(stdin_w, False)
            selector.register(stdin_w, selectors.EVENT_WRITE)
        else:
            open_fds.remove(stdin_w)
            os.close(stdin_w)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Timeout
            for key, _ in selector.select(remaining):
                fd = key.fd
                if fd in outputs:
                    chunk = os.read(fd, _CHUNK)
                    if not chunk:
                        close(fd)
                    elif fd == outputs[0]:
                        size += len(chunk)
                        if size > limit:
                            raise TooMuchOutput(limit)
                        out.append(chunk)
                    else:
                        err += chunk
                        if len(err) > 2 * STDERR_KEPT:
                            del err[:-STDERR_KEPT]
                    continue
                try:
                    offset += os.write(fd, view[offset : offset + _CHUNK])
                except BlockingIOError:
                    continue
                except BrokenPipeError:
                    offset = len(data)  # the program stopped reading: not an error
                if offset >= len(data):
                    close(fd)
    return b"".join(out), bytes(err[-STDERR_KEPT:])


def _supervise(
    pid: int, std: tuple[int, int, int], data: bytes, deadline: float, open_fds: list[int]
) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of child ``pid``, which leads a process group of its own. On
    any failure the whole group is killed and the child reaped before the exception goes on."""
    import signal

    try:
        out, err = _communicate(std[0], (std[1], std[2]), data, deadline, open_fds)
        return _wait(pid, deadline), out, err
    except BaseException:
        _kill_all(pid)
        for kill, target in ((os.killpg, pid), (os.kill, pid)):  # not yet in a group of its own
            with contextlib.suppress(ProcessLookupError):
                kill(target, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        raise


def _processes() -> dict[int, tuple[int, int, int]]:
    """Every process of the system: pid -> (parent, process group, session), from ``/proc``
    (Linux); {} where there is none."""
    found: dict[int, tuple[int, int, int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) "
        if len(fields) >= 4:
            found[int(name)] = (int(fields[1]), int(fields[2]), int(fields[3]))
    return found


def _kill_all(pid: int) -> None:
    """Kill everything the program ``pid`` started: its session and process group (it leads
    both) and every descendant, one that called ``setsid`` to leave them included. Each is
    stopped first (``SIGSTOP``: a stopped process forks no more) and the tree read again until
    nothing new shows up, then all are killed. A process that forked twice and whose middle
    parent has ended before (a daemon) has left the tree: it is out of reach."""
    import signal

    mine = os.getpid()
    stopped: set[int] = set()
    for _ in range(100):
        table = _processes()
        tree = {p for p, (_parent, group, session) in table.items() if pid in (group, session)}
        tree.add(pid)
        grew = True
        while grew:
            grew = False
            for p, (parent, _group, _session) in table.items():
                if parent in tree and p not in tree:
                    tree.add(p)
                    grew = True
        new = tree - stopped - {mine}
        if not new:
            break
        for victim in new:
            with contextlib.suppress(OSError):
                os.kill(victim, signal.SIGSTOP)
        stopped |= new
    for victim in stopped:
        with contextlib.suppress(OSError):
            os.kill(victim, signal.SIGKILL)


def _wait(pid: int, deadline: float) -> int:
    """The exit code of child ``pid`` (negative: the signal that ended it), waiting until
    ``deadline`` at most (:class:`_Timeout`)."""
    delay = 0.0002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Timeout
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.05)


__all__ = ["MAX_OUTPUT", "STDERR_KEPT", "TooMuchOutput", "die_with_parent", "run_program"]
