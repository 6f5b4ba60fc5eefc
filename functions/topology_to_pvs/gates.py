"""The "X waits for Y" policy (default: an SMF waits for the UPFs it connects to).

A waiter instance gets one gate per connected instance of the waited-for type, named
``wait-for-<type>-<instance>``. The gates are declared on the waiter's PackageVariantSet and, when
PackageRevisions are piped in, written onto the waiter's unpublished PackageRevisions
(``spec.readinessGates`` and a ``status.conditions`` entry per gate).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from krmlib import Condition, KubeObject, remove_condition, set_condition

from .config import WaitRule
from .deployed import connected
from .porch import Revision, published_repositories
from .topology import Instance, Topology


@dataclass(frozen=True)
class Gate:
    condition_type: str
    waits_for: Instance


def gate_prefix(waits_for_type: str) -> str:
    return f"wait-for-{waits_for_type}-"


def gates(topology: Topology, rules: tuple[WaitRule, ...]) -> dict[str, list[Gate]]:
    """Waiter instance name → its gates (sorted by condition type, no duplicates)."""
    out: dict[str, list[Gate]] = {}
    for waiter in topology.instances:
        found: dict[str, Gate] = {}
        for rule in rules:
            if waiter.nf_type != rule.waiter:
                continue
            for other in topology.instances:
                if other.nf_type == rule.waits_for and connected(waiter, other):
                    gate_type = gate_prefix(other.nf_type) + other.name
                    found[gate_type] = Gate(gate_type, other)
        if found:
            out[waiter.name] = [found[key] for key in sorted(found)]
    return out


def gate_condition(gate: Gate, revisions: Mapping[str, list[Revision]]) -> Condition:
    """``True`` once the waited-for instance is Published in every repository it has."""
    other = gate.waits_for
    what = f"{other.nf_type} instance {other.name}"
    repos = published_repositories(revisions.get(other.name, []))
    if not repos:
        return Condition(
            gate.condition_type, "False", "NotPublished", f"{what} has no PackageRevision yet"
        )
    waiting = [repo for repo, published in repos.items() if not published]
    if not waiting:
        return Condition(
            gate.condition_type, "True", "Published", f"{what} is Published in {', '.join(repos)}"
        )
    return Condition(
        gate.condition_type,
        "False",
        "NotPublished",
        f"{what} is not yet Published in {', '.join(waiting)}",
    )


def apply_gates(
    topology: Topology,
    rules: tuple[WaitRule, ...],
    by_waiter: Mapping[str, list[Gate]],
    revisions: Mapping[str, list[Revision]],
) -> None:
    """Write gates and their conditions onto the waiters' unpublished PackageRevisions."""
    for instance in topology.instances:
        prefixes = tuple(gate_prefix(r.waits_for) for r in rules if r.waiter == instance.nf_type)
        if not prefixes:
            continue
        wanted = by_waiter.get(instance.name, [])
        for rev in revisions.get(instance.name, []):
            if not rev.published:
                _sync(rev.obj, wanted, prefixes, revisions)


def _sync(
    obj: KubeObject,
    wanted: list[Gate],
    prefixes: tuple[str, ...],
    revisions: Mapping[str, list[Revision]],
) -> None:
    types = [g.condition_type for g in wanted]
    raw = obj.get("spec.readinessGates", [])
    current: list[Any] = raw if isinstance(raw, list) else []
    present = [e.get("conditionType") if isinstance(e, dict) else None for e in current]
    for index in reversed(range(len(present))):  # stale gates out, one by one (comments stay)
        kind = present[index]
        if isinstance(kind, str) and kind.startswith(prefixes) and kind not in types:
            obj.delete(f"spec.readinessGates[{index}]")
    count = len(obj.get("spec.readinessGates", []) or [])
    for kind in types:
        if kind not in present:
            obj.set(f"spec.readinessGates[{count}]", {"conditionType": kind})
            count += 1
    for condition in _conditions(obj):
        if condition.startswith(prefixes) and condition not in types:
            remove_condition(obj, condition)
    for gate in wanted:
        set_condition(obj, gate_condition(gate, revisions))


def _conditions(obj: KubeObject) -> list[str]:
    raw = obj.get("status.conditions", [])
    if not isinstance(raw, list):
        return []
    return [str(c.get("type", "")) for c in raw if isinstance(c, dict)]
