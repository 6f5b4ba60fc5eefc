"""stdin read to its end, or refused: never a part of it taken as the whole input.

A stdin may be non-blocking (the ``O_NONBLOCK`` flag belongs to the open file description, so
whoever shares it may have set it: a shell, a CI runner, a parent that made its pipe so). Python's
buffered ``read()`` then returns what had arrived when a read said ``EAGAIN``, as if the input
ended there: a function would answer for a shortened list, and kpt would write that package back
(the files of the missing items deleted). :func:`read_stdin` reads until end of file: on
``EAGAIN`` it waits for the descriptor to be readable (``poll``), never changing the flag for the
others who share it. Any other error is a :class:`~krmlib.KrmError` naming stdin and the reason.
"""

from __future__ import annotations

import os
import sys

from krmlib._base.errors import KrmError

_CHUNK = 1 << 20


def read_stdin() -> bytes:
    """All of stdin's bytes, to end of file (see the module's docstring)."""
    stream = sys.stdin
    try:
        fd = stream.fileno() if stream is not None else 0
    except (OSError, ValueError, AttributeError):  # an object standing in for stdin (a test)
        buffer = getattr(stream, "buffer", None)
        text = buffer.read() if buffer is not None else stream.read()
        return text if isinstance(text, bytes) else str(text).encode("utf-8")
    try:
        if stream is not None and os.get_blocking(fd):
            # The common case, as fast as before: one growing buffer to end of file.
            data = stream.buffer.read() or b""
            if os.get_blocking(fd):
                return data
            # Made non-blocking while being read (by another holder): what came may be short.
            return _read_to_end(fd, data)
        return _read_to_end(fd, b"")
    except OSError as exc:
        raise KrmError(f"cannot read the input (stdin): {exc.strerror or exc}") from None


def _read_to_end(fd: int, head: bytes) -> bytes:
    """``head`` and what ``fd`` gives until end of file, waiting out ``EAGAIN``."""
    import select

    chunks = [head] if head else []
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            poller.poll()  # readable, closed or hung up: the next read tells which
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


__all__ = ["read_stdin"]
