"""The Kptfile's conditions, read once and written once (a condition per Interface and child)."""

from __future__ import annotations

from typing import Any

from krmlib import Condition, KubeObject


class Conditions:
    """A batch view of ``status.conditions``; every call is a no-op without a Kptfile.

    krmlib's ``set_condition`` reads the whole list on every call, which is quadratic for a
    package with thousands of Interfaces; this view keeps the list in memory and :meth:`flush`
    writes it back once. Fields other than type, status, reason and message are kept; existing
    conditions keep their place, new ones are appended.
    """

    def __init__(self, kptfile: KubeObject | None) -> None:
        self.kptfile = kptfile
        raw = kptfile.get("status.conditions", []) if kptfile is not None else []
        self._raw: list[Any] = list(raw) if isinstance(raw, list) else []
        self._index: dict[str, int] = {}
        for index, item in enumerate(self._raw):
            if isinstance(item, dict) and isinstance(item.get("type"), str):
                self._index.setdefault(item["type"], index)
        self._dirty = False
        self._written = len(self._raw)

    def types(self) -> list[str]:
        return [t for t, i in self._index.items() if self._raw[i] is not None]

    def status(self, type_: str) -> str | None:
        index = self._index.get(type_)
        if index is None or self._raw[index] is None:
            return None
        return str(self._raw[index].get("status", "Unknown"))

    def set(self, condition: Condition) -> None:
        if self.kptfile is None:
            return
        wanted = condition.to_dict()
        index = self._index.get(condition.type)
        if index is None or self._raw[index] is None:
            self._index[condition.type] = len(self._raw)
            self._raw.append(wanted)
            self._dirty = True
            return
        existing = dict(self._raw[index])
        for key in ("status", "reason", "message"):
            if key in wanted:
                existing[key] = wanted[key]
            else:
                existing.pop(key, None)
        if existing != self._raw[index]:
            self._raw[index] = existing
            self._dirty = True

    def ensure(self, condition: Condition) -> None:
        """Add the condition only when there is none of that type."""
        if self.status(condition.type) is None:
            self.set(condition)

    def remove(self, type_: str) -> None:
        index = self._index.get(type_)
        if index is not None and self._raw[index] is not None:
            self._raw[index] = None
            self._dirty = True

    def flush(self) -> None:
        """Write the conditions back into the Kptfile (only when something changed)."""
        if self.kptfile is None or not self._dirty:
            return
        # Removed entries go first, so the others stay aligned with their nodes (comments, order).
        for index in reversed(range(len(self._raw))):
            if self._raw[index] is None and index < self._written:
                self.kptfile.delete(f"status.conditions[{index}]")
        self.kptfile.set("status.conditions", [c for c in self._raw if c is not None])
        self._dirty = False
