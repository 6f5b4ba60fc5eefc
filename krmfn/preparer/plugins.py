"""Preparation plugins: what a plugin gets (:class:`PluginContext`), what it returns
(:class:`Outcome`), and how a python or built-in plugin is found. The runners of external
plugins (a KRM function, a TKO command plugin, a kpt image) are in :mod:`.executors`."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from krmlib import Items, KrmError, KubeObject, Results

from .config import PluginSpec
from .package import PackageView

if TYPE_CHECKING:
    from pathlib import Path  # at run time where a path is made: not a start-up cost

    from .client import DataClient

ENTRY_POINT_GROUP = "krmfn.preparers"


class Outcome:
    """What one plugin run says about its target: prepared, or waiting (with the reason).

    A value of the plugin API: immutable (nothing assigns to it), equal by value, and shown
    as ``Outcome(prepared=..., reason=...)``."""

    __slots__ = ("prepared", "reason")

    def __init__(self, prepared: bool, reason: str = "") -> None:
        self.prepared = prepared
        self.reason = reason

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return (self.prepared, self.reason) == (other.prepared, other.reason)

    def __hash__(self) -> int:
        return hash((self.prepared, self.reason))

    def __repr__(self) -> str:
        return f"Outcome(prepared={self.prepared!r}, reason={self.reason!r})"

    @classmethod
    def done(cls) -> Outcome:
        return cls(True)

    @classmethod
    def waiting(cls, reason: str) -> Outcome:
        return cls(False, reason)

    @classmethod
    def of(cls, value: object) -> Outcome:
        """A python plugin's return value: an Outcome as is; False waits (no reason given);
        anything else (None, True) means prepared."""
        if isinstance(value, Outcome):
            return value
        if value is False:
            return cls(False, "")
        return cls(True)


class PluginContext:
    """What a plugin gets: the whole package (live), its target, results and the data client.

    ``view`` is the package view of this pass (root folder and subpackages, kept up to date by
    the data client when it creates a child). Not slotted: a plugin may keep attributes of
    its own on it."""

    def __init__(
        self,
        items: Items,
        target: KubeObject,
        spec: PluginSpec,
        properties: dict[str, str],
        results: Results,
        client: DataClient,
        view: PackageView,
        is_preparable: Callable[[KubeObject], bool],
    ) -> None:
        self.items = items
        self.target = target
        self.spec = spec
        self.properties = properties
        self.results = results
        self.client = client
        self.view = view
        self.is_preparable = is_preparable

    @property
    def root(self) -> Path | None:
        return self.view.root

    def wait(self, message: str) -> Outcome:
        """Leave the target unprepared for now, saying why (reported if it is still waiting
        after the last pass): ``return ctx.wait("why")``."""
        return Outcome.waiting(message)

    def own(self) -> list[KubeObject]:
        """The items of this package (subpackage items left out)."""
        return self.view.own(self.items)


Plugin = Callable[[PluginContext], "Outcome | bool | None"]


def resolve_upward(relative: str, start: Path | None) -> Path | None:
    """``relative`` against ``start`` and then each of its parents: the first that exists."""
    from pathlib import Path  # where a plugin or the catalog is named: not a start-up cost

    if start is None:
        path = Path(relative)
        return path.resolve() if path.exists() else None
    for folder in (start, *start.parents):
        candidate = folder / relative
        if candidate.exists():
            return candidate
    return None


def properties_of(target: KubeObject, spec: PluginSpec) -> dict[str, str]:
    """The configured properties read from the target by dot path (TKO's kpt executor): a
    path the target lacks is an error, and the target is not prepared."""
    out: dict[str, str] = {}
    for name, path in spec.properties.items():
        if name.startswith("_"):
            continue  # TKO's runner properties (e.g. _kubernetes.pod): not for the plugin
        value = target.get(path)
        if value is None:
            raise KrmError(
                f"{spec.label}: property not provided: {name} reads {path}, which "
                f"{target.kind}/{target.name} does not have",
                obj=target,
                field=path,
            )
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, dict | list):
            import json  # a non-string plugin parameter only

            out[name] = json.dumps(value, sort_keys=True)
        else:
            out[name] = str(value)
    return out


def load_python(spec: PluginSpec) -> Plugin:
    """``module:function``, or the name of an entry point in the group ``krmfn.preparers``,
    wrapped by :func:`guarded`. Importing it is guarded the same way: what a module prints or
    raises at import is its own (stderr; an error naming the plugin and ``file:line``)."""
    ref = spec.python or ""
    try:
        with isolated_stdio():
            obj = _load(spec, ref)
    except KrmError:
        raise
    except (ImportError, AttributeError) as exc:
        raise KrmError(f"{spec.label}: cannot load {ref!r}: {exc}") from None
    except Exception as exc:  # the module's own failure at import
        raise KrmError(f"{spec.label}: cannot load {ref!r}: {_described(exc)}") from None
    if not callable(obj):
        raise KrmError(f"{spec.label}: {ref!r} is not callable")
    return guarded(spec, obj)


def _load(spec: PluginSpec, ref: str) -> Any:
    if ":" in ref:
        module_name, _, attr = ref.partition(":")
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj
    # an installed plugin only: importlib.metadata is ~10 ms, not a start-up cost
    from importlib.metadata import entry_points

    found = entry_points(group=ENTRY_POINT_GROUP, name=ref)
    if not found:
        raise KrmError(f"{spec.label}: no entry point {ref!r} in the group {ENTRY_POINT_GROUP}")
    return next(iter(found)).load()


def guarded(spec: PluginSpec, plugin: Plugin) -> Plugin:
    """``plugin`` run so that it cannot break the function's output (issue 27.4): what it
    prints, on ``sys.stdout`` or on fd 1, goes to stderr; it reads an empty stdin; and any
    exception of its own (``SystemExit`` included) is an error naming the plugin, the
    exception and where it was raised (``file:line``), not an internal error of the preparer.
    A :class:`~krmlib.KrmError` it raises is its error result as before."""

    def run(ctx: PluginContext) -> Outcome | bool | None:
        try:
            with isolated_stdio():
                return plugin(ctx)
        except KrmError:
            raise
        except (Exception, SystemExit) as exc:
            raise KrmError(f"{spec.label}: {_described(exc)}", obj=ctx.target) from None

    return run


def _described(exc: BaseException) -> str:
    """``Type: message (at file:line)``: where the exception was raised, in the plugin's code
    (the innermost frame outside the standard library), else the innermost frame."""
    import sysconfig
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    stdlib = tuple(
        os.path.realpath(sysconfig.get_path(name)) + os.sep for name in ("stdlib", "platstdlib")
    )
    own = [f for f in frames if not os.path.realpath(f.filename).startswith(stdlib)]
    where = ""
    if isinstance(exc, SyntaxError) and exc.filename:  # the file that does not compile
        where = f" (at {exc.filename}:{exc.lineno})"
    elif own or frames:
        frame = (own or frames)[-1]
        where = f" (at {frame.filename}:{frame.lineno})"
    text = str(exc)
    return f"{type(exc).__name__}{': ' + text if text else ''}{where}"


@contextlib.contextmanager
def isolated_stdio() -> Iterator[None]:
    """Within this block, fd 1 and ``sys.stdout`` write to stderr, and fd 0 and ``sys.stdin``
    read nothing: in-process plugin code cannot write into the ResourceList on stdout nor take
    its input. Both are restored after, even on an error."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    saved = [_dup(0), _dup(1)]
    null = os.open(os.devnull, os.O_RDWR)
    try:
        os.dup2(null, 0)
        try:
            os.dup2(2, 1)
        except OSError:  # no stderr: what it prints is dropped
            os.dup2(null, 1)
        stdin, stdout = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO()), sys.stderr
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            sys.stdin, sys.stdout = stdin, stdout
    finally:
        for fd, copy in enumerate(saved):
            if copy is None:  # it was closed: closed again
                with contextlib.suppress(OSError):
                    os.close(fd)
            else:
                os.dup2(copy, fd)
                os.close(copy)
        os.close(null)


def _dup(fd: int) -> int | None:
    try:
        return os.dup(fd)
    except OSError:
        return None


__all__ = [
    "ENTRY_POINT_GROUP",
    "Outcome",
    "Plugin",
    "PluginContext",
    "guarded",
    "isolated_stdio",
    "load_python",
    "properties_of",
    "resolve_upward",
]
