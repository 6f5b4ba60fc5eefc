"""Talking to a plugin process through its pipes: its stdin written and its stdout and stderr
read at once, under one deadline, with a cap on what it may print (issue 27.3).

Both ways an exec plugin runs (a new process, or a fork of this one: :mod:`.python_fork`) use
:func:`communicate`, so the same limits hold for both."""

from __future__ import annotations

import os
import selectors
import time

MAX_OUTPUT = 64 * 1024 * 1024
"""The most a plugin may print on stdout, in bytes, unless its input is bigger: the cap is then
twice its input (a plugin gives back the package it was given)."""
STDERR_KEPT = 64 * 1024  # what is kept of stderr (only its end is ever shown)
_CHUNK = 1 << 16


class Timeout(Exception):
    """The deadline passed before the plugin closed its outputs."""


class TooMuchOutput(Exception):
    """The plugin printed more than its cap on stdout."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} bytes")
        self.limit = limit


def output_cap(data: bytes) -> int:
    """The stdout cap for a plugin given ``data`` on stdin."""
    return max(MAX_OUTPUT, 2 * len(data))


def communicate(
    stdin_w: int, outputs: tuple[int, int], data: bytes, deadline: float, open_fds: list[int]
) -> tuple[bytes, bytes]:
    """Write ``data`` to ``stdin_w`` and read both ``outputs`` (stdout, stderr) until they are
    closed, so no pipe fills up while the other waits. Each fd is closed (and taken off
    ``open_fds``) when done. :class:`Timeout` when ``deadline`` (``time.monotonic()``) passes;
    :class:`TooMuchOutput` as soon as stdout passes :func:`output_cap`; stderr keeps its last
    :data:`STDERR_KEPT` bytes."""
    limit = output_cap(data)
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
                raise Timeout
            for key, _ in selector.select(remaining):
                fd = key.fd
                if fd == outputs[0]:
                    chunk = os.read(fd, _CHUNK)
                    if not chunk:
                        close(fd)
                        continue
                    size += len(chunk)
                    if size > limit:
                        raise TooMuchOutput(limit)
                    out.append(chunk)
                    continue
                if fd == outputs[1]:
                    chunk = os.read(fd, _CHUNK)
                    if not chunk:
                        close(fd)
                        continue
                    err += chunk
                    if len(err) > 2 * STDERR_KEPT:
                        del err[:-STDERR_KEPT]
                    continue
                try:
                    offset += os.write(fd, view[offset : offset + _CHUNK])
                except BlockingIOError:
                    continue
                except BrokenPipeError:
                    offset = len(data)  # the plugin stopped reading (as communicate() takes it)
                if offset >= len(data):
                    close(fd)
    return b"".join(out), bytes(err[-STDERR_KEPT:])


def supervise(
    pid: int, std: tuple[int, int, int], data: bytes, deadline: float, open_fds: list[int]
) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of child ``pid``, which leads a process group of its own,
    through its pipes ``std`` (its stdin's write end, its stdout's and stderr's read ends). On
    any failure (:class:`Timeout`, :class:`TooMuchOutput`, an interrupt) the whole group is
    killed and the child reaped before the exception goes on."""
    import contextlib
    import signal

    try:
        out, err = communicate(std[0], (std[1], std[2]), data, deadline, open_fds)
        return wait(pid, deadline), out, err
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # not yet in a group of its own
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        raise


def wait(pid: int, deadline: float) -> int:
    """The exit code of child ``pid`` (negative: the signal that ended it), waiting until
    ``deadline`` at most (:class:`Timeout`)."""
    delay = 0.0002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.05)


__all__ = [
    "MAX_OUTPUT",
    "STDERR_KEPT",
    "Timeout",
    "TooMuchOutput",
    "communicate",
    "output_cap",
    "supervise",
    "wait",
]
