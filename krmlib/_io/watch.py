"""What a function's code writes while it runs, and where (the output gate's notes): the
write hook of :class:`~krmlib.KubeObject`, the line that last wrote each object.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from krmlib._model import object as _object

if TYPE_CHECKING:
    from types import CodeType

    from krmlib._model.object import KubeObject


# While a run is watched: where the function's code last wrote each object (id → (code, line,
# module)), and what it wrote (id → the written paths and values; a creation is ``None`` with the
# text given, or None for values).
_WHERE: dict[int, tuple[CodeType, int, str]] = {}
_WRITES: dict[int, list[tuple[tuple[Any, ...] | None, Any]]] = {}
# Objects whose text a function's code handed over (``from_yaml``/``from_item`` called outside
# krmlib): the reader reads it back before it is written.
_HANDED: set[int] = set()
# Objects are known by ``id()``: an object the function dropped frees its id for a new one. Every
# object made while a run is watched passes the hook (``KubeObject.__init__``), which forgets
# what was noted of an earlier holder of its id first, so a new object is never taken for a
# written one. (Keeping every noted object alive instead cost interface-expander 66-110 ms of
# CPU at 10k: bench/GATE.md.) Input items keep their ids: the gate's snapshot holds them.


def _note(obj: KubeObject, keys: tuple[Any, ...] | None, value: Any) -> None:
    """The write hook: what was written, and the innermost frame of the caller outside krmlib
    (a few frames up: the write's own, then krmlib's helpers, then the function's code). Of an
    object krmlib itself makes (a child from its owner's values) only where the function's code
    asked for it is noted: new objects are checked whole."""
    inside = _INSIDE
    key = id(obj)
    frame: Any = sys._getframe(2)  # the caller of set, delete or __init__
    if keys is None:  # a creation: the caller of from_dict, from_yaml, from_item or copy
        if key in _WHERE or key in _WRITES:  # the id of a dropped object: not this one's
            _WHERE.pop(key, None)
            _WRITES.pop(key, None)
            _HANDED.discard(key)
        while frame.f_code.co_name in _MAKERS:
            frame = frame.f_back
        scope = frame.f_globals
        flag = inside.get(id(scope))
        if flag is None:
            flag = inside[id(scope)] = _is_krmlib(scope)
        if not flag:
            _WHERE[key] = (frame.f_code, frame.f_lineno, scope.get("__name__", ""))
            _WRITES[key] = [(keys, value)]
            if value is not None:  # text the function's code handed over
                _HANDED.add(key)
            return
        frame = frame.f_back  # krmlib's own: only where (below) is noted
    else:
        writes = _WRITES.get(key)
        if writes is None:
            _WRITES[key] = [(keys, value)]
        else:
            writes.append((keys, value))
    while frame is not None:
        scope = frame.f_globals
        flag = inside.get(id(scope))
        if flag is None:
            flag = inside[id(scope)] = _is_krmlib(scope)
        if not flag:
            _WHERE[key] = (frame.f_code, frame.f_lineno, scope.get("__name__", ""))
            break
        frame = frame.f_back


_MAKERS = frozenset({"from_dict", "from_yaml", "from_item", "copy"})


def _is_krmlib(scope: dict[str, Any]) -> bool:
    module = str(scope.get("__name__", ""))
    return module == "krmlib" or module.startswith("krmlib.")


# id(a module's globals) → whether it is krmlib's (modules live as long as the process).
_INSIDE: dict[int, bool] = {}


@contextmanager
def watching() -> Iterator[None]:
    """While the function runs: note what its code writes, and where."""
    _WHERE.clear()
    _WRITES.clear()
    _HANDED.clear()
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
    code, line, module = found
    return f" (written at {module_file(module, code.co_filename)}:{line})"


def module_file(module: str, filename: str) -> str:
    """A file as its module's path (``my_fn/process.py``): short, and the same for an editable
    install, a wheel or an image; the file's base name for ``__main__``."""
    import os

    if not module or module == "__main__":
        return os.path.basename(filename)
    tail = "/__init__.py" if os.path.basename(filename) == "__init__.py" else ".py"
    return module.replace(".", "/") + tail
