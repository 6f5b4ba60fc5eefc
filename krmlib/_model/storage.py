"""The storage behind one :class:`~krmlib._model.object.KubeObject`: every form its content takes,
and every speed trick, in one private type.

A :class:`Storage` holds an object's content in one of three states, and moves between them only
when asked:

- **text**: the item's YAML as read (``text``; for an item of a ResourceList, the span
  ``start:stop`` of the whole input, no copy kept), possibly edited in place (``patch``: one
  splice of the span, so a labelled item still holds no copy of its text). Reads parse it lazily
  into ``plain`` (fast plain values, forgotten on :meth:`release`); the header
  (apiVersion, kind, name, namespace) and ``metadata.labels``/``annotations`` are scanned from
  the text without parsing (``header``, ``scanned``). Simple writes splice the text
  (:mod:`krmlib._yaml.splice`), so an untouched item is written back byte for byte and a labelled
  one as its text with one edit.
- **round-trip tree** (``node``): parsed by ruamel on the first write the splicer cannot do;
  comments and quoting kept, dumped when written out.
- **new** (``plain`` without text or node): an object built from plain values, edited in place
  and written by krmlib's small emitter.

In a console run a big output's new texts wait for the gate out of memory
(:mod:`krmlib._base.spill`): a new item's own text, or the pieces of a big insertion (thousands
of Kptfile conditions), may be an int, where it is held; :attr:`src` brings it back for good,
:meth:`text_as_written` and the writer read it without keeping it.

The operations are :meth:`read` / :meth:`read_at`, :meth:`set`, :meth:`delete` and
:meth:`dump_doc` / :meth:`dump_item`, plus the header and string maps. ``dirty`` is true once the
tree or new values changed, ``spliced`` once the text was edited.

Only :mod:`krmlib._model.object` (the public face) and this module touch a KubeObject's private
state; the rest of krmlib reaches the storage through :func:`of` and the methods here
(krmlib-internal, never handed to functions). ``tests/test_private_state.py`` enforces it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from krmlib._base import spill as _spill
from krmlib._base.errors import FieldTypeError, InputError
from krmlib._base.paths import Key
from krmlib._yaml import engines as _yaml
from krmlib._yaml import pathscan as _pathscan
from krmlib._yaml import scan as _scan

from .trees import (
    MISSING,
    _add_key,
    _assign,
    _child,
    _str,
    doc_to_item,
    item_to_doc,
    own_path,
    parent_of,
    same_plain,
    walk,
)

if TYPE_CHECKING:
    from .object import KubeObject

Form = Literal["item", "doc"]
Header = tuple[str, str, str, str]
Pieces = tuple[str | _spill.Held, ...]  # a big insertion's texts, some held out of memory
Patch = tuple[int, int, str | Pieces]


IDENTITY_EDITS = [0]
"""How many writes so far could change what the package rule reads of an object (its
apiVersion, kind or ``metadata``, or its whole text): ``ResourceList.package()`` keeps its answer
until this count or the items change (``krmlib/_io/resourcelist.py``)."""


def render_scalar(value: str) -> str | None:
    """The text the splicer writes for a new string value, or None if not obvious
    (:func:`krmlib._yaml.splice.render_scalar`: the module of text edits is reached through the
    storage alone)."""
    from krmlib._yaml.splice import render_scalar as render

    return render(value)


# The input text last asked about by may_mention, and which words (and a backslash) it holds
# anywhere: a word absent from the whole input is absent from each of its items. One entry:
# the input of the run (already alive while its items are); replaced by the next input.
_WHOLE: list[Any] = [None, {}]

_SPLICER: list[Any] = []  # krmlib._yaml.splice, once a text was edited


def of(obj: KubeObject) -> Storage:
    """The storage of ``obj`` (krmlib-internal: for the library's readers and writers)."""
    return obj._store


class Storage:
    """One object's content (see the module's documentation)."""

    __slots__ = (
        "closed",
        "dirty",
        "form",
        "header",
        "node",
        "patch",
        "plain",
        "scanned",
        "spliced",
        "start",
        "stop",
        "text",
    )

    def __init__(
        self, src: str | None = None, form: Form = "doc", node: Any = None, plain: Any = None
    ) -> None:
        # The text is the object's own (stop < 0), or the span start:stop of the whole input.
        self.text: str | _spill.Held | None = src  # Held: where it waits, krmlib._base.spill
        self.start = 0
        self.stop = -1
        # A span edited in place: (offset in the item's text, characters of it replaced, their
        # replacement: a tuple of pieces when big); items edited alike may share one (memory).
        self.patch: Patch | None = None
        self.form: Form = form
        self.node = node
        self.plain: Any = plain
        self.dirty = src is None
        self.spliced = False
        # what was scanned from the text (made on first read: most items are never asked):
        # labels/annotations by their section name, values by their path of keys
        self.scanned: dict[Any, Any] | None = None
        self.header: Header | None = None
        # no scalar open over lines in the text as it is (a certain scan said so): not asked again
        self.closed = False

    @classmethod
    def span(cls, text: str, start: int, stop: int) -> Storage:
        """An item of a ResourceList: ``text[start:stop]``, read from ``text`` when needed."""
        store = cls(text, "item")
        store.start, store.stop = start, stop
        return store

    # --- text -----------------------------------------------------------------------------

    @property
    def src(self) -> str:
        """The object's text (a slice of the input for a span: made when asked for; a text
        held out of memory comes back into it, for good)."""
        text = self.text
        assert text is not None
        if self.stop < 0:
            if type(text) is not str:
                text = self.text = _spill.text_of(text)
            return text
        assert type(text) is str  # a span of the input
        if self.patch is None:
            return text[self.start : self.stop]
        at, removed, inserted = self.patch
        at += self.start
        if not isinstance(inserted, str):
            inserted = "".join(map(_spill.text_of, inserted))
        return text[self.start : at] + inserted + text[at + removed : self.stop]

    def text_as_written(self) -> str:
        """:attr:`src`, a text held out of memory read back but not kept (the gate's read)."""
        text = self.text
        assert text is not None
        return _spill.text_of(text) if self.stop < 0 else self.src

    def held_item(self) -> _spill.Held | None:
        """Where an unedited new item's text is held (:mod:`krmlib._base.spill`), or None."""
        text = self.text
        held = isinstance(text, _spill.Held) and self.stop < 0 and not self.dirty
        return text if held and self.form == "item" else None  # type: ignore[return-value]

    @property
    def is_item(self) -> bool:
        """The text is an ``items`` entry (``- `` and indented lines), not a document."""
        return self.form == "item"

    def unparsed_text(self) -> str | None:
        """The object's text while it is held as text (not a round-trip tree, not new plain
        values), else None: what the reader's annotation edits start from."""
        return self.src if self.has_text() else None

    def new_item(self, header: Header | None = None) -> None:
        """The text is a new item's, written by krmlib (``KubeObject.from_item``): it counts as
        changed; ``header`` (apiVersion, kind, name, namespace), when its maker knows it, saves
        scanning the text."""
        self.spliced = True
        if header is not None:
            self.header = header
        if self.stop < 0 and type(self.text) is str:
            _spill.hold_soon(self)  # (out of memory, with the next: krmlib._base.spill)

    def list_append_point(
        self, keys: tuple[str, ...], has_entries: bool
    ) -> tuple[int, str, int] | None:
        """Where new entries of the list at ``keys`` go in the text, for :meth:`splice_insert`
        (:func:`krmlib._yaml.splice.list_append_point`); None where the splicer would not."""
        from krmlib._yaml.splice import list_append_point

        return list_append_point(self.src, self.is_item, keys, has_entries)

    def has_text(self) -> bool:
        """The content is still text (no round-trip tree): the splicer's trick applies."""
        return self.node is None and self.text is not None

    def own_text(self, text: str) -> None:
        """Make ``text`` the object's own text (no longer a span of the input)."""
        self.text, self.start, self.stop, self.patch, self.closed = text, 0, -1, None, False

    def replace_text(self, text: str) -> None:
        """Replace the text by an edit of it made by a caller (what was read from the old text
        goes; the object counts as changed)."""
        IDENTITY_EDITS[0] += 1
        self.own_text(text)
        self.plain = None
        self.header = None
        self.scanned = {}
        self.spliced = True

    def edit_src(self, new: str) -> None:
        """Give the object the text ``new``; a span of the input stays a span, the edit kept as
        one patch: what lies between the parts ``new`` shares with the item at either end."""
        text, start, stop = self.text, self.start, self.stop
        if type(text) is not str or stop < 0:
            self.own_text(new)
            return
        from krmlib._yaml.splice import edit_between

        self.patch = edit_between(text, start, stop, new)

    def span_of_input(self) -> tuple[str, int, int] | None:
        """(input text, start, stop) of an unedited item that is a span of the input."""
        text = self.text
        if self.dirty or type(text) is not str or self.stop < 0 or self.patch is not None:
            return None
        if self.form != "item":
            return None
        return text, self.start, self.stop

    def patched_span(
        self,
    ) -> tuple[tuple[str, int, int], str | Pieces, tuple[str, int, int]] | None:
        """(span before, replacement, span after) of a span of the input edited in place (the
        replacement's pieces may be held out of memory: :mod:`krmlib._base.spill`)."""
        text = self.text
        if self.dirty or self.patch is None or type(text) is not str or self.form != "item":
            return None
        at, removed, inserted = self.patch
        at += self.start
        return (text, self.start, at), inserted, (text, at + removed, self.stop)

    def doc_text(self) -> str:
        assert self.text is not None
        return self.src if self.form == "doc" else item_to_doc(self.src)

    def may_mention(self, word: str) -> bool:
        """False only when ``word`` appears nowhere in the unedited text and no escape could
        spell it; True when unsure (an edited or new object)."""
        text = self.text
        if type(text) is not str or self.node is not None or self.patch is not None:
            return True  # (also a text held out of memory)
        if self.stop < 0:
            return word in text or "\\" in text
        if _WHOLE[0] is not text:  # a new input: what is absent from all of it, asked anew
            _WHOLE[:] = [text, {"\\": "\\" in text}]
        known: dict[str, bool] = _WHOLE[1]
        if not known["\\"]:
            found = known.get(word)
            if found is None:
                found = known[word] = word in text
            if not found:
                return False  # nowhere in the input (one search for thousands of items)
        return (
            text.find(word, self.start, self.stop) >= 0
            or text.find("\\", self.start, self.stop) >= 0
        )

    # --- reading --------------------------------------------------------------------------

    def read(self) -> Any:
        """The tree to read from: the round-trip tree once there is one, else a fast parse."""
        if self.node is not None:
            return self.node
        if self.plain is None:
            try:
                self.plain = _yaml.load_plain(self.doc_text())
            except InputError as exc:
                raise self._named(exc) from None
            if not isinstance(self.plain, dict):
                raise InputError("item is not a mapping", obj=None)
        return self.plain

    def plain_copy(self) -> dict[str, Any] | None:
        """The whole object as new plain values read from an item's text in kpt's block layout
        (:mod:`krmlib._yaml.blockread`, nothing kept), or None: not that, or parsed already."""
        if self.node is not None or self.plain is not None or self.text is None or not self.is_item:
            return None
        from krmlib._yaml.blockread import read_item  # on first use: not a start-up cost

        return read_item(self.src)

    def read_at(self, keys: tuple[Key, ...], obj: KubeObject) -> Any:
        """The live value at ``keys`` (no copy), or :data:`MISSING`; ``obj`` names errors. The
        scan first (:meth:`scan_at`), the parse whenever it is not certain."""
        found = self.scan_at(keys)
        if found is _pathscan.UNSURE:
            return walk(self.read(), keys, obj)
        return found

    def copy_at(self, keys: tuple[Key, ...], obj: KubeObject) -> Any:
        """A plain copy of the value at ``keys`` (what :meth:`KubeObject.get` hands out), or
        :data:`MISSING`."""
        found = self.scan_at(keys)
        if found is _pathscan.UNSURE:
            found = walk(self.read(), keys, obj)
            return found if found is MISSING else _yaml.to_plain(found)
        return _pathscan.copy_scanned(found)

    def scan_at(self, keys: tuple[Key, ...]) -> Any:
        """The value at ``keys`` scanned from the unparsed text (``scan_value``: a few fields of
        thousands of items without building them; kept: a path read again is not scanned
        again), :data:`MISSING`, or ``UNSURE`` (read the tree instead)."""
        if self.node is not None or self.plain is not None or self.text is None or not keys:
            return _pathscan.UNSURE
        if not all(type(key) is str for key in keys):
            return _pathscan.UNSURE
        scanned = self.scanned
        if scanned is None:
            scanned = self.scanned = {}
        found = scanned.get(keys, _pathscan.UNSURE)
        if found is _pathscan.UNSURE:
            src = self._closed_src()
            found = _pathscan.scan_value(src, self.form == "item", keys, scanned)  # type: ignore[arg-type]
            if found is _pathscan.UNSURE:
                return found
            scanned[keys] = found
        return MISSING if found is _pathscan.ABSENT else found

    def _closed_src(self) -> str:
        """The text, :func:`krmlib._yaml.scan.open_scalar` told what is known of it."""
        src = self.src
        if self.closed:
            _scan.known_closed(src)
        return src

    def _named(self, exc: InputError) -> InputError:
        """``exc`` (the item's text refused by the parse) naming the item, its line counted
        in the item."""
        if exc.obj is not None or self.text is None:
            return exc
        head = self.header or _scan.scan_header(self.src, self.form == "item")
        where = f"line {exc.line} of " if exc.line is not None else ""
        what = f"{head[1]} {head[2]}" if head is not None else "an item"
        return InputError(f"{exc.message} ({where}{what})", field=exc.field)

    def release(self) -> None:
        """Forget what reading parsed while the text is still the object's (edits are kept)."""
        if self.node is None and self.text is not None:
            self.plain = None
            self.scanned = None

    def head(self) -> Header:
        """(apiVersion, kind, name, namespace), cached until a write that may change it."""
        if self.header is None:
            if self.node is None and self.plain is None and self.text is not None:
                self.header = _scan.scan_header(self.src, self.form == "item")
                if self.header is not None:
                    self.closed = True  # the scan was certain: no scalar open over lines
            if self.header is None:
                data = self.read()
                self.header = (
                    _str(walk(data, ("apiVersion",))),
                    _str(walk(data, ("kind",))),
                    _str(walk(data, ("metadata", "name"))),
                    _str(walk(data, ("metadata", "namespace"))),
                )
        return self.header

    def offer_header(self, header: Header | None) -> None:
        """A header a reader learned from the text (kept unless one is known or it changed)."""
        if self.header is None and not (self.dirty or self.spliced):
            self.header = header

    def string_map(self, path: tuple[str, ...], obj: KubeObject) -> dict[str, Any]:
        """The map at ``metadata.labels`` or ``metadata.annotations``: scanned from the text
        while it is unparsed, else read from the tree ({} when absent or null; a list or a
        scalar there is refused: kpt wants a map, and writing would lose the user's value)."""
        if self.node is None and self.plain is None and self.text is not None:
            section = path[1]
            scanned = self.scanned
            if scanned is None:
                scanned = self.scanned = {}
            if section not in scanned:
                src = self._closed_src()
                scanned[section] = _scan.scan_metadata_map(src, self.form == "item", section)
            found: dict[str, Any] | None = scanned[section]
            if found is not None:
                return found
        value = walk(self.read(), path, obj)
        if isinstance(value, dict):
            return value
        if value is None or value is MISSING:
            return {}
        field = ".".join(path)
        what = "a list" if isinstance(value, list) else "a scalar"
        raise FieldTypeError(
            f"{obj.kind} {obj.name}: {field} must be a map, not {what}", obj=obj, field=field
        )

    # --- writing --------------------------------------------------------------------------

    @property
    def is_new(self) -> bool:
        """A new object of plain values: edited in place, written by the small emitter."""
        return self.node is None and self.text is None

    def tree(self) -> Any:
        """The tree to write to: the round-trip tree (parsed on first write), or new plain data."""
        if self.is_new:
            return self.plain
        if self.node is None:
            node = _yaml.load_rt(self.doc_text())
            if not isinstance(node, dict):
                raise InputError("item is not a mapping")
            self.node = node
            self.plain = None
        return self.node

    def mark_read(self) -> None:
        """The content is as read from the input (a round-trip tree of it): not changed."""
        self.dirty = False

    def set(self, keys: tuple[Key, ...], value: Any, obj: KubeObject) -> bool:
        """Set ``keys`` to ``value`` (see :meth:`KubeObject.set`); True if anything changed."""
        if self.node is None and self.text is not None and isinstance(value, (str, dict, list)):
            if not isinstance(value, str) and same_plain(self.scan_at(keys), value):
                return False  # as the scan reads it
            spliced = self._splice(keys, value, obj)
            if spliced is not None:
                return spliced
        if same_plain(_yaml.to_plain(self.read_at(keys, obj)), value):
            return False  # as it is (read by a scan when the scan is certain: no parse)
        if not self.is_new:  # plain values: nothing shared
            own_path(self.tree(), keys)
        if not self.is_new and self._add_path(keys, value):
            return True
        parent = self._parent(keys, True, obj)
        last = keys[-1]
        old = _child(parent, last)
        new = _yaml.to_plain(value) if self.is_new else _assign(old, value)
        if isinstance(last, int):
            if last == len(parent):
                parent.append(new)
            else:
                parent[last] = new
        elif self.is_new or old is not MISSING:
            parent[last] = new
        else:
            _add_key(parent, last, new)
        self.dirty = True
        self.forget_header(keys)
        return True

    def delete(self, keys: tuple[Key, ...], obj: KubeObject) -> bool:
        """Remove the field at ``keys``; True if it was there."""
        if not keys or walk(self.read(), keys, obj) is MISSING:
            return False
        if not self.is_new:  # plain values: nothing shared
            own_path(self.tree(), keys)
        parent = self._parent(keys, False, obj)
        del parent[keys[-1]]
        self.dirty = True
        self.forget_header(keys)
        return True

    def _add_path(self, keys: tuple[Key, ...], value: Any) -> bool:
        """Add a missing map path in one go (so that comments after the map it joins stay after
        the whole new entry); False when no map on the path is missing."""
        node = self.tree()
        for depth, key in enumerate(keys[:-1]):
            child = _child(node, key)
            if child is MISSING:
                if not isinstance(node, dict) or not all(isinstance(k, str) for k in keys[depth:]):
                    return False
                nested: Any = _assign(MISSING, value)
                for inner in reversed(keys[depth + 1 :]):
                    wrapper = _yaml.new_map()
                    wrapper[inner] = nested
                    nested = wrapper
                _add_key(node, key, nested)
                self.dirty = True
                self.forget_header(keys)
                return True
            if not isinstance(child, dict | list):
                return False
            node = child
        return False

    def _splice(self, keys: tuple[Key, ...], value: Any, obj: KubeObject) -> bool | None:
        """Set a value by editing the item's text in place; None when that is not simple."""
        if not _SPLICER:  # imported on the first edit (an import statement per write: 1 us)
            from krmlib._yaml import splice

            _SPLICER.append(splice)
        splicer = _SPLICER[0]
        for key in keys:  # (a loop: no generator per write)
            if not isinstance(key, str):
                return None
        assert self.text is not None
        current = None
        if isinstance(value, list):
            found = self.read_at(keys, obj)
            if found is not MISSING:
                current = _yaml.to_plain(found)
                if same_plain(current, value):
                    return False
        src = self.src
        if self.closed or (
            self.scanned
            and any(v is not None and v is not _pathscan.UNSURE for v in self.scanned.values())
        ):
            _scan.known_closed(src)  # a scan answered from this very text: nothing in it is open
        new = splicer.splice_set(src, self.form == "item", keys, value, current)
        if new is None:
            return None
        if new == src:
            return False
        edit = splicer.last_edit(src, new) if self.stop >= 0 and self.patch is None else None
        if edit is None:
            self.edit_src(new)
        else:  # the splicer says where: a span of the input keeps its span, with one patch
            self.patch = edit
        self.spliced_at(keys)
        return True

    def splice_insert(
        self, keys: tuple[Key, ...], at: int, inserted: Pieces, removed: int = 0
    ) -> None:
        """Put the pieces ``inserted`` in place of ``removed`` characters at offset ``at`` of the
        text (a write at ``keys`` that a caller placed, as the splicer would): a span of the
        input keeps its span with the pieces as its patch, so a big edit is neither joined,
        copied nor compared."""
        assert self.node is None and self.text is not None
        if self.stop >= 0 and self.patch is None:
            self.patch = (at, removed, inserted)
        else:
            src = self.src
            self.edit_src(src[:at] + "".join(map(_spill.text_of, inserted)) + src[at + removed :])
        self.spliced_at(keys)

    def spliced_at(self, keys: tuple[Key, ...]) -> None:
        """After an edit of the text at ``keys``: what was read from the old text goes."""
        self.plain = None
        self.forget_header(keys)
        self.scanned, self.closed = None, False
        self.spliced = True

    def forget_header(self, keys: tuple[Key, ...]) -> None:
        """Drop the cached header after a write at ``keys``, unless the write cannot touch
        apiVersion, kind, metadata.name or metadata.namespace (a label, an annotation)."""
        first = keys[0]
        if first in ("apiVersion", "kind", "metadata"):
            IDENTITY_EDITS[0] += 1  # the package rule reads these: its kept answer goes
        if first in ("apiVersion", "kind") or (
            first == "metadata" and (len(keys) == 1 or keys[1] in ("name", "namespace"))
        ):
            self.header = None

    def _parent(self, keys: tuple[Key, ...], create: bool, obj: KubeObject) -> Any:
        return parent_of(self.tree(), keys, create, self.is_new, obj)

    # --- output ---------------------------------------------------------------------------

    @property
    def changed(self) -> bool:
        return self.dirty or self.spliced

    def dump_doc(self) -> str:
        """The content as one YAML document (the text as it is if the tree never changed)."""
        if not self.dirty and self.text is not None:
            return self.doc_text()
        if self.is_new:
            return _yaml.dump_plain(self.plain)
        return _yaml.dump_rt(self.tree())

    def dump_item(self) -> str:
        """The content as a block-sequence entry of a ResourceList's ``items``."""
        if not self.dirty and self.text is not None:
            return self.src if self.form == "item" else doc_to_item(self.src)
        if self.is_new:
            from krmlib._yaml.emit import emit_item

            text = emit_item(self.plain)
            if text is not None:
                return text
        return doc_to_item(self.dump_doc())
