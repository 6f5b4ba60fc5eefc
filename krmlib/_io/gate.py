"""The output gate: the runner writes nothing that its own reader would refuse.

After ``process`` returns, every item that the function created or changed is checked with
the rules krmlib applies to its input (``krmlib._io.reader.check_item``, ``krmlib._base.pkgpath``,
``krmlib._model.names``, the reader itself for text a function handed over as it is), and all the
items' identities must be unique per package. An item that is still the input's text was
checked when it was read and costs nothing here. A violation is an error result naming the
item, the field, the rule and the line of the function's code that last wrote the item; the
runner then writes a ResourceList with the results only, and exits 1, so kpt leaves the
package as it was.

Where the function's code wrote each object is noted while ``process`` runs (a hook in
``KubeObject``'s writes, :func:`watching`): the innermost frame outside krmlib.
"""

from __future__ import annotations

import re
import sys
from itertools import compress
from operator import itemgetter, not_
from typing import TYPE_CHECKING, Any

from krmlib._base import spill as _spill
from krmlib._base.chars import ESCAPED, UNWRITABLE
from krmlib._base.errors import KrmError
from krmlib._base.pkgpath import PATH_ANNOTATIONS, check_path_annotations
from krmlib._model import names
from krmlib._model import storage as _storage
from krmlib._model import trees as _trees
from krmlib._model.results import Result

from . import reader as _reader
from .glance import (
    _CHUNK,
    _CLEAN_PATH,
    _glance_texts,
    _paths_clean_in_text,
    _text_clean_at_a_glance,
)
from .watch import _HANDED, _WRITES, Identity, Snapshot, written_at

if TYPE_CHECKING:
    import logging

    from krmlib._model.object import KubeObject

    from .resourcelist import ResourceList


def check(rl: ResourceList, before: Snapshot) -> list[Result]:
    """The gate's error results for ``rl`` after the function ran (``[]``: it may be written).

    Its cost follows what the function wrote, not the package: an item still the input's text,
    or one the function did not write, was checked when it was read; an item it edited is
    checked for the fields it wrote (the name, a label, a path annotation); a new item whole.
    New items held as text that the function's code never wrote (the children krmlib makes
    from a function's values) are checked together (:func:`_check_new_texts`).
    The characters of everything written are checked on the output text (:func:`check_text`)."""
    problems: list[tuple[int, Result]] = []
    writes = _WRITES
    fresh: list[KubeObject] = []  # new or renamed: their identities must be unique
    texts: list[tuple[KubeObject, str]] = []  # text handed over as it is: must parse
    new_texts: list[tuple[int, KubeObject, _storage.Storage]] = []
    # The items new or written, found at C speed (set operations, compress): the others are
    # as read, checked when they were read.
    good_labels = _GOOD_LABELS
    # (No list or set of every item's id: thousands of ints, a peak of memory at the end.)
    items = list(rl.items)
    olds, twice = before.olds(items)
    if twice >= 0:  # one object listed twice: kpt would write it twice
        again = items[twice]
        message = f"{_named(again)} is listed twice in the items (the same object added again)"
        return [_result(KrmError(message, obj=again), again)]
    wanted = set(compress(range(len(items)), map(writes.__contains__, map(id, items))))
    wanted.update(compress(range(len(items)), map(not_, olds)))
    for index in sorted(wanted):
        obj = items[index]
        key = id(obj)
        old = olds[index]
        if old is not None:
            if key not in writes:
                continue  # as read: checked when it was read
            store = _storage.of(obj)
            if store.span_of_input() is not None:
                continue  # written, but back to its text as read
            written = writes[key]
            if len(written) == 1:  # one write: a label found good before (a label on all)
                keys, value = written[0]
                if (
                    keys is not None
                    and type(value) is str
                    and len(keys) == 3
                    and keys[1] == "labels"
                    and keys[0] == "metadata"
                    and (keys[2], value) in good_labels
                    and key not in _HANDED
                ):
                    continue
        else:
            store = _storage.of(obj)  # (has_text(), inlined: thousands of new items)
            if (
                key not in writes
                and store.node is None
                and store.text is not None
                and not store.dirty
            ):
                new_texts.append((index, obj, store))  # made by krmlib as text: at a glance
                continue
        try:
            _check_object(obj, index, store, old, fresh, texts)
        except KrmError as exc:
            problems.append((index, _result(exc, obj)))
    for index, obj, store in _check_new_texts(new_texts, fresh):
        try:  # unsure at a glance: the whole check, which names the problem
            _check_object(obj, index, store, None, fresh, texts)
        except KrmError as exc:
            problems.append((index, _result(exc, obj)))
    if not problems and texts:
        handed = _check_texts(texts)
        if handed:
            return handed
    if not problems and fresh:
        return _duplicates(rl, fresh, before)
    problems.sort(key=lambda found: found[0])
    return [result for _index, result in problems]


_IDENTITY_KEYS = frozenset({"apiVersion", "kind"})
_NAME_KEYS = frozenset({"name", "namespace"})


def _check_object(
    obj: KubeObject,
    index: int,
    store: _storage.Storage,
    old: Identity | None,
    fresh: list[KubeObject],
    texts: list[tuple[KubeObject, str]],
) -> None:
    writes = _WRITES.get(id(obj))
    whole = old is None or writes is None  # new (or changed outside the run): all of it
    if old is None and store.is_new and _new_plain_ok(store.plain, obj):
        fresh.append(obj)  # a new object of plain values, all of it as the rules want
        return
    names_ = labels = paths = whole
    label_writes: list[tuple[str, Any]] = []
    path_writes: list[Any] = []
    for keys, value in writes or ():
        if not keys:
            continue
        top = keys[0]
        if top in _IDENTITY_KEYS:
            names_ = True
        elif top == "metadata":
            if len(keys) == 1:
                names_ = labels = paths = True
            elif keys[1] in _NAME_KEYS:
                names_ = True
            elif keys[1] == "labels":
                if len(keys) == 3 and isinstance(value, str | None):
                    label_writes.append((str(keys[2]), value))
                else:
                    labels = True
            elif keys[1] == "annotations":
                if len(keys) == 3 and isinstance(value, str | None):
                    if keys[2] in PATH_ANNOTATIONS:
                        path_writes.append(value)
                else:
                    paths = True
    if id(obj) in _HANDED and store.text is not None and store.stop < 0 and not store.dirty:
        texts.append((obj, store.src))  # text a function handed over (from_yaml, from_item)
    if names_ or whole:
        _reader.check_item(obj, index)
        head = store.head()
        if old is None or old != head:
            fresh.append(obj)
        if old is None or old[2:] != head[2:]:  # new, renamed or moved: the API's rules
            names.check_object_names(obj)
    if labels:
        if obj.may_mention("labels"):  # False only when the text cannot hold any
            _check_labels(obj)
    else:
        for label, value in label_writes:
            _check_label(obj, label, value)
    if (paths or path_writes) and not _paths_clean_in_text(store):
        check_path_annotations(obj)


def _check_new_texts(
    new: list[tuple[int, KubeObject, _storage.Storage]], fresh: list[KubeObject]
) -> list[tuple[int, KubeObject, _storage.Storage]]:
    """New objects held as unedited text that the function's code never wrote (children krmlib
    made from the function's values): checked at a glance, each one's header against the name
    rules, their texts some at a time for labels and path annotations. Those found good join
    ``fresh``; the ones it is unsure of are returned for the whole check."""
    unsure: list[tuple[int, KubeObject, _storage.Storage]] = []
    name_problem, label_problem = names.name_problem, names.label_problem
    by_label = names.LABEL_NAMED_KINDS
    good_namespaces: set[str] = set()
    chunk: list[tuple[int, KubeObject, _storage.Storage]] = []
    texts: list[str] = []
    names_: list[str] = []  # the chunk's names, checked together (_names_ok)
    size = 0
    for entry in new:
        store = entry[2]
        head = store.header  # the one krmlib made it with (ChildSync), else read now
        if head is None:
            try:
                head = store.head()
            except KrmError:
                unsure.append(entry)
                continue
        api, kind, name, namespace = head
        # a name the API server takes has no '/', '%', space or control character and is at
        # most 253 long: the reader's check_item takes it too
        if not api or not kind or not name:
            unsure.append(entry)
            continue
        if kind in by_label:  # (rare) a label: alone
            if name_problem(name, kind) is not None:
                unsure.append(entry)
                continue
            name = "a"  # checked
        if namespace and namespace not in good_namespaces:
            if label_problem(namespace) is not None:
                unsure.append(entry)
                continue
            good_namespaces.add(namespace)
        src = store.text_as_written()  # (held out of memory: read back, not kept)
        chunk.append(entry)
        texts.append(src if src.endswith("\n") else src + "\n")
        names_.append(name)
        size += len(src)
        if size >= _CHUNK:
            _glance_texts(chunk, texts, names_, fresh, unsure)
            chunk, texts, names_, size = [], [], [], 0
    _glance_texts(chunk, texts, names_, fresh, unsure)
    unsure.sort(key=lambda entry: entry[0])
    return unsure


def _new_plain_ok(plain: Any, obj: KubeObject) -> bool:
    """Whether a new object's plain values pass every rule of :func:`_check_object` at a
    glance (True); False when unsure: the full check then runs and names the problem."""
    if type(plain) is not dict:
        return False
    metadata = plain.get("metadata")
    api, kind = plain.get("apiVersion"), plain.get("kind")
    if type(metadata) is not dict or type(api) is not str or type(kind) is not str:
        return False
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if not api or not kind or type(name) is not str or not name:
        return False
    if namespace is not None and (type(namespace) is not str or names.label_problem(namespace)):
        return False
    if names.name_problem(name, kind) is not None:
        return False
    labels = metadata.get("labels")
    if labels is not None:
        if type(labels) is not dict:
            return False
        for key, value in labels.items():
            if (key, value) not in _GOOD_LABELS:
                try:
                    _check_label(obj, str(key), value)  # good ones are remembered
                except KrmError:
                    return False
    annotations = metadata.get("annotations")
    if annotations is not None:
        if type(annotations) is not dict:
            return False
        for key in PATH_ANNOTATIONS:
            value = annotations.get(key)
            if value is not None and (type(value) is not str or not _CLEAN_PATH.fullmatch(value)):
                return False
    return True


def check_text(pieces: list[Any], rl: ResourceList) -> list[Result]:
    """What the output's new text (``pieces`` of :meth:`ResourceList.pieces`: the strings; the
    spans are the input's, checked when read) holds that YAML cannot carry: the error result
    naming the item, or ``[]``."""
    if _text_clean_at_a_glance(pieces):
        return []
    for piece in pieces:
        if type(piece) is str and (re.search(UNWRITABLE, piece) or re.search(ESCAPED, piece)):
            break
    else:
        return []
    problems: list[Result] = []
    for obj in rl.items:  # the rare case: which item
        store = _storage.of(obj)
        if store.span_of_input() is not None:
            continue
        patched = store.patched_span()
        inserted = patched[1] if patched is not None else obj.to_item()
        try:
            for text in (inserted,) if isinstance(inserted, str) else inserted:
                _check_text(_spill.text_of(text), obj)
        except KrmError as exc:
            exc.field = _written_field(obj) or exc.field
            problems.append(_result(exc, obj))
    if not problems:  # the functionConfig or a result
        problems.append(
            Result(
                message="output refused: a result or the functionConfig holds a character "
                "YAML cannot carry (a NUL, a lone surrogate)"
            )
        )
    return problems


def _check_text(text: str, obj: KubeObject) -> None:
    bad = re.search(UNWRITABLE, text) or re.search(ESCAPED, text)
    if bad is None:
        return
    char = bad.group()
    shown = (
        char
        if char[0] == "\\"
        else char.encode("unicode_escape", "backslashreplace").decode("ascii")
    )
    what = "a NUL" if char in ("\x00", "\\0", "\\x0", "\\u0000") else f"the character {shown}"
    if "\ud800" <= char[:1] <= "\udfff" or char.lower().startswith(("\\ud", "\\u0000d")):
        what = f"a lone surrogate ({shown})"
    raise KrmError(
        f"{_named(obj)}: a value holds {what}, which YAML cannot carry and krmlib's reader refuses",
        obj=obj,
        field=_field_of(obj, bad.start(), text),
    )


def _written_field(obj: KubeObject) -> str | None:
    """The path of the function's last write to ``obj`` whose value YAML cannot carry."""
    from krmlib._base.paths import format_path

    for keys, value in reversed(_WRITES.get(id(obj), [])):
        if keys and _holds_unwritable(value):
            return format_path(keys)
    return None


def _holds_unwritable(value: Any) -> bool:
    if isinstance(value, str):
        return re.search(UNWRITABLE, value) is not None
    if isinstance(value, dict):
        return any(_holds_unwritable(k) or _holds_unwritable(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_unwritable(v) for v in value)
    return False


def _field_of(obj: KubeObject, at: int, text: str) -> str | None:
    """The key whose line holds position ``at`` of ``text`` (best effort)."""
    start = text.rfind("\n", 0, at) + 1
    match = re.match(r"[ -]*([^:\s]+):", text[start:at])
    return match.group(1) if match else None


def _check_labels(obj: KubeObject) -> None:
    labels = obj.get("metadata.labels")
    if not labels:
        return
    if not isinstance(labels, dict):
        raise KrmError(f"{_named(obj)}: metadata.labels must be a map", obj=obj,
                       field="metadata.labels")  # fmt: skip
    for key, value in labels.items():
        _check_label(obj, str(key), value)


def _check_label(obj: KubeObject, key: str, value: Any) -> None:
    if (key, value) in _GOOD_LABELS:
        return
    problem = names.label_key_problem(key)
    if problem is None and value is not None and not isinstance(value, str):
        problem = f"a label value is a string, not {type(value).__name__}"
    if problem is None and value is not None:
        problem = names.label_value_problem(value)
    if problem is not None:
        raise KrmError(f"{_named(obj)}: label {key}: {problem}", obj=obj,
                       field=f'metadata.labels["{key}"]')  # fmt: skip
    if len(_GOOD_LABELS) < 4096:
        _GOOD_LABELS.add((key, value))


# Label (key, value) pairs found good: a function sets the same label on thousands of items.
_GOOD_LABELS: set[tuple[str, Any]] = set()


def _check_texts(texts: list[tuple[KubeObject, str]]) -> list[Result]:
    """Text a function handed over as it is goes through the reader as the input would."""
    pieces = ["apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"]
    for obj, text in texts:
        _check_text(text, obj)
        pieces.append(text if _storage.of(obj).is_item else _trees.doc_to_item(text))
    try:
        _reader.read_input("".join(pieces))
        return []
    except KrmError:
        pass
    problems: list[Result] = []
    for obj, text in texts:  # which one: each alone
        item = text if _storage.of(obj).is_item else _trees.doc_to_item(text)
        try:
            _reader.read_input(pieces[0] + item)
        except KrmError as exc:
            problems.append(_result(KrmError(f"{_named(obj)}: its text does not read back as "
                                             f"YAML: {exc}", obj=obj), obj))  # fmt: skip
    return problems


def _duplicates(rl: ResourceList, fresh: list[KubeObject], before: Snapshot) -> list[Result]:
    """Two items with one identity (group, kind, namespace, name) in one folder of a package,
    one of them new or renamed. The other items' identities are the input's (``identities``:
    an item not new nor renamed kept its own); only the items named as a new one are compared,
    and the folders only of items whose identity meets a new one's."""
    groups: dict[str, str] = {}  # apiVersion → group: one string each, not one per item
    # First the common answer, with no more memory than a set of the new identities (this is
    # the run's peak): no new identity meets another, no name of the input's is a new one's.
    seen: set[tuple[str, str, str, str]] = set()
    for obj in fresh:
        key = _fresh_key(obj, groups)
        if key is not None:
            if key in seen:
                break
            seen.add(key)
    else:
        heads = filter(None, before._headers)  # the input's identities
        if {key[3] for key in seen}.isdisjoint(map(itemgetter(2), heads)):
            return []
    del seen
    identities = before.identities
    keys: dict[int, tuple[str, str, str, str]] = {}
    for obj in fresh:
        key = _fresh_key(obj, groups)
        if key is not None:
            keys[id(obj)] = key
    fresh_ids = keys.keys()
    wanted_names = {key[3] for key in keys.values()}
    first: dict[tuple[str, str, str, str], KubeObject] = {}
    meeting: dict[tuple[str, str, str, str], list[KubeObject]] = {}
    for obj in rl.items:
        at = id(obj)
        key = keys.get(at)
        if key is None:
            head = identities.get(at)
            if head is None or head[2] not in wanted_names:
                continue
            api = head[0]
            key = (api.rpartition("/")[0] if "/" in api else "", head[1], head[3], head[2])
        other = first.setdefault(key, obj)
        if other is not obj:
            meeting.setdefault(key, [other]).append(obj)
    problems: list[Result] = []
    for objects in meeting.values():
        if not any(id(obj) in fresh_ids for obj in objects):
            continue  # all of them the input's: not the function's doing
        taken: dict[tuple[str, str], KubeObject] = {}
        for obj in objects:
            package = obj.package_path or "" if obj.may_mention("package-path") else ""
            place = (package, (obj.path or "").rpartition("/")[0])  # kpt fn eval: subpackages
            other = taken.setdefault(place, obj)
            if other is obj or not (id(obj) in fresh_ids or id(other) in fresh_ids):
                continue
            culprit = obj if id(obj) in fresh_ids else other
            problems.append(
                _result(
                    KrmError(
                        f"{_named(culprit)}: another item has the same identity (group, kind, "
                        "namespace and name) in its folder: a cluster holds one object each",
                        obj=culprit,
                        field="metadata.name",
                    ),
                    culprit,
                )
            )
    return problems


def _fresh_key(obj: KubeObject, groups: dict[str, str]) -> tuple[str, str, str, str] | None:
    """(group, kind, namespace, name) of a new or renamed item; None when unreadable (the
    others are compared)."""
    store = _storage.of(obj)
    head = store.header
    if head is None or store.plain is not None:  # not known, or new values: read them
        try:
            return _header_key(obj)
        except KrmError:
            return None
    api = head[0]  # the header krmlib made it with, or learned from its text
    group = groups.get(api)
    if group is None:
        group = groups[api] = api.rpartition("/")[0] if "/" in api else ""
    return (group, head[1], head[3], head[2])


def _header_key(obj: KubeObject) -> tuple[str, str, str, str]:
    store = _storage.of(obj)
    plain = store.plain if store.is_new else None
    metadata = plain.get("metadata") if type(plain) is dict else None
    if type(metadata) is dict:  # a new object: its values (what head() would walk)
        api, kind = str(plain.get("apiVersion") or ""), str(plain.get("kind") or "")  # type: ignore[union-attr]
        name, namespace = str(metadata.get("name") or ""), str(metadata.get("namespace") or "")
    else:
        api, kind, name, namespace = store.head()
    return (api.rpartition("/")[0] if "/" in api else "", kind, namespace, name)


def _named(obj: KubeObject) -> str:
    try:
        _api, kind, name, namespace = _storage.of(obj).head()
    except KrmError:
        return "an item"
    where = f"{namespace}/" if namespace else ""
    return f"{kind or 'an item without kind'} {where}{name or '(no name)'}"


def _result(exc: KrmError, obj: KubeObject) -> Result:
    """The error result of a violation: the message with where the function wrote the item,
    the item (as far as it can be named) and the field."""
    message = f"output refused: {exc.message}{written_at(obj)}"
    try:
        ref: dict[str, str] | None = obj.ref()
        path = obj.path
    except Exception:
        ref, path = None, None
    return Result(message=message, resource_ref=ref or None, field_path=exc.field,
                  file_path=path)  # fmt: skip


if TYPE_CHECKING:
    log: logging.Logger  # the function's log channel (stderr), made by __getattr__


def __getattr__(name: str) -> Any:
    """``krmlib.log``: made on first use (``logging`` is not a start-up import)."""
    if name != "log":
        raise AttributeError(name)
    import logging

    class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
        """Writes to the ``sys.stderr`` of the moment (a test's capture included)."""

        @property
        def stream(self) -> Any:
            return sys.stderr

        @stream.setter
        def stream(self, value: Any) -> None:
            pass

    logger = logging.getLogger("krmlib.fn")
    if not logger.handlers:
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    globals()["log"] = logger
    return logger
