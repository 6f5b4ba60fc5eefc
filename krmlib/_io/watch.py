"""What a function's code writes while it runs, and where (the output gate's notes): the
write hook of :class:`~krmlib.KubeObject`, the line that last wrote each object.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from krmlib._base.errors import KrmError
from krmlib._model import object as _object
from krmlib._model import storage as _storage

if TYPE_CHECKING:
    from types import CodeType

    from krmlib._model.object import KubeObject

    from .resourcelist import ResourceList


# While a run is watched: where the function's code last wrote each object (id → (code, the
# offset of its instruction: the line is found from it only when a message names it)), and what
# it wrote (id → the written paths and values; a creation is ``None`` with the text given, or
# None for values).
_WHERE: dict[int, tuple[CodeType, int]] = {}
Write = tuple[tuple[Any, ...] | None, Any]
_WRITES: dict[int, list[Write] | tuple[Write, ...]] = {}
# The writes of an object made of values and not written since (thousands of children): one
# tuple shared by all of them (memory), a list of its own from its first write on.
_MADE: tuple[Write, ...] = ((None, None),)
# Objects whose text a function's code handed over (``from_yaml``/``from_item`` called outside
# krmlib): the reader reads it back before it is written.
_HANDED: set[int] = set()
# Objects are known by ``id()``: an object the function dropped frees its id for a new one. Every
# object made while a run is watched passes the hook (``KubeObject.__init__``), which forgets
# what was noted of an earlier holder of its id first, so a new object is never taken for a
# written one. (Keeping every noted object alive instead cost interface-expander 66-110 ms of
# CPU at 10k: bench/GATE.md.) Input items keep their ids: the gate's snapshot holds them.

# What each code object that wrote is (id(code) → kind), learned once per code: the function's
# (outside krmlib), krmlib's, or one of krmlib's makers (``from_dict`` and the like, whose caller
# is the one that made the object). The codes are kept (``_CODES``) so their ids stay theirs;
# ``_MODULES``: the module of each code outside krmlib, for the message.
_THEIRS, _OURS, _MAKER = 0, 1, 2
_KIND: dict[int, int] = {}
_CODES: list[CodeType] = []
_MODULES: dict[int, str] = {}


def _note(obj: KubeObject, keys: tuple[Any, ...] | None, value: Any) -> None:
    """The write hook: what was written, and the innermost frame of the caller outside krmlib
    (a few frames up: the write's own, then krmlib's helpers, then the function's code). Of an
    object krmlib itself makes (a child from its owner's values) only where the function's code
    asked for it is noted: new objects are checked whole.

    It runs on every write, so it is lean: a frame's kind is one dict look-up by its code's id,
    and the line is not computed here (``f_lineno`` scans the code's line table, up to
    microseconds in a long function) but kept as the instruction's offset (``f_lasti``)."""
    kinds = _KIND
    key = id(obj)
    frame: Any = sys._getframe(2)  # the caller of set, delete or __init__
    code = frame.f_code
    kind = kinds.get(id(code))
    if kind is None:
        kind = _learn(frame)
    if keys is None:  # a creation: the caller of from_dict, from_yaml, from_item or copy
        if key in _WHERE or key in _WRITES:  # the id of a dropped object: not this one's
            _WHERE.pop(key, None)
            _WRITES.pop(key, None)
            _HANDED.discard(key)
        while kind == _MAKER:
            frame = frame.f_back
            code = frame.f_code
            kind = kinds.get(id(code))
            if kind is None:
                kind = _learn(frame)
        if kind == _THEIRS:
            _WHERE[key] = _site(code, frame.f_lasti)
            _WRITES[key] = _MADE if value is None else [(keys, value)]
            if value is not None:  # text the function's code handed over
                _HANDED.add(key)
            return
    else:
        writes = _WRITES.get(key)
        if writes is None:
            _WRITES[key] = [(keys, value)]
        elif type(writes) is tuple:
            _WRITES[key] = [*writes, (keys, value)]
        else:
            writes.append((keys, value))  # type: ignore[union-attr]
    while kind != _THEIRS:  # krmlib's own: walk out to the function's code
        frame = frame.f_back
        if frame is None:
            return
        code = frame.f_code
        kind = kinds.get(id(code))
        if kind is None:
            kind = _learn(frame)
    _WHERE[key] = _site(code, frame.f_lasti)


# The places noted, by offset: thousands of objects made or written by a few lines of the
# function's code in a loop share a tuple each, not a tuple and an offset per object (memory:
# bench/RESULTS.md, h/rss).
_SITES: dict[int, tuple[CodeType, int]] = {}


def _site(code: CodeType, offset: int) -> tuple[CodeType, int]:
    """``(code, offset)``: the tuple noted before for that place, if any."""
    site = _SITES.get(offset)
    if site is None or site[0] is not code:
        site = _SITES[offset] = (code, offset)
    return site


_MAKERS = frozenset({"from_dict", "from_yaml", "from_item", "copy"})


def _learn(frame: Any) -> int:
    """The kind of ``frame``'s code, learned once (see ``_KIND``)."""
    code = frame.f_code
    module = str(frame.f_globals.get("__name__", ""))
    if module == "krmlib" or module.startswith("krmlib."):
        kind = _MAKER if code.co_name in _MAKERS else _OURS
    else:
        kind = _THEIRS
        _MODULES[id(code)] = module
    _KIND[id(code)] = kind
    _CODES.append(code)
    return kind


@contextmanager
def watching() -> Iterator[None]:
    """While the function runs: note what its code writes, and where."""
    _WHERE.clear()
    _WRITES.clear()
    _HANDED.clear()
    _SITES.clear()
    _object.WRITE_HOOK = _note
    try:
        yield
    finally:
        _object.WRITE_HOOK = None


def written_at(obj: KubeObject) -> str:
    """`` (written at my_fn/process.py:12)`` for an object the function's code wrote, else
    empty."""
    found = _WHERE.get(id(obj))
    if found is None:
        return ""
    code, offset = found
    module = _MODULES.get(id(code), "")
    return f" (written at {module_file(module, code.co_filename)}:{line_of(code, offset)})"


def line_of(code: CodeType, offset: int) -> int | str:
    """The line of the instruction at ``offset`` (``f_lasti``) of ``code``, as ``f_lineno``
    gives it; ``?`` when the code has none there."""
    if offset < 0:
        return code.co_firstlineno
    line: int | None = None
    for start, end, at in code.co_lines():
        if start <= offset < end:
            line = at
            break
    return "?" if line is None else line


def module_file(module: str, filename: str) -> str:
    """A file as its module's path (``my_fn/process.py``): short, and the same for an editable
    install, a wheel or an image; the file's base name for ``__main__``."""
    import os

    if not module or module == "__main__":
        return os.path.basename(filename)
    tail = "/__init__.py" if os.path.basename(filename) == "__init__.py" else ".py"
    return module.replace(".", "/") + tail


Identity = tuple[str, str, str, str]  # apiVersion, kind, name, namespace (as the header)


class Snapshot:
    """The input's items before the function runs: which objects they are and their
    identities (read from the headers the reader already learned). It holds the objects
    themselves too: objects are known by ``id()``, and an input item the function drops would
    otherwise free its id for a new object, which the gate would then take for that input item
    (its identity, and "checked when read")."""

    __slots__ = ("_headers", "_identities", "items")

    def __init__(self, rl: ResourceList) -> None:
        self.items = list(rl.items)  # alive until the gate ran: their ids stay theirs
        # The headers the reader learned (a tuple each, replaced, never changed, by a write that
        # may change it): one attribute read an item; the dict by id is built when asked for.
        headers: list[Identity | None] = [_storage.of(obj).header for obj in self.items]
        if None in headers:  # a header not learned yet: read it now, before the function runs
            for at, obj in enumerate(self.items):
                if headers[at] is None:
                    with contextlib.suppress(KrmError):  # unreadable: the input check refuses it
                        headers[at] = _storage.of(obj).head()
        self._headers = headers
        self._identities: dict[int, Identity] | None = None

    @property
    def identities(self) -> dict[int, Identity]:
        """id(item) → its identity (apiVersion, kind, name, namespace) before the function ran."""
        if self._identities is None:
            pairs = zip(map(id, self.items), self._headers, strict=True)
            if None in self._headers:
                self._identities = {key: head for key, head in pairs if head is not None}
            else:  # at C speed
                self._identities = dict(pairs)  # type: ignore[arg-type]
        return self._identities

    def olds(self, items: list[KubeObject]) -> tuple[list[Identity | None], int]:
        """Each of ``items``' identity before the function ran (None: new, or not read): both
        lists walked in order (no dict by id: memory), or :attr:`identities` when that fails;
        and the index of an object listed a second time in ``items`` (-1: none), found with the
        set of ids the walk makes anyway (nothing is kept on the snapshot)."""
        snap, heads = self.items, self._headers
        olds: list[Identity | None] = [None] * len(items)
        other: list[KubeObject] = []  # not the snapshot's next: new (at most len(items) - n)
        j, n = 0, len(snap)
        for i, obj in enumerate(items):
            if j < n and obj is snap[j]:
                olds[i] = heads[j]
                j += 1
            elif len(other) < len(items) - n:
                other.append(obj)
            else:
                break  # an input item went or moved: by id
        else:
            new = set(map(id, other)) if other else set()
            if j == n and new.isdisjoint(map(id, snap)):
                # a new object listed twice: len(new) < len(other)
                twice = _second(items, new) if len(new) != len(other) else -1
                return olds, twice
            del new
        del olds, other
        twice = -1
        if len(set(map(id, items))) != len(items):  # (an input item went or moved: rare)
            twice = _second(items, None)
        return list(map(self.identities.get, map(id, items))), twice


def _second(items: list[KubeObject], among: set[int] | None) -> int:
    """The index of the first object of ``items`` (whose id is in ``among``, None: any) that is
    listed a second time."""
    seen: set[int] = set()
    for index, obj in enumerate(items):
        key = id(obj)
        if among is None or key in among:
            if key in seen:
                return index
            seen.add(key)
    return -1  # pragma: no cover - called only when one is listed twice
