"""KubeObject: one KRM item, parsed only when read and re-serialised only when changed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, TypeVar

from krmlib._base.errors import InputError, KrmError
from krmlib._base.paths import Path, format_path, parse_path
from krmlib._yaml import engines as _yaml
from krmlib._yaml import scalars as _scalars

from .storage import Form, Storage
from .trees import MISSING, doc_to_item, item_to_doc, walk

ANN_PATH = "internal.config.kubernetes.io/path"
ANN_LEGACY_PATH = "config.kubernetes.io/path"
ANN_INDEX = "internal.config.kubernetes.io/index"
ANN_LEGACY_INDEX = "config.kubernetes.io/index"
ANN_LOCAL_CONFIG = "config.kubernetes.io/local-config"
ANN_PACKAGE_PATH = "internal.config.kubernetes.io/package-path"

M = TypeVar("M")

if TYPE_CHECKING:
    from .subobject import SubObject

# krmlib-internal: while the runner's output gate watches a run, called on each object created,
# set or deleted (krmlib/_io/gate.py notes where the function's code did it); None otherwise.
WRITE_HOOK: Callable[[KubeObject, tuple[Any, ...] | None, Any], None] | None = None


class KubeObject:
    """One KRM object.

    Build one with :meth:`from_dict` (a new object) or :meth:`from_yaml` (text); the library
    builds the items of a ResourceList. Read with :meth:`get` and the properties, write with
    :meth:`set`, :meth:`merge`, :meth:`delete`, :attr:`labels`, :attr:`annotations`. Values go in
    and come out as plain Python (dict, list, str, int, float, bool, None).

    The content lives in one private :class:`krmlib._model.storage.Storage` (the item's text, a
    round-trip tree or new plain values, and the caches); this class is its public face.
    """

    __slots__ = ("_store", "input_line")

    def __init__(
        self, *, src: str | None = None, form: Form = "doc", node: Any = None, plain: Any = None
    ) -> None:
        self._store = Storage(src, form, node, plain)
        self.input_line = 0  # where the item starts in the input text (0: unknown)
        if WRITE_HOOK is not None:
            WRITE_HOOK(self, None, src)

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, owned: bool = False) -> KubeObject:
        """A new object from plain values (key order is kept), copied: the caller may keep and
        change ``data`` afterwards.

        ``owned=True`` hands ``data`` over instead: the object takes the dict and every map and
        list in it as they are, without a copy, for code that builds the values only to make
        the object (thousands of children) and never touches them again. Anything the copy
        would have changed (a value of another type than dict, list, str, int, float, bool or
        None, a map or list found twice in the values) makes it copy as usual: the object is
        the same either way."""
        if owned and type(data) is dict and _owned_plain(data):
            return cls(plain=data)
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
        obj._store.new_item()
        return obj

    def copy(self) -> KubeObject:
        """An independent copy (new objects are always written out in full)."""
        return KubeObject(node=_yaml.load_rt(self.to_yaml()))

    def release(self) -> None:
        """Forget what reading parsed (the values, the scanned labels and annotations) while the
        text is still the item's: for a function done with an item it only read (memory). A
        later read parses the text again; edits are kept."""
        self._store.release()

    def validate(self) -> None:
        """Check that this is a readable KRM object: mapping, apiVersion, kind, metadata.name."""
        data = self._store.read()
        for path in (("apiVersion",), ("kind",), ("metadata", "name")):
            value = walk(data, path)
            if not isinstance(value, str) or not value:
                raise InputError(
                    f"item has no {format_path(path)}", obj=self, field=format_path(path)
                )

    # --- header ----------------------------------------------------------------------------

    @property
    def api_version(self) -> str:
        """``apiVersion`` (read from the text, no parse)."""
        head = self._store.header  # (head(), inlined: read on every pass over the items)
        return (head if head is not None else self._store.head())[0]

    @property
    def kind(self) -> str:
        """``kind`` (read from the text, no parse)."""
        head = self._store.header  # (head(), inlined: read on every pass over the items)
        return (head if head is not None else self._store.head())[1]

    @property
    def name(self) -> str:
        """``metadata.name`` (read from the text, no parse)."""
        head = self._store.header  # (head(), inlined: read on every pass over the items)
        return (head if head is not None else self._store.head())[2]

    @property
    def namespace(self) -> str:
        """``metadata.namespace``, or ``""`` (read from the text, no parse)."""
        head = self._store.header  # (head(), inlined: read on every pass over the items)
        return (head if head is not None else self._store.head())[3]

    @property
    def group(self) -> str:
        """The API group ('' for the core group)."""
        api_version = self.api_version
        return api_version.rsplit("/", 1)[0] if "/" in api_version else ""

    @property
    def version(self) -> str:
        """The version part of ``apiVersion`` (``v1`` of ``apps/v1``)."""
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
        """The value at ``path`` as plain Python, or ``default`` when absent.

        A copy: editing it changes nothing in the object. Write with :meth:`set`, or edit
        through a live view, :meth:`at`."""
        value = self._store.copy_at(parse_path(path), self)
        if value is MISSING or value is None or isinstance(value, _scalars.StyledNull):
            return default
        return value

    def at(self, path: Path) -> SubObject:
        """A live view of the part at ``path`` (``krmlib._model.subobject.SubObject``, as go/fn's
        SubObject): its reads and writes go to this object, paths relative to it."""
        from .subobject import SubObject

        return SubObject(self, parse_path(path))

    def has(self, path: Path) -> bool:
        """Whether the field at ``path`` exists (a null value exists)."""
        return self._store.read_at(parse_path(path), self) is not MISSING

    def set(self, path: Path, value: Any) -> bool:
        """Set ``path`` to ``value``, creating parent maps; True if anything changed.

        Maps and lists are written into the existing tree node by node, so comments and quoting
        of the parts that did not change survive. Setting the value a field already has changes
        nothing (the item is then not re-serialised).
        """
        keys = parse_path(path)
        if not keys:
            raise ValueError("set() needs a non-empty path")
        if WRITE_HOOK is not None:
            WRITE_HOOK(self, keys, value)
        return self._store.set(keys, value, self)

    def merge(self, path: Path, value: Mapping[str, Any]) -> bool:
        """Merge a map into ``path``: maps recursively, lists and scalars replaced, None deletes."""
        keys = parse_path(path)
        store = self._store
        current = store.read_at(keys, self) if keys else store.read()
        changed = False
        if current is MISSING or not isinstance(current, dict):
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
        if WRITE_HOOK is not None:
            WRITE_HOOK(self, parse_path(path), None)
        return self._store.delete(parse_path(path), self)

    def to_dict(self) -> dict[str, Any]:
        """The whole object as plain Python (a copy)."""
        fast = self._store.plain_copy()
        if fast is not None:
            return fast
        plain = _yaml.to_plain(self._store.read())
        assert isinstance(plain, dict)
        return plain

    # --- typed views ------------------------------------------------------------------------

    def as_model(self, model: type[M], path: Path = "") -> M:
        """The sub-tree at ``path`` validated as a pydantic model; errors name the field."""
        from krmlib._config.as_model import validate_model

        keys = parse_path(path)
        data = self.get(keys, {}) if keys else self.to_dict()
        return validate_model(model, data, obj=self, prefix=format_path(keys))

    def write_model(self, value: Any, path: Path = "") -> bool:
        """Merge a pydantic model (or mapping) back into ``path``, keeping untouched comments.

        Fields the model dumps as ``None`` are removed; fields it does not know are kept.
        """
        from krmlib._config.as_model import dump_model

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
        return self._store.may_mention(word)

    @property
    def is_local_config(self) -> bool:
        """Whether ``config.kubernetes.io/local-config`` is ``"true"``: kpt does not apply the
        item to a cluster (a Kptfile, a function config)."""
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
        from krmlib._base.pkgpath import check_relative_path

        check_relative_path(path, obj=self)
        self.annotations[ANN_PATH] = path
        self.annotations[ANN_LEGACY_PATH] = path

    @property
    def package_path(self) -> str | None:
        """The package folder on disk, as kpt gives it to exec functions (absolute)."""
        return self.annotations.get(ANN_PACKAGE_PATH)

    @property
    def owner_references(self) -> list[dict[str, Any]]:
        """``metadata.ownerReferences`` as plain dicts (a copy; empty when absent)."""
        value = self.get("metadata.ownerReferences", [])
        return value if isinstance(value, list) else []

    def is_owned_by(self, owner: KubeObject) -> bool:
        """Whether an owner reference names ``owner`` (its apiVersion, kind and name)."""
        return any(
            ref.get("kind") == owner.kind
            and ref.get("name") == owner.name
            and ref.get("apiVersion") == owner.api_version
            for ref in self.owner_references
        )

    def add_owner_reference(self, owner: KubeObject, **extra: Any) -> None:
        """Add an owner reference to ``owner`` (apiVersion, kind, name, then ``extra`` fields
        such as ``uid=``, ``controller=True``), unless the same reference is there already."""
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
        return self._store.changed

    def to_yaml(self) -> str:
        """The object as one YAML document (the original text if never edited)."""
        return self._store.dump_doc()

    def to_item(self) -> str:
        """The object as a block-sequence entry of a ResourceList's ``items``."""
        return self._store.dump_item()


class _FieldMap(MutableMapping[str, str]):
    """A live view of a string map in an object (labels, annotations)."""

    def __init__(self, obj: KubeObject, path: tuple[str, ...]) -> None:
        self._obj = obj
        self._path = path

    def _map(self) -> dict[str, Any]:
        return self._obj._store.string_map(self._path, self._obj)

    def __getitem__(self, key: str) -> str:
        value: str | None = self.get(key)  # a key that is there gives a string, never None
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:  # Mapping's, without a KeyError
        found = self._map()
        if key not in found:
            return default
        value = found[key]
        return "" if value is None else str(value)

    def __contains__(self, key: object) -> bool:
        return key in self._map()

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


def _drop_none(value: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: _drop_none(item) if isinstance(item, Mapping) else item
        for key, item in value.items()
        if item is not None
    }


# --- krmlib-internal: how the reader (krmlib/_io/reader.py) builds items (never on KubeObject) ---


def span_object(text: str, start: int, stop: int, line: int = 0) -> KubeObject:
    """An item of a ResourceList that is ``text[start:stop]`` of the input, starting on input
    line ``line``, read from ``text`` when needed (no copy of it)."""
    obj = KubeObject.__new__(KubeObject)
    obj._store = Storage.span(text, start, stop)
    obj.input_line = line
    return obj


def node_object(node: Any) -> KubeObject:
    """An object read as a round-trip tree, unchanged."""
    obj = KubeObject(node=node)
    obj._store.mark_read()
    return obj


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def _owned_plain(data: dict[Any, Any]) -> bool:
    """Whether ``data`` is what :func:`krmlib._yaml.engines.to_plain` would copy it to: plain
    types only (exactly: no subclass), no map or list twice, within the copy's node budget.
    False when not sure (the caller copies)."""
    budget = _yaml.MAX_NODES
    seen: set[int] = set()
    stack: list[Any] = [data]
    scalars = _PLAIN_SCALARS
    while stack:
        value = stack.pop()
        if id(value) in seen:
            return False
        seen.add(id(value))
        if type(value) is dict:
            budget -= 1 + 2 * len(value)
            for key, item in value.items():
                if type(key) not in scalars:
                    return False
                kind = type(item)
                if kind is dict or kind is list:
                    stack.append(item)
                elif kind not in scalars:
                    return False
        else:  # a list (nothing else is pushed)
            budget -= 1 + len(value)
            for item in value:
                kind = type(item)
                if kind is dict or kind is list:
                    stack.append(item)
                elif kind not in scalars:
                    return False
        if budget < 0:
            return False  # the copy says why
    return True


__all__ = [
    "ANN_INDEX",
    "ANN_LEGACY_INDEX",
    "ANN_LEGACY_PATH",
    "ANN_LOCAL_CONFIG",
    "ANN_PACKAGE_PATH",
    "ANN_PATH",
    "Form",
    "KubeObject",
    "doc_to_item",
    "item_to_doc",
    "node_object",
    "span_object",
]
