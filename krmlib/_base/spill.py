"""Texts a run made and will write, kept out of memory until they are written.

A function's run writes its output only once the output gate has checked all of it, so every
new text it made (the children, the Kptfile's conditions, the results) is alive at the end, next
to the input: at 10,000 items they are most of the peak memory above the input
(bench/RESULTS.md). When the runner turns this on (:func:`start`: a console run, one function
and exit), the first :data:`HOLD_FROM` characters of new text stay in memory (a small run never
opens a file); after that each new text goes to a temporary file (``TMPDIR``, unlinked: nothing
is left behind, whatever ends the process) and its holder keeps a :data:`Held`, one int, in its
place. Texts made by the thousand are gathered and held together (:func:`hold_soon`,
:func:`hold_joined`: one glance, one copy and one write a batch). The writer
copies the bytes to stdout; the gate reads them back a window at a time.

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
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Any

from .chars import ascii_writable

HOLD_FROM = 1 << 16
"""Characters of new text a run keeps in memory before it holds any in the file."""

BATCH = 1 << 16
"""Characters of small texts a maker gathers before it holds them together (:func:`hold_all`)."""

_FLUSH = 1 << 16  # bytes gathered before one write to the file
_WINDOW = 1 << 16  # bytes read at once: reads in the order of writing cost one system call
_SIZE_BITS = 32
_SIZE_MASK = (1 << _SIZE_BITS) - 1


Held = int
"""A text held in the file: its offset in bytes shifted left by 32, or'd with its size in bytes
(a plain int, 32 bytes of memory where the text took hundreds; a subclass would take 56)."""


class _Spill:
    __slots__ = (
        "fd",
        "made",
        "on",
        "shared",
        "soon",
        "soon_size",
        "tail",
        "window",
        "window_at",
        "written",
    )

    def __init__(self) -> None:
        self.on = False
        self.shared = False  # a forked child's, of its parent's file (:func:`_in_child`)
        self.soon: list[tuple[Any, int | None]] = []  # where texts wait (:func:`hold_soon`)
        self.soon_size = 0
        self.made = 0  # characters of new text kept in memory so far
        self.fd = -1  # the file's, once opened
        self.written = 0  # bytes in the file; what follows them is in ``tail``
        self.tail = bytearray()
        self.window = b""  # the last bytes read, from offset window_at
        self.window_at = 0


_SPILL = _Spill()


def _in_child() -> None:
    """A forked child shares the file's write offset with its parent: it reads what was held,
    and holds nothing more in that file (nor in one of its own: two files, one set of places)."""
    if _SPILL.fd >= 0:
        _SPILL.on = False
        _SPILL.shared = True


os.register_at_fork(after_in_child=_in_child)


def start() -> None:
    """Hold new texts from now on, the first :data:`HOLD_FROM` characters of them aside (the
    runner's process: one run, then exit)."""
    _SPILL.on = not _SPILL.shared
    _SPILL.made = 0


def stop() -> None:
    """No more holding (what waits in :func:`hold_soon` stays in memory); what is held stays
    readable (tests start and stop it)."""
    _SPILL.on = False
    _SPILL.soon, _SPILL.soon_size = [], 0


def hold(text: str) -> str | Held:
    """``text``, or where it is held once the run has made :data:`HOLD_FROM` characters of new
    text (then only a text :func:`ascii_writable` passes: see the module's documentation)."""
    spill = _SPILL
    if not spill.on:
        return text
    if spill.made < HOLD_FROM or len(text) > _SIZE_MASK or not ascii_writable(text):
        spill.made += len(text)
        return text
    offset = _append(spill, text)
    return text if offset < 0 else offset << _SIZE_BITS | len(text)


def hold_all(texts: list[str]) -> Sequence[str | Held]:
    """:func:`hold` of each of ``texts`` at the cost of one (thousands of small texts made in a
    loop, such as Kptfile conditions, gathered by their maker): held one after another, or all
    given back (one by one when the glance doubts them together)."""
    spill = _SPILL
    if not spill.on or not texts:
        return texts
    joined = "".join(texts)
    if spill.made < HOLD_FROM or len(joined) > _SIZE_MASK:
        spill.made += len(joined)
        return texts
    if not ascii_writable(joined):  # (an escape across two texts is doubted too)
        return [hold(text) for text in texts]
    at = _append(spill, joined)
    if at < 0:
        return texts
    sizes = list(map(len, texts))
    offsets = accumulate(sizes, initial=at)  # (one more than the sizes: strict=False)
    return [at << _SIZE_BITS | size for at, size in zip(offsets, sizes, strict=False)]


def hold_joined(texts: list[str]) -> str | Held:
    """The texts one after another as one text, held (:func:`hold`): what is only written."""
    return hold("".join(texts))


def hold_soon(target: Any, key: int | None = None) -> None:
    """Hold the new text at ``target.text`` (``target[key]`` with a key: a list's entry)
    together with the next ones, once :data:`BATCH` characters wait (:func:`hold_waiting`):
    thousands of new objects or entries made one at a time, one hold a batch. Nothing when
    holding is off."""
    spill = _SPILL
    if spill.on:
        spill.soon.append((target, key))
        spill.soon_size += len(target.text if key is None else target[key])
        if spill.soon_size >= BATCH:
            hold_waiting()


def hold_waiting() -> None:
    """Hold the texts :func:`hold_soon` gathered, now (:func:`hold_all`; one changed meanwhile
    is held as it is then, one no longer a text is left): before their places are used."""
    spill = _SPILL
    slots = {(id(target), key): (target, key) for target, key in spill.soon}.values()
    texts = [target.text if key is None else target[key] for target, key in slots]
    found = [(slot, text) for slot, text in zip(slots, texts, strict=True) if type(text) is str]
    places = hold_all([text for _slot, text in found])
    for ((target, key), _text), place in zip(found, places, strict=True):
        if key is None:
            target.text = place
        else:
            target[key] = place
    spill.soon, spill.soon_size = [], 0


def merged(pieces: Iterable[str | Held]) -> list[str | Held]:
    """``pieces`` with each run of held texts that follow one another in the file as one (the
    writer then copies a batch at once)."""
    out: list[str | Held] = []
    for piece in pieces:
        last = out[-1] if out else None
        if type(piece) is int and type(last) is int:
            offset, size = last >> _SIZE_BITS, last & _SIZE_MASK
            more = piece & _SIZE_MASK
            if piece >> _SIZE_BITS == offset + size and size + more <= _SIZE_MASK:
                out[-1] = last + more
                continue
        out.append(piece)
    return out


def _append(spill: _Spill, text: str) -> int:
    """Put ``text`` (ASCII) at the end of the held bytes; its offset, or -1 (no file)."""
    if spill.fd < 0 and not _open(spill):
        return -1
    offset = spill.written + len(spill.tail)
    spill.tail += text.encode("ascii")
    if len(spill.tail) >= _FLUSH:
        _flush(spill)
    return offset


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
