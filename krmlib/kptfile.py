"""Kptfile status conditions and readiness gates (``kpt.dev/v1``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .object import KubeObject

Status = Literal["True", "False", "Unknown"]


@dataclass(frozen=True)
class Condition:
    """One entry of ``status.conditions``; status is the string "True", "False" or "Unknown"."""

    type: str
    status: Status
    reason: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"type": self.type, "status": self.status}
        if self.reason:
            out["reason"] = self.reason
        if self.message:
            out["message"] = self.message
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Condition:
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
    """Add ``{conditionType}`` to the gates at ``path`` unless present; True if added."""
    gates = get_readiness_gates(kptfile, path)
    if condition_type in gates:
        return False
    raw = kptfile.get(path, [])
    index = len(raw) if isinstance(raw, list) else 0
    return kptfile.set(f"{path}[{index}]", {"conditionType": condition_type})


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

    def get(self, type_: str) -> Condition | None:
        """The condition of this type, or None."""
        index = self._index.get(type_)
        if index is None or self._raw[index] is None:
            return None
        return Condition.from_dict(self._raw[index])

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
