"""Texts a run made and will write, kept out of memory until they are written.

A function's run writes its output only once the output gate has checked all of it, so every
new text it made (the children, the Kptfile's conditions, the results) is alive at the end, next
to the input: at 10,000 items they are most of the peak memory above the input
(bench/RESULTS.md). When the runner turns this on (:func:`start`: a console run, one function
and exit), the first :data:`HOLD_FROM` characters of new text stay in memory (a small run never
opens a file); after that each new text goes to a temporary file (``TMPDIR``, unlinked: nothing
is left behind, whatever ends the process) and its holder keeps a :class:`Held`, one int, in its
place. The writer copies the bytes to stdout; the gate reads them back a window at a time.

Only a text with nothing the output gate could refuse in it at a glance (ASCII, no character
YAML cannot carry: :func:`krmlib._base.chars.ascii_writable`) is held, so the gate's character
check has nothing left to see in it: it was made when the text was held. Any other text stays
in memory, checked as before.

Off by default: in a library call (tests, a Python program) the objects outlive the call, and
the file would only grow. Any failure of the file (none can be made, the disk is full) turns it
off for the rest of the run: new texts stay in memory, as without it; what was held is read
back from the file, or from memory when it never reached the file.
"""

from __future__ import annotations

import contextlib
import os

from .chars import ascii_writable

HOLD_FROM = 1 << 16
"""Characters of new text a run keeps in memory before it holds any in the file."""

_FLUSH = 1 << 16  # bytes gathered before one write to the file
_WINDOW = 1 << 16  # bytes read at once: reads in the order of writing cost one system call
_SIZE_BITS = 32
_SIZE_MASK = (1 << _SIZE_BITS) - 1


Held = int
"""A text held in the file: its offset in bytes shifted left by 32, or'd with its size in bytes
(a plain int, 32 bytes of memory where the text took hundreds; a subclass would take 56)."""


class _Spill:
    __slots__ = ("fd", "made", "on", "tail", "window", "window_at", "written")

    def __init__(self) -> None:
        self.on = False
        self.made = 0  # characters of new text kept in memory so far
        self.fd = -1  # the file's, once opened
        self.written = 0  # bytes in the file; what follows them is in ``tail``
        self.tail = bytearray()
        self.window = b""  # the last bytes read, from offset window_at
        self.window_at = 0


_SPILL = _Spill()


def start() -> None:
    """Hold new texts from now on, the first :data:`HOLD_FROM` characters of them aside (the
    runner's process: one run, then exit)."""
    _SPILL.on = True
    _SPILL.made = 0


def stop() -> None:
    """No more holding; what is held stays readable (tests start and stop it)."""
    _SPILL.on = False


def hold(text: str) -> str | Held:
    """``text``, or where it is held once the run has made :data:`HOLD_FROM` characters of new
    text (then only a text :func:`ascii_writable` passes: see the module's documentation)."""
    spill = _SPILL
    if not spill.on:
        return text
    if spill.made < HOLD_FROM or len(text) > _SIZE_MASK or not ascii_writable(text):
        spill.made += len(text)
        return text
    if spill.fd < 0 and not _open(spill):
        return text
    data = text.encode("ascii")
    offset = spill.written + len(spill.tail)
    spill.tail += data
    if len(spill.tail) >= _FLUSH:
        _flush(spill)
    return offset << _SIZE_BITS | len(data)


def text_of(value: str | Held) -> str:
    """The text of ``value``: itself, or read back from where it is held."""
    return value if type(value) is str else data_of(value).decode("ascii")  # type: ignore[arg-type]


def data_of(held: Held) -> bytes:
    """The bytes of a held text (ASCII: its UTF-8 too), read through a window of the file."""
    spill = _SPILL
    offset, size = held >> _SIZE_BITS, held & _SIZE_MASK
    at = offset - spill.window_at
    if at >= 0 and at + size <= len(spill.window):
        return spill.window[at : at + size]
    written = spill.written
    if offset >= written:  # still in memory (or never reached the file)
        return bytes(spill.tail[offset - written : offset - written + size])
    stop = min(offset + size, written)
    window = _read(spill, offset, max(stop - offset, _WINDOW))
    if size <= len(window):
        spill.window, spill.window_at = window, offset
        return window[:size]
    return window[: stop - offset] + bytes(spill.tail[: offset + size - stop])


def _read(spill: _Spill, offset: int, size: int) -> bytes:
    """Up to ``size`` bytes of the file from ``offset`` (fewer at its end)."""
    size = min(size, spill.written - offset)
    parts: list[bytes] = []
    fd = spill.fd
    while size > 0:
        part = os.pread(fd, size, offset)
        if not part:
            raise OSError(5, f"the temporary file of held texts ended at byte {offset}")
        parts.append(part)
        offset += len(part)
        size -= len(part)
    return b"".join(parts)


def _open(spill: _Spill) -> bool:
    """An unnamed file in ``TMPDIR`` (else /tmp, /var/tmp) for the held texts: ``O_TMPFILE``
    where the system has it, else a new file removed at once (not tempfile: its imports cost
    2.4 MB of a function's memory). False, and holding stops, when no folder takes one."""
    flags = os.O_RDWR | getattr(os, "O_CLOEXEC", 0)
    for folder in (os.environ.get("TMPDIR") or "/tmp", "/tmp", "/var/tmp"):
        try:
            spill.fd = os.open(folder, flags | os.O_TMPFILE, 0o600)
            return True
        except (OSError, AttributeError):  # (no O_TMPFILE: not Linux, or the file system)
            pass
        name = os.path.join(folder, f".krmlib-held-{os.getpid()}-{os.urandom(8).hex()}")
        try:
            spill.fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            continue
        with contextlib.suppress(OSError):
            os.unlink(name)
        return True
    spill.on = False
    return False


def _flush(spill: _Spill) -> None:
    """Write what is gathered to the file; on a failure stop holding (the unwritten bytes stay
    in ``tail``, where reads find them)."""
    tail = spill.tail
    try:
        while tail:
            count = os.write(spill.fd, tail)
            spill.written += count
            del tail[:count]
    except OSError:
        spill.on = False
