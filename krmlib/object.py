"""KubeObject: one KRM item, parsed only when read and re-serialised only when changed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, Literal, TypeVar

from . import _scalars, _scan, _yaml
from .errors import FieldTypeError, InputError, KrmError
from .paths import Key, Path, format_path, parse_path

ANN_PATH = "internal.config.kubernetes.io/path"
ANN_LEGACY_PATH = "config.kubernetes.io/path"
ANN_INDEX = "internal.config.kubernetes.io/index"
ANN_LEGACY_INDEX = "config.kubernetes.io/index"
ANN_LOCAL_CONFIG = "config.kubernetes.io/local-config"
ANN_PACKAGE_PATH = "internal.config.kubernetes.io/package-path"

Form = Literal["item", "doc"]
M = TypeVar("M")

_MISSING: Any = object()


class KubeObject:
    """One KRM object.

    Build one with :meth:`from_dict` (a new object) or :meth:`from_yaml` (text); the library
    builds the items of a ResourceList. Read with :meth:`get` and the properties, write with
    :meth:`set`, :meth:`merge`, :meth:`delete`, :attr:`labels`, :attr:`annotations`. Values go in
    and come out as plain Python (dict, list, str, int, float, bool, None).
    """

    __slots__ = (
        "_dirty",
        "_header",
        "_node",
        "_patch",
        "_plain",
        "_scanned",
        "_spliced",
        "_src_form",
        "_start",
        "_stop",
        "_text",
        "input_line",
    )

    def __init__(
        self, *, src: str | None = None, form: Form = "doc", node: Any = None, plain: Any = None
    ) -> None:
        # Three states: text from the input (src, parsed lazily into _plain for reads and into
        # _node for writes), a round-trip tree (node), or a new object of plain values (plain).
        # The text is this object's own (_stop < 0), or the span _start:_stop of the whole input
        # (items of a ResourceList: no copy of each item kept beside the input).
        self._text = src
        self._start = 0
        self._stop = -1
        # A span edited in place (a label spliced in): (offset in the input, characters of the
        # item replaced, their replacement), so the item does not hold a copy of its text. A big
        # replacement may be a tuple of pieces (written one after the other, never joined).
        self._patch: tuple[int, int, str | tuple[str, ...]] | None = None
        self._src_form: Form = form
        self._node = node
        self._plain: Any = plain
        self._dirty = src is None
        self._spliced = False
        # labels/annotations read from the text (made on first read: most items are never asked)
        self._scanned: dict[str, dict[str, str] | None] | None = None
        self.input_line = 0  # where the item starts in the input text (0: unknown)
        self._header: tuple[str, str, str, str] | None = None

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def _span(cls, text: str, start: int, stop: int) -> KubeObject:
        """An item of a ResourceList: ``text[start:stop]``, read from ``text`` when needed."""
        obj = cls(src=text, form="item")
        obj._start, obj._stop = start, stop
        return obj

    @property
    def _src(self) -> str:
        """The object's text (a slice of the input for a span: made when asked for)."""
        text = self._text
        assert text is not None
        if self._stop < 0:
            return text
        if self._patch is None:
            return text[self._start : self._stop]
        at, removed, inserted = self._patch
        if not isinstance(inserted, str):
            inserted = "".join(inserted)
        return text[self._start : at] + inserted + text[at + removed : self._stop]

    @_src.setter
    def _src(self, text: str) -> None:
        self._text, self._start, self._stop, self._patch = text, 0, -1, None

    def _edit_src(self, new: str) -> None:
        """Give the object the text ``new``; a span of the input stays a span, the edit kept as
        one patch: what lies between the parts ``new`` shares with the item at either end."""
        text, start, stop = self._text, self._start, self._stop
        if text is None or stop < 0:
            self._src = new
            return
        size = stop - start
        low, high = 0, min(size, len(new))  # the longest common prefix (compared in C)
        while low < high:
            mid = (low + high + 1) // 2
            if text.startswith(new[:mid], start, stop):
                low = mid
            else:
                high = mid - 1
        prefix = low
        low, high = 0, min(size, len(new)) - prefix  # the longest common suffix after it
        while low < high:
            mid = (low + high + 1) // 2
            if text.endswith(new[len(new) - mid :], start, stop):
                low = mid
            else:
                high = mid - 1
        self._patch = (start + prefix, size - prefix - low, new[prefix : len(new) - low])

    def _span_of_input(self) -> tuple[str, int, int] | None:
        """(input text, start, stop) of an unedited item that is a span of the input."""
        if (
            self._dirty
            or self._text is None
            or self._stop < 0
            or self._patch is not None
            or self._src_form != "item"
        ):
            return None
        return self._text, self._start, self._stop

    def _patched_span(
        self,
    ) -> tuple[tuple[str, int, int], str | tuple[str, ...], tuple[str, int, int]] | None:
        """(span before, replacement, span after) of a span of the input edited in place."""
        if self._dirty or self._patch is None or self._text is None or self._src_form != "item":
            return None
        at, removed, inserted = self._patch
        return (self._text, self._start, at), inserted, (self._text, at + removed, self._stop)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KubeObject:
        """A new object from plain values (key order is kept)."""
        return cls(plain=_yaml.to_plain(dict(data)))

    @classmethod
    def from_yaml(cls, text: str) -> KubeObject:
        """An object from the text of one YAML document; emitted unchanged if never edited."""
        if not text.endswith("\n"):
            text += "\n"
        return cls(src=text, form="doc")

    @classmethod
    def from_item(cls, text: str) -> KubeObject:
        """A new object from the text of an ``items`` entry (as :meth:`to_item` writes one),
        written out as it is. It counts as changed. For a function that makes thousands of
        objects and does not edit them again: their text is smaller than their values."""
        obj = cls(src=text, form="item")
        obj._spliced = True
        return obj

    def copy(self) -> KubeObject:
        """An independent copy (new objects are always written out in full)."""
        return KubeObject(node=_yaml.load_rt(self.to_yaml()))

    # --- parsing ----------------------------------------------------------------------------

    def _doc_text(self) -> str:
        assert self._text is not None
        return self._src if self._src_form == "doc" else item_to_doc(self._src)

    def _read(self) -> Any:
        """The tree to read from: the round-trip tree once there is one, else a fast parse."""
        if self._node is not None:
            return self._node
        if self._plain is None:
            self._plain = _yaml.load_plain(self._doc_text())
            if not isinstance(self._plain, dict):
                raise InputError("item is not a mapping", obj=None)
        return self._plain

    @property
    def _is_new(self) -> bool:
        """A new object of plain values: edited in place, written by the small emitter."""
        return self._node is None and self._text is None

    def _tree(self) -> Any:
        """The tree to write to: the round-trip tree (parsed on first write), or new plain data."""
        if self._is_new:
            return self._plain
        if self._node is None:
            node = _yaml.load_rt(self._doc_text())
            if not isinstance(node, dict):
                raise InputError("item is not a mapping")
            self._node = node
            self._plain = None
        return self._node

    def release(self) -> None:
        """Forget what reading parsed (the values, the scanned labels and annotations) while the
        text is still the item's: for a function done with an item it only read (memory). A
        later read parses the text again; edits are kept."""
        if self._node is None and self._text is not None:
            self._plain = None
            self._scanned = None

    def validate(self) -> None:
        """Check that this is a readable KRM object: mapping, apiVersion, kind, metadata.name."""
        data = self._read()
        for path in (("apiVersion",), ("kind",), ("metadata", "name")):
            value = _walk(data, path)
            if not isinstance(value, str) or not value:
                raise InputError(
                    f"item has no {format_path(path)}", obj=self, field=format_path(path)
                )

    # --- header ----------------------------------------------------------------------------

    def _head(self) -> tuple[str, str, str, str]:
        """(apiVersion, kind, name, namespace), cached until the next write."""
        if self._header is None:
            if self._node is None and self._plain is None and self._text is not None:
                self._header = _scan.scan_header(self._src, self._src_form == "item")
            if self._header is None:
                data = self._read()
                self._header = (
                    _str(_walk(data, ("apiVersion",))),
                    _str(_walk(data, ("kind",))),
                    _str(_walk(data, ("metadata", "name"))),
                    _str(_walk(data, ("metadata", "namespace"))),
                )
        return self._header

    @property
    def api_version(self) -> str:
        return self._head()[0]

    @property
    def kind(self) -> str:
        return self._head()[1]

    @property
    def name(self) -> str:
        return self._head()[2]

    @property
    def namespace(self) -> str:
        return self._head()[3]

    @property
    def group(self) -> str:
        """The API group ('' for the core group)."""
        api_version = self.api_version
        return api_version.rsplit("/", 1)[0] if "/" in api_version else ""

    @property
    def version(self) -> str:
        return self.api_version.rsplit("/", 1)[-1]

    @property
    def gvk(self) -> tuple[str, str, str]:
        """(group, version, kind)."""
        return self.group, self.version, self.kind

    @property
    def group_kind(self) -> str:
        """``Kind.group`` (core kinds plain ``Kind``), as kubectl writes group-kinds."""
        return f"{self.kind}.{self.group}" if self.group else self.kind

    def ref(self) -> dict[str, str]:
        """A resourceRef for results: apiVersion, kind, name and namespace when set."""
        ref = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}
        if self.namespace:
            ref["namespace"] = self.namespace
        return ref

    def is_kind(self, api_version: str | None = None, kind: str | None = None) -> bool:
        """Match apiVersion ('group/version', or 'group/*' and '*' patterns) and kind."""
        if kind is not None and self.kind != kind:
            return False
        if api_version is None or api_version == "*":
            return True
        if api_version.endswith("/*"):
            return self.group == api_version[:-2]
        return self.api_version == api_version

    def __repr__(self) -> str:
        try:
            ns = f"{self.namespace}/" if self.namespace else ""
            return f"<KubeObject {self.api_version} {self.kind} {ns}{self.name}>"
        except KrmError:
            return "<KubeObject (unreadable)>"

    # --- nested fields ------------------------------------------------------------------------

    def get(self, path: Path, default: Any = None) -> Any:
        """The value at ``path`` as plain Python (a copy), or ``default`` when absent."""
        value = _walk(self._read(), parse_path(path), self)
        if value is _MISSING or value is None or isinstance(value, _scalars.StyledNull):
            return default
        return _yaml.to_plain(value)

    def _raw(self, path: Path) -> Any:
        """The live value at ``path`` (no copy; krmlib-internal, never handed to functions)."""
        value = _walk(self._read(), parse_path(path), self)
        return None if value is _MISSING else value

    def has(self, path: Path) -> bool:
        return _walk(self._read(), parse_path(path), self) is not _MISSING

    def set(self, path: Path, value: Any) -> bool:
        """Set ``path`` to ``value``, creating parent maps; True if anything changed.

        Maps and lists are written into the existing tree node by node, so comments and quoting
        of the parts that did not change survive. Setting the value a field already has changes
        nothing (the item is then not re-serialised).
        """
        keys = parse_path(path)
        if not keys:
            raise ValueError("set() needs a non-empty path")
        if self._node is None and self._text is not None and isinstance(value, str | dict | list):
            spliced = self._splice(keys, value)
            if spliced is not None:
                return spliced
        if _yaml.to_plain(_walk(self._read(), keys, self)) == value:
            return False
        if not self._is_new and self._add_path(keys, value):
            return True
        parent = self._parent(keys, create=True)
        last = keys[-1]
        old = _child(parent, last)
        new = _yaml.to_plain(value) if self._is_new else _assign(old, value)
        if isinstance(last, int):
            if last == len(parent):
                parent.append(new)
            else:
                parent[last] = new
        elif self._is_new or old is not _MISSING:
            parent[last] = new
        else:
            _add_key(parent, last, new)
        self._dirty = True
        self._forget_header(keys)
        return True

    def _add_path(self, keys: tuple[Key, ...], value: Any) -> bool:
        """Add a missing map path in one go (so that comments after the map it joins stay after
        the whole new entry); False when no map on the path is missing."""
        node = self._tree()
        for depth, key in enumerate(keys[:-1]):
            child = _child(node, key)
            if child is _MISSING:
                if not isinstance(node, dict) or not all(isinstance(k, str) for k in keys[depth:]):
                    return False
                nested: Any = _assign(_MISSING, value)
                for inner in reversed(keys[depth + 1 :]):
                    wrapper = _yaml.new_map()
                    wrapper[inner] = nested
                    nested = wrapper
                _add_key(node, key, nested)
                self._dirty = True
                self._forget_header(keys)
                return True
            if not isinstance(child, dict | list):
                return False
            node = child
        return False

    def _splice(self, keys: tuple[Key, ...], value: Any) -> bool | None:
        """Set a value by editing the item's text in place; None when that is not simple."""
        from ._splice import splice_set

        if not all(isinstance(key, str) for key in keys):
            return None
        assert self._text is not None
        current = None
        if isinstance(value, list):
            found = _walk(self._read(), keys, self)
            if found is not _MISSING:
                current = _yaml.to_plain(found)
                if current == value:
                    return False
        src = self._src
        new = splice_set(src, self._src_form == "item", keys, value, current)  # type: ignore[arg-type]
        if new is None:
            return None
        if new == src:
            return False
        self._edit_src(new)
        self._spliced_at(keys)
        return True

    def _splice_insert(self, keys: tuple[Key, ...], at: int, inserted: tuple[str, ...]) -> None:
        """Insert the pieces ``inserted`` at offset ``at`` of the text (a write at ``keys`` that
        a caller placed, as :meth:`_splice` would): a span of the input keeps its span with the
        pieces as its patch, so a big insertion is neither joined, copied nor compared."""
        assert self._node is None and self._text is not None
        if self._stop >= 0 and self._patch is None:
            self._patch = (self._start + at, 0, inserted)
        else:
            src = self._src
            self._edit_src(src[:at] + "".join(inserted) + src[at:])
        self._spliced_at(keys)

    def _spliced_at(self, keys: tuple[Key, ...]) -> None:
        """After an edit of the text at ``keys``: what was read from the old text goes."""
        self._plain = None
        self._forget_header(keys)
        self._scanned = None
        self._spliced = True

    def _forget_header(self, keys: tuple[Key, ...]) -> None:
        """Drop the cached header after a write at ``keys``, unless the write cannot touch
        apiVersion, kind, metadata.name or metadata.namespace (a label, an annotation)."""
        first = keys[0]
        if first in ("apiVersion", "kind") or (
            first == "metadata" and (len(keys) == 1 or keys[1] in ("name", "namespace"))
        ):
            self._header = None

    def merge(self, path: Path, value: Mapping[str, Any]) -> bool:
        """Merge a map into ``path``: maps recursively, lists and scalars replaced, None deletes."""
        keys = parse_path(path)
        current = _walk(self._read(), keys, self) if keys else self._read()
        changed = False
        if current is _MISSING or not isinstance(current, dict):
            return self.set(keys, _drop_none(value)) if keys else False
        for key, item in value.items():
            sub = (*keys, key)
            if item is None:
                changed = self.delete(sub) or changed
            elif isinstance(item, Mapping) and isinstance(current.get(key), dict):
                changed = self.merge(sub, item) or changed
            else:  # a new or replaced value: its nulls remove nothing, so they are dropped
                value_ = _drop_none(item) if isinstance(item, Mapping) else item
                changed = self.set(sub, value_) or changed
        return changed

    def delete(self, path: Path) -> bool:
        """Remove the field at ``path``; True if it was there."""
        keys = parse_path(path)
        if not keys or _walk(self._read(), keys, self) is _MISSING:
            return False
        parent = self._parent(keys, create=False)
        del parent[keys[-1]]
        self._dirty = True
        self._forget_header(keys)
        return True

    def _parent(self, keys: tuple[Key, ...], create: bool) -> Any:
        node = self._tree()
        for depth, key in enumerate(keys[:-1]):
            child: Any = _child(node, key)
            if child is _MISSING or child is None:
                if not create:
                    raise KeyError(key)
                child = {} if isinstance(keys[depth + 1], str) else []
                if not self._is_new:
                    child = _yaml.to_node(child)
                if isinstance(key, int):
                    node.append(child)
                elif self._is_new:
                    node[key] = child
                else:
                    _add_key(node, key, child)
            elif not isinstance(child, dict | list):
                raise FieldTypeError(
                    f"{self!r}: {format_path(keys[: depth + 1])} is not a map or list",
                    obj=self,
                    field=format_path(keys[: depth + 1]),
                )
            node = child
        return node

    def to_dict(self) -> dict[str, Any]:
        """The whole object as plain Python (a copy)."""
        plain = _yaml.to_plain(self._read())
        assert isinstance(plain, dict)
        return plain

    # --- typed views ------------------------------------------------------------------------

    def as_model(self, model: type[M], path: Path = "") -> M:
        """The sub-tree at ``path`` validated as a pydantic model; errors name the field."""
        from .models import validate_model

        keys = parse_path(path)
        data = self.get(keys, {}) if keys else self.to_dict()
        return validate_model(model, data, obj=self, prefix=format_path(keys))

    def write_model(self, value: Any, path: Path = "") -> bool:
        """Merge a pydantic model (or mapping) back into ``path``, keeping untouched comments.

        Fields the model dumps as ``None`` are removed; fields it does not know are kept.
        """
        from .models import dump_model

        data = dump_model(value)
        return self.merge(path, data)

    # --- metadata -----------------------------------------------------------------------------

    @property
    def labels(self) -> MutableMapping[str, str]:
        """Live map of ``metadata.labels`` (writes go to the object)."""
        return _FieldMap(self, ("metadata", "labels"))

    @property
    def annotations(self) -> MutableMapping[str, str]:
        """Live map of ``metadata.annotations`` (writes go to the object)."""
        return _FieldMap(self, ("metadata", "annotations"))

    def may_mention(self, word: str) -> bool:
        """False only when no key or value of the item can contain ``word``: it appears nowhere
        in the item's text and no escape could spell it (a cheap test before reading a map of
        every item). True when unsure (an edited or new object)."""
        text = self._text
        if text is None or self._node is not None or self._patch is not None:
            return True
        start, stop = (self._start, self._stop) if self._stop >= 0 else (0, len(text))
        return text.find(word, start, stop) >= 0 or text.find("\\", start, stop) >= 0

    @property
    def is_local_config(self) -> bool:
        if not self.may_mention(ANN_LOCAL_CONFIG):
            return False
        return str(self.annotations.get(ANN_LOCAL_CONFIG, "")).lower() == "true"

    @property
    def path(self) -> str | None:
        """The file the item lives in, relative to the package (kpt's path annotation)."""
        ann = self.annotations
        return ann.get(ANN_PATH) or ann.get(ANN_LEGACY_PATH)

    def set_path(self, path: str) -> None:
        """Place the item in a file of the package (both path annotations, kept together)."""
        from .pkgpath import check_relative_path

        check_relative_path(path, obj=self)
        self.annotations[ANN_PATH] = path
        self.annotations[ANN_LEGACY_PATH] = path

    @property
    def package_path(self) -> str | None:
        """The package folder on disk, as kpt gives it to exec functions (absolute)."""
        return self.annotations.get(ANN_PACKAGE_PATH)

    @property
    def owner_references(self) -> list[dict[str, Any]]:
        value = self.get("metadata.ownerReferences", [])
        return value if isinstance(value, list) else []

    def is_owned_by(self, owner: KubeObject) -> bool:
        return any(
            ref.get("kind") == owner.kind
            and ref.get("name") == owner.name
            and ref.get("apiVersion") == owner.api_version
            for ref in self.owner_references
        )

    def add_owner_reference(self, owner: KubeObject, **extra: Any) -> None:
        ref: dict[str, Any] = {
            "apiVersion": owner.api_version,
            "kind": owner.kind,
            "name": owner.name,
            **extra,
        }
        refs = self.owner_references
        if ref not in refs:
            self.set("metadata.ownerReferences", [*refs, ref])

    # --- output ---------------------------------------------------------------------------------

    @property
    def changed(self) -> bool:
        """True when the object was created or edited by this run."""
        return self._dirty or self._spliced

    def to_yaml(self) -> str:
        """The object as one YAML document (the original text if never edited)."""
        if not self._dirty and self._text is not None:
            return self._doc_text()
        if self._is_new:
            return _yaml.dump_plain(self._plain)
        return _yaml.dump_rt(self._tree())

    def to_item(self) -> str:
        """The object as a block-sequence entry of a ResourceList's ``items``."""
        if not self._dirty and self._text is not None:
            return self._src if self._src_form == "item" else doc_to_item(self._src)
        if self._is_new:
            from ._emit import emit_item

            text = emit_item(self._plain)
            if text is not None:
                return text
        return doc_to_item(self.to_yaml())

    # --- krmlib-internal: how the reader (krmlib/_reader.py) builds and annotates items ------

    @classmethod
    def read_item(cls, text: str, start: int, stop: int, line: int = 0) -> KubeObject:
        """krmlib-internal (the reader): the ``items`` entry ``text[start:stop]`` of an input,
        starting on input line ``line``, held as a span of ``text`` (no copy of it)."""
        obj = cls._span(text, start, stop)
        obj.input_line = line
        return obj

    @classmethod
    def read_node(cls, node: Any) -> KubeObject:
        """krmlib-internal (the reader): an object read as a round-trip tree, unchanged."""
        obj = cls(node=node)
        obj._dirty = False
        return obj

    def note_header(self, header: tuple[str, str, str, str] | None) -> None:
        """krmlib-internal (the reader): (apiVersion, kind, name, namespace) as the whole-input
        check read them, kept for an item nothing changed yet (saves scanning its text)."""
        if self._header is None and not self.changed:
            self._header = header

    def unparsed_text(self) -> str | None:
        """krmlib-internal (the reader): the object's text while it is held as text (not a
        round-trip tree, not new plain values), else None."""
        if self._node is not None or self._text is None:
            return None
        return self._src

    def replace_text(self, text: str) -> None:
        """krmlib-internal (the reader): hold ``text`` instead (the object's text with lines
        added, such as kpt's annotations); the object counts as changed."""
        self._src = text
        self._plain = None
        self._header = None
        self._scanned = {}
        self._spliced = True


class _FieldMap(MutableMapping[str, str]):
    """A live view of a string map in an object (labels, annotations)."""

    def __init__(self, obj: KubeObject, path: tuple[str, ...]) -> None:
        self._obj = obj
        self._path = path

    def _map(self) -> dict[str, Any]:
        obj = self._obj
        if obj._node is None and obj._plain is None and obj._text is not None:
            section = self._path[1]
            if obj._scanned is None:
                obj._scanned = {}
            if section not in obj._scanned:
                obj._scanned[section] = _scan.scan_metadata_map(
                    obj._src, obj._src_form == "item", section
                )
            scanned = obj._scanned[section]
            if scanned is not None:
                return scanned
        value = _walk(obj._read(), self._path, obj)
        return value if isinstance(value, dict) else {}

    def __getitem__(self, key: str) -> str:
        value = self._map()[key]
        return "" if value is None else str(value)

    def __setitem__(self, key: str, value: str) -> None:
        self._obj.set((*self._path, key), str(value))

    def __delitem__(self, key: str) -> None:
        if not self._obj.delete((*self._path, key)):
            raise KeyError(key)
        if not self._map():
            self._obj.delete(self._path)

    def __iter__(self) -> Iterator[str]:
        return iter([str(key) for key in self._map()])

    def __len__(self) -> int:
        return len(self._map())

    def __repr__(self) -> str:
        return repr(dict(self))


def _add_key(parent: Any, key: Key, value: Any) -> None:
    """A new key of a round-trip map, comments after the map's old last entry kept in place."""
    from ._rt import add_key

    add_key(parent, key, value)


def _str(value: Any) -> str:
    return "" if value is _MISSING or value is None else str(value)


def _child(node: Any, key: Key) -> Any:
    if isinstance(key, int):
        if isinstance(node, list) and -len(node) <= key < len(node):
            return node[key]
        return _MISSING
    if isinstance(node, dict):
        return node.get(key, _MISSING)
    return _MISSING


def _walk(node: Any, keys: tuple[Key, ...], obj: KubeObject | None = None) -> Any:
    for depth, key in enumerate(keys):
        if node is None:
            return _MISSING
        if isinstance(key, int) and not isinstance(node, list):
            if isinstance(node, dict) and obj is not None:
                raise FieldTypeError(
                    f"{obj!r}: {format_path(keys[:depth])} is a map, not a list",
                    obj=obj,
                    field=format_path(keys[:depth]),
                )
            return _MISSING
        if isinstance(key, str) and not isinstance(node, dict):
            if obj is not None and depth > 0:
                raise FieldTypeError(
                    f"{obj!r}: {format_path(keys[:depth])} is not a map",
                    obj=obj,
                    field=format_path(keys[:depth]),
                )
            return _MISSING
        node = _child(node, key)
        if node is _MISSING:
            return _MISSING
    return node


def _assign(old: Any, new: Any) -> Any:
    """The node to store for ``new``, reusing ``old``'s nodes (and comments) where equal."""
    if isinstance(new, Mapping):
        if isinstance(old, dict) and not isinstance(old, list):
            for key in [k for k in old if k not in new]:
                del old[key]
            for key, value in new.items():
                current = old.get(key, _MISSING)
                if current is not _MISSING and _yaml.to_plain(current) == value:
                    continue
                old[key] = _assign(current, value)
            return old
        node = _yaml.new_map()
        for key, value in new.items():
            node[key] = _assign(_MISSING, value)
        return node
    if isinstance(new, list | tuple):
        if isinstance(old, list):
            del old[len(new) :]
            for index, value in enumerate(new):
                if index < len(old):
                    if _yaml.to_plain(old[index]) != value:
                        old[index] = _assign(old[index], value)
                else:
                    old.append(_assign(_MISSING, value))
            return old
        return _yaml.to_node([_assign(_MISSING, value) for value in new])
    return _yaml.restyle(old, new)


def _drop_none(value: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: _drop_none(item) if isinstance(item, Mapping) else item
        for key, item in value.items()
        if item is not None
    }


def item_to_doc(text: str) -> str:
    """A ResourceList items entry (``- `` + indented lines) as a standalone document."""
    lines = text.split("\n")
    first = lines[0]
    out = [first[2:] if first.startswith("- ") else first[1:]]
    out.extend(line[2:] if line.startswith("  ") else line.lstrip(" ") for line in lines[1:])
    return "\n".join(out)


def doc_to_item(text: str) -> str:
    """A standalone document as a ResourceList items entry."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = ["- " + lines[0]] if lines else ["- {}"]
    out.extend("  " + line if line else "" for line in lines[1:])
    return "\n".join(out) + "\n"
