"""Reading and writing ResourceLists, Lists and plain streams.

kpt writes a ResourceList in one regular block style: ``items:`` at column 0, each item a ``- ``
entry whose lines are indented by two. The reader splits that text into items without parsing
them; an item is parsed only when a function reads it, and written back as its original text when
nothing changed it. Anything irregular falls back to a full round-trip parse.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from krmlib._base import spill as _spill
from krmlib._model import storage as _storage
from krmlib._model.collection import FunctionPackage, Items
from krmlib._model.object import KubeObject, doc_to_item
from krmlib._model.results import Result, Results
from krmlib._yaml import emit as _emit
from krmlib._yaml import engines as _yaml

from . import reader as _reader
from .reader import RL_API_VERSIONS, RL_KIND, CheckFailed

if TYPE_CHECKING:
    from . import background as _background

InputForm = Literal["resourcelist", "list", "stream"]
Span = tuple[str, int, int]  # (text, start, stop): a part of the input, sliced when written
Piece = str | Span | _spill.Held  # a text held out of memory: read back when written
SPAN_RUN = 256 * 1024  # the longest run of unedited items written as one slice


class ResourceList:
    """The function's input and output: items, the functionConfig and the results."""

    __slots__ = (
        "_extra",
        "_failure",
        "_input_results",
        "_package",
        "_pending",
        "api_version",
        "form",
        "function_config",
        "items",
        "results",
    )

    def __init__(
        self,
        items: Items | None = None,
        function_config: KubeObject | None = None,
        results: Results | None = None,
        form: InputForm = "resourcelist",
        api_version: str = "config.kubernetes.io/v1",
    ) -> None:
        self.items = Items() if items is None else items
        self.function_config = function_config
        self.results = Results() if results is None else results
        self.form: InputForm = form
        self.api_version = api_version
        # Top-level sections of the input we do not interpret, kept as text (in input order).
        self._extra: list[tuple[str, str]] = []
        self._input_results = ""
        self._pending: _background.Pending | None = None  # the input check, running in a child
        self._failure: list[Result] = []  # what it found
        # package()'s answer and what it was computed from: (items, their version, edits)
        self._package: tuple[Items, int, int, FunctionPackage] | None = None

    def __repr__(self) -> str:
        return f"<ResourceList {self.form}: {len(self.items)} items, {len(self.results)} results>"

    # --- reading ----------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, *, background: bool = False) -> ResourceList:
        """Read a ResourceList, a v1 List or a stream of objects (``krmlib._io.reader``).

        Every byte is checked before this returns, or, with ``background`` and a big input, in
        a forked child while the caller goes on: the list then waits for the check's verdict
        before it lets anything be written or run (:meth:`verify`, the one gate)."""
        parsed = _reader.read_input(text, background=background)
        rl = cls(form=parsed.form, api_version=parsed.api_version)  # type: ignore[arg-type]
        rl.items = Items(parsed.items)
        rl.function_config = parsed.function_config
        rl._extra = parsed.extra
        rl._input_results = parsed.input_results
        rl._pending = parsed.pending
        return rl

    def package(self) -> FunctionPackage:
        """The package this function runs for: its Kptfile and its folder (see
        :class:`FunctionPackage`); an item that contradicts it is a :class:`KrmError` naming
        that item and field.

        Computed once and kept (the runner asks before the function runs, the function asks
        again): the kept answer goes when an item is added or removed, ``items`` is replaced,
        or any object's apiVersion, kind, ``metadata`` or whole text is written
        (``_storage.IDENTITY_EDITS``), so a stale answer is never returned."""
        items, edits = self.items, _storage.IDENTITY_EDITS[0]
        kept = self._package
        if kept is not None and kept[0] is items and kept[1] == items.version and kept[2] == edits:
            return kept[3]
        package = FunctionPackage.of(items)
        self._package = (items, items.version, edits, package)
        return package

    def check_failure(self, *, final: bool = False) -> list[Result]:
        """The error results of the input check when it failed, else ``[]``.

        With :meth:`parse`'s ``background``, this waits for the check's verdict. ``final``:
        the run is over (the runner says so), krmlib's gate forgets this input; until then a
        refused input keeps every write and plugin run of the process refused."""
        if self._pending is not None:
            self._failure = _reader.settle(self._pending, forget=final)
            if final:
                self._pending = None
        return self._failure

    def verify(self) -> None:
        """Raise :class:`CheckFailed` if the input check failed (waiting for it if needed):
        the gate before a side effect (a write, a plugin run) that unchecked input must not
        cause. krmlib's own writes pass the same gate (``krmlib._io.reader.gate``)."""
        failure = self.check_failure()
        if failure:
            raise CheckFailed(failure)
        _reader.gate()

    # --- writing ----------------------------------------------------------------------------

    def to_yaml(self, with_results: bool = True) -> str:
        """One YAML document: the ResourceList (items in their order, then results).

        ``with_results=False`` leaves out every result, earlier functions' included."""
        return "".join(self.iter_yaml(with_results))

    def iter_yaml(self, with_results: bool = True) -> Iterator[str]:
        """The pieces of :meth:`to_yaml`, so a big output can be written without joining it."""
        return map(piece_text, self.pieces(with_results))

    def pieces(self, with_results: bool = True) -> Iterator[Piece]:
        """The pieces of :meth:`to_yaml`, with runs of unedited items as spans of the input
        text (``(text, start, stop)``, at most :data:`SPAN_RUN` long) and new texts held out of
        memory as :class:`~krmlib._base.spill.Held` (a console run: :mod:`krmlib._base.spill`):
        everything that can fail is done when the pieces are listed, but reading a held text
        back."""
        yield f"apiVersion: {self.api_version}\nkind: {RL_KIND}\n"
        if len(self.items):
            yield "items:\n"
            run: Span | None = None
            for obj in self.items:
                span = _storage.of(obj).span_of_input()
                # An item edited in place: the input before the edit, the edit, the input after.
                patched = _storage.of(obj).patched_span() if span is None else None
                if patched is not None:
                    span = patched[0]
                if (
                    span is not None
                    and run is not None
                    and span[0] is run[0]
                    and span[1] == run[2]
                    and span[2] - run[1] <= SPAN_RUN
                ):
                    run = (run[0], run[1], span[2])
                else:
                    if run is not None:
                        yield run
                        run = None
                    if span is not None:
                        run = span
                    else:
                        held = _storage.of(obj).held_item()
                        yield obj.to_item() if held is None else held
                        continue
                if patched is not None:
                    assert run is not None
                    yield run
                    if isinstance(patched[1], str):
                        yield patched[1]
                    else:
                        yield from patched[1]  # a big insertion's pieces
                    run = patched[2]
            if run is not None:
                yield run
        else:
            yield "items: []\n"
        if self.function_config is not None:
            yield "functionConfig:\n" + _indent(self.function_config.to_yaml())
        for _key, section in self._extra:
            yield section
        results = self.results.sorted() if with_results else []
        earlier = self._input_results if with_results else ""
        if results or earlier:
            yield "results:\n" + earlier
            batch: list[str] = []  # held together (krmlib._base.spill): thousands of results
            size = 0
            for result in results:
                data = result.to_dict()
                text = _emit.emit_item(data) or doc_to_item(_yaml.dump_plain(data))
                batch.append(text)
                size += len(text)
                if size >= _spill.BATCH:
                    yield _spill.hold_joined(batch)
                    batch, size = [], 0
            if batch:
                yield _spill.hold_joined(batch)

    def to_stream(self) -> str:
        """The items as a multi-document stream (standalone use)."""
        return "---\n".join(obj.to_yaml() for obj in self.items)


def piece_text(piece: Piece) -> str:
    """The text of one of :meth:`ResourceList.pieces`."""
    if isinstance(piece, str):
        return piece
    if isinstance(piece, tuple):
        return piece[0][piece[1] : piece[2]]
    return _spill.text_of(piece)


def piece_data(piece: Piece) -> bytes:
    """The UTF-8 of one of :meth:`ResourceList.pieces` (a held text's bytes as they are)."""
    if isinstance(piece, int):
        return _spill.data_of(piece)
    return piece_text(piece).encode("utf-8")


def _indent(text: str) -> str:
    return "".join("  " + line if line.strip() else "\n" for line in text.splitlines(keepends=True))


__all__ = [
    "RL_API_VERSIONS",
    "RL_KIND",
    "CheckFailed",
    "FunctionPackage",
    "Piece",
    "ResourceList",
    "Span",
]
