"""Kptfile status conditions and readiness gates (``kpt.dev/v1``)."""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from typing import Any, Literal, NamedTuple

from krmlib._base import spill as _spill
from krmlib._base.errors import FieldTypeError, KrmError
from krmlib._yaml import emit as _emit
from krmlib._yaml import engines as _yaml

from . import object as _object
from .object import KubeObject
from .storage import of
from .trees import MISSING

Status = Literal["True", "False", "Unknown"]


class Condition(NamedTuple):
    """One entry of ``status.conditions``; status is the string "True", "False" or "Unknown"."""

    type: str
    status: Status
    reason: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, str]:
        """The condition as the Kptfile writes it (``reason`` and ``message`` when set)."""
        out = {"type": self.type, "status": self.status}
        if self.reason:
            out["reason"] = self.reason
        if self.message:
            out["message"] = self.message
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Condition":
        """A condition from a Kptfile's entry; a status other than True/False/Unknown is an
        error."""
        status = str(data.get("status", "Unknown"))
        if status not in ("True", "False", "Unknown"):
            status = "Unknown"
        return cls(
            type=str(data.get("type", "")),
            status=status,  # type: ignore[arg-type]
            reason=str(data.get("reason", "") or ""),
            message=str(data.get("message", "") or ""),
        )


def get_conditions(kptfile: KubeObject) -> list[Condition]:
    """The ``status.conditions`` of a Kptfile (or any object), read only; write through
    :class:`Conditions`."""
    raw = kptfile.get("status.conditions", [])
    return (
        [Condition.from_dict(c) for c in raw if isinstance(c, dict)]
        if isinstance(raw, list)
        else []
    )


GATES = "info.readinessGates"


def get_readiness_gates(kptfile: KubeObject, path: str = GATES) -> list[str]:
    """Condition types of the gates at ``path`` (on a PackageRevision: spec.readinessGates)."""
    raw = kptfile.get(path, [])
    if not isinstance(raw, list):
        return []
    return [
        str(g.get("conditionType")) for g in raw if isinstance(g, dict) and g.get("conditionType")
    ]


def add_readiness_gate(kptfile: KubeObject, condition_type: str, path: str = GATES) -> bool:
    """Add ``{conditionType}`` to the gates at ``path`` unless present; True if added.

    The list is written whole (its entries kept, the new one last): one edit of the item's
    text, without the round-trip parser, also when ``info`` is not there yet.
    """
    gates = get_readiness_gates(kptfile, path)
    if condition_type in gates:
        return False
    raw = kptfile.get(path, [])
    entries = list(raw) if isinstance(raw, list) else []
    return kptfile.set(path, [*entries, {"conditionType": condition_type}])


def remove_readiness_gate(kptfile: KubeObject, condition_type: str, path: str = GATES) -> bool:
    """Remove the gate ``{conditionType}`` at ``path``; True if it was there."""
    raw = kptfile.get(path, [])
    if not isinstance(raw, list):
        return False
    for index, gate in enumerate(raw):
        if isinstance(gate, dict) and gate.get("conditionType") == condition_type:
            return kptfile.delete(f"{path}[{index}]")
    return False


class Conditions:
    """A batch view of ``status.conditions``; every call is a no-op without a Kptfile.

    For functions that touch many conditions (one per Interface and child, thousands in a big
    package): the list is read once, kept in memory, and :meth:`flush` writes it back once (a
    list that only grew is appended to the Kptfile's text in place). Fields other than type,
    status, reason and message are kept; existing conditions keep their place, new ones are
    appended.

    A new condition is held as the text it will be written as (one string, not a dict of four),
    and a list that only grew gets those texts inserted into the Kptfile's text as they are.
    """

    _PATH = ("status", "conditions")

    def __init__(self, kptfile: KubeObject | None) -> None:
        self.kptfile = kptfile
        self._load()

    def _load(self) -> None:
        kptfile = self.kptfile
        # Read live, not copied: the entries are replaced on set, never edited (thousands of
        # conditions in a big package: one copy of them, not two).
        raw: Any = []
        if kptfile is not None and of(kptfile).has_text():
            raw = of(kptfile).read_at(self._PATH, kptfile)
            raw = None if raw is MISSING else raw
        elif kptfile is not None:
            raw = kptfile.get(self._PATH, [])
        # The input's entries (dicts, or whatever the list held), then the new ones: each the
        # text of its list entry (see _indent), or a dict when the small emitter cannot write it.
        # None: removed.
        if raw is not None and not isinstance(raw, list) and kptfile is not None:
            # never written over: the user's value would be lost (issue 27.6)
            raise KrmError(
                f"{kptfile.kind} {kptfile.name}: status.conditions must be a list, not "
                f"{'a map' if isinstance(raw, dict) else 'a scalar'}",
                obj=kptfile,
                field="status.conditions",
            )
        self._raw: list[Any] = list(raw) if isinstance(raw, list) else []
        self._input: list[Any] = list(self._raw)  # the entries as read (set replaces, never edits)
        self._index: dict[str, int] = {}
        for index, item in enumerate(self._raw):
            if isinstance(item, dict) and isinstance(item.get("type"), str):
                self._index.setdefault(item["type"], index)
        self._dirty = False
        self._stale = False  # the new entries' texts went into the Kptfile: read it again
        self._written = len(self._raw)
        # The indent new entries are written at in the Kptfile as it is now (where a list that
        # only grew takes them); flush re-indents them if the Kptfile moved it.
        point = self._append_point()
        self._indent = point[2] if point is not None else 0
        # The text the point was found in: _rewrite reuses it while the Kptfile keeps that text.
        text = of(kptfile).src if kptfile is not None and of(kptfile).has_text() else None
        self._point = (text, point)

    def types(self) -> list[str]:
        """The condition types present, in the Kptfile's order."""
        if self._stale:
            self._load()
        return [t for t, i in self._index.items() if self._raw[i] is not None]

    def _entry(self, index: int) -> Any:
        """The entry at ``index`` as values (a new one's text read back)."""
        item = self._raw[index]
        if index >= self._written and isinstance(item, _TEXT):
            [item] = _yaml.load_plain(_dedent(_spill.text_of(item), self._indent))
        return item

    def status(self, type_: str) -> str | None:
        """The status (``True``, ``False``, ``Unknown``) of condition ``type_``, or None."""
        if self._stale:
            self._load()
        index = self._index.get(type_)
        if index is None or self._raw[index] is None:
            return None
        return str(self._entry(index).get("status", "Unknown"))

    def get(self, type_: str) -> Condition | None:
        """The condition of this type, or None."""
        if self._stale:
            self._load()
        index = self._index.get(type_)
        if index is None or self._raw[index] is None:
            return None
        return Condition.from_dict(self._entry(index))

    def set(self, condition: Condition) -> None:
        """Add ``condition``, or give the one of its type its status, reason and message
        (other keys of that entry kept); nothing without a Kptfile. :meth:`flush` writes it.

        A condition kpt would not read as one is refused (:class:`krmlib.KrmError`, naming the
        field): a status other than the string "True", "False" or "Unknown" (Python's ``True``
        would be written as YAML's ``true``), a type, reason or message that is not a string."""
        if self.kptfile is None:
            return
        if self._stale:
            self._load()
        if (
            type(condition.type) is not str
            or condition.status not in _STATUSES
            or (condition.reason and type(condition.reason) is not str)
            or (condition.message and type(condition.message) is not str)
        ):
            at = self._index.get(condition.type) if type(condition.type) is str else None
            _refuse(self.kptfile, condition, len(self._raw) if at is None else at)
        wanted = condition.to_dict()
        index = self._index.get(condition.type)
        if index is None or self._raw[index] is None:
            self._index[condition.type] = len(self._raw)
            self._raw.append(self._new_entry(wanted))
            self._dirty = True
            self._hold_soon(len(self._raw) - 1)
            return
        current = self._entry(index)
        existing = dict(current)
        for key in ("status", "reason", "message"):
            if key in wanted:
                existing[key] = wanted[key]
            else:
                existing.pop(key, None)
        if existing != current:
            self._raw[index] = existing if index < self._written else self._new_entry(existing)
            self._dirty = True
            self._hold_soon(index)

    def _hold_soon(self, index: int) -> None:
        """A new entry's text waits to be held out of memory with the next new texts
        (:func:`krmlib._base.spill.hold_soon`: thousands of conditions, one hold a batch)."""
        if type(self._raw[index]) is str:
            _spill.hold_soon(self._raw, index)

    def _new_entry(self, values: dict[str, Any]) -> Any:
        """A new entry as the text it is written as (values when the emitter is unsure)."""
        return _emit.seq_entry(values, self._indent) or values

    def ensure(self, condition: Condition) -> None:
        """Add the condition only when there is none of that type."""
        if self.status(condition.type) is None:
            self.set(condition)

    def remove(self, type_: str) -> None:
        """Drop the condition of type ``type_`` (nothing if absent); :meth:`flush` writes it."""
        if self._stale:
            self._load()
        index = self._index.get(type_)
        if index is not None and self._raw[index] is not None:
            self._raw[index] = None
            self._dirty = True

    def flush(self) -> None:
        """Write the conditions back into the Kptfile (only when something changed)."""
        if self.kptfile is None or not self._dirty:
            return
        _spill.hold_waiting()  # the entries' places, before they go into the Kptfile
        if self._append() or self._rewrite():
            # A splice of the Kptfile's text, not a set: the output gate's write hook notes it
            # as one (the author's line, the field), as it notes the general way's set.
            hook = _object.WRITE_HOOK
            if hook is not None:
                hook(self.kptfile, self._PATH, [item for item in self._raw if item is not None])
        else:
            self._write_values()
        self._dirty = False

    def _write_values(self) -> None:
        """The general way: the whole list set as values."""
        assert self.kptfile is not None
        # Removed entries go first, so the others stay aligned with their nodes (comments, order).
        for index in reversed(range(self._written)):
            if self._raw[index] is None:
                self.kptfile.delete(f"status.conditions[{index}]")
        values = [self._entry(i) for i, item in enumerate(self._raw) if item is not None]
        self.kptfile.set(self._PATH, values)

    def _append(self) -> bool:
        """A list that only grew, in a Kptfile whose text the general way would splice: the new
        entries' texts inserted where that splice puts them (the same text, without building
        the values and the whole list's text); False when that does not apply."""
        kptfile = self.kptfile
        assert kptfile is not None
        new = [item for item in self._raw[self._written :] if item is not None]
        if any(not isinstance(item, _TEXT) for item in new):
            return False
        if not of(kptfile).has_text():
            return False  # a round-trip tree: no splice
        if self._written and kptfile.get(self._PATH) != self._raw[: self._written]:
            return False  # an entry of the input changed or removed (or the Kptfile was edited)
        if not new:  # the list as it was: nothing to write (a new empty list is written)
            return self._written > 0
        point = self._append_point()
        if point is None:
            return False
        at, head, indent = point
        del self._raw[self._written :]  # the texts are the Kptfile's now
        of(kptfile).splice_insert(self._PATH, at, _pieces(head, new, self._indent, indent))
        self._stale = True
        return True

    def _rewrite(self) -> bool:
        """Entries of the input changed or removed, in a Kptfile whose list is written exactly as
        the small emitter writes it (no comment, quote or order it would lose): the list's text
        replaced by the emitter's text of the new list, in one edit (thousands of conditions set
        "True" by a function: no round trip). False when that does not apply."""
        kptfile = self.kptfile
        assert kptfile is not None
        store = of(kptfile)
        if not self._written or not store.has_text():
            return False
        src = store.src
        point = self._point[1] if self._point[0] == src else self._append_point()
        if point is None or point[1]:
            return False
        at, _, indent = point
        old = [_emit.seq_entry(v, indent) if isinstance(v, dict) else None for v in self._input]
        start = at - sum(len(text) for text in old if text is not None)
        if start < 0 or any(text is None for text in old):
            return False
        pos = start
        for text in old:  # the list's text is the emitter's text of what was read
            assert text is not None
            if not src.startswith(text, pos):
                return False
            pos += len(text)
        # The entries start right after the key (else the list holds more than was read).
        key = f"\n{' ' * indent}{self._PATH[-1]}:\n"  # a compact list: "- " under the key
        if not src.endswith(key, 0, start):
            return False
        new: list[str | _spill.Held] = []
        for index, item in enumerate(self._raw):
            if item is None:
                continue
            if index >= self._written and isinstance(item, _TEXT):
                new.append(_reindent_held(item, self._indent, indent))
                continue
            if index < self._written and item is self._input[index]:
                new.append(old[index] or "")  # unchanged: its text as it is
                continue
            text = _emit.seq_entry(item, indent) if isinstance(item, dict) else None
            if text is None:
                return False
            if index < self._written and item != self._input[index]:
                # An edited scalar keeps its quote style in the general way: the same here.
                before, after = _styles(old[index] or ""), _styles(text)
                if before is None or after is None:
                    return False
                if any(before[k] != after[k] for k in before.keys() & after.keys()):
                    return False
            new.append(text)
        if not new:
            return False  # an empty list: the general way writes `conditions: []`
        store.splice_insert(self._PATH, start, tuple(_spill.merged(new)), at - start)
        self._stale = True  # read again if used after the flush
        return True

    def _append_point(self) -> tuple[int, str, int] | None:
        kptfile = self.kptfile
        if kptfile is None or not of(kptfile).has_text():
            return None
        return of(kptfile).list_append_point(self._PATH, self._written > 0)


_TEXT = (str, _spill.Held)  # a new entry's text, or where it is held
_STATUSES = ("True", "False", "Unknown")  # a tuple: `in` takes an unhashable value too


def _refuse(kptfile: KubeObject, condition: Condition, index: int) -> None:
    """A condition kpt would not read as one: its type, reason and message strings, its status
    the string "True", "False" or "Unknown" (a Python ``True`` would be written as YAML's
    ``true``, which kpt and Porch do not take for "True")."""
    for key, value in zip(condition._fields, condition, strict=True):
        if key == "status" and value not in _STATUSES:
            wanted = 'the string "True", "False" or "Unknown"'
        elif type(value) is not str:
            wanted = "a string"
        else:
            continue
        raise FieldTypeError(
            f"{kptfile.kind} {kptfile.name}: condition {condition.type!r}: {key} must be "
            f"{wanted}, not {value!r}",
            obj=kptfile,
            field=f"status.conditions[{index}].{key}",
        )


def _styles(entry: str) -> dict[str, str] | None:
    """Key -> how its value is quoted (``"``, ``'`` or '') in an entry of one ``key: value``
    line per key; None for any other layout."""
    out: dict[str, str] = {}
    for line in entry.splitlines():
        key, sep, value = line.lstrip(" ").removeprefix("- ").partition(": ")
        if not sep or not key:
            return None
        out[key] = value[:1] if value[:1] in ("'", '"') else ""
    return out


def _pieces(
    head: str, entries: list[str | _spill.Held], old: int, new: int
) -> tuple[str | _spill.Held, ...]:
    """``head`` and the entries (written at indent ``old``, wanted at ``new``) as the pieces of
    the Kptfile's new text: the entries' own strings, or where they are held out of memory
    (:mod:`krmlib._base.spill`), neither copied nor joined (thousands of conditions:
    megabytes, and their memory could not serve a joined copy)."""
    if old != new:
        entries = [_reindent_held(entry, old, new) for entry in entries]
    return tuple(_spill.merged([head, *entries] if head else entries))


def _reindent_held(entry: str | _spill.Held, old: int, new: int) -> str | _spill.Held:
    """:func:`_reindent` of an entry that may be held out of memory (held again)."""
    return entry if old == new else _spill.hold(_reindent(_spill.text_of(entry), old, new))


def _dedent(text: str, indent: int) -> str:
    """An entry's text written at ``indent`` as at indent 0."""
    return _reindent(text, indent, 0)


def _reindent(text: str, old: int, new: int) -> str:
    """An entry's lines (each ending with a newline) moved from indent ``old`` to ``new``."""
    if old == new:
        return text
    lines = text.splitlines(keepends=True)
    if new > old:
        return "".join(" " * (new - old) + line for line in lines)
    return "".join(line[old - new :] for line in lines)
