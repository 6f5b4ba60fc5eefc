"""The "X waits for Y" policy (default: an SMF waits for the UPFs it connects to).

A waiter instance gets one gate per connected instance of the waited-for type, named
``wait-for-<type>-<instance>``. The gates are declared on the waiter's PackageVariantSet and, when
PackageRevisions are piped in, written onto the waiter's unpublished PackageRevisions
(``spec.readinessGates`` and a ``status.conditions`` entry per gate).
"""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from collections.abc import Mapping
from typing import NamedTuple

from krmlib import (
    Condition,
    Conditions,
    KrmError,
    KubeObject,
    add_readiness_gate,
    get_readiness_gates,
    remove_readiness_gate,
)

from .config import WaitRule
from .deployed import connected
from .porch import Revision, published_repositories
from .topology import Instance, Topology

GATES = "spec.readinessGates"  # a PackageRevision's gates (a Kptfile's are info.readinessGates)


class Gate(NamedTuple):
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
    _refuse_cycle(topology, out)
    return out


def _refuse_cycle(topology: Topology, by_waiter: Mapping[str, list[Gate]]) -> None:
    """Instances that wait for each other, around a loop, are never published: an error naming
    them (issue 27.6). An iterative depth-first search (no recursion over instances)."""
    types = {i.name: i.nf_type for i in topology.instances}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(by_waiter):
        if state.get(start):
            continue
        path = [start]
        todo = [iter([g.waits_for.name for g in by_waiter.get(start, [])])]
        state[start] = 1
        while todo:
            following = next(todo[-1], None)
            if following is None:
                state[path.pop()] = 2
                todo.pop()
                continue
            if state.get(following) == 1:
                loop = [*path[path.index(following) :], following]
                chain = ", which waits for ".join(f"{types[n]} {n}" for n in loop)
                raise KrmError(
                    f"the wait rules (the functionConfig's waitRules) are in a cycle: {chain}; "
                    "none of them would ever be published: remove one of the rules",
                    obj=topology.obj,
                )
            if not state.get(following):
                state[following] = 1
                path.append(following)
                todo.append(iter([g.waits_for.name for g in by_waiter.get(following, [])]))


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
    """The PackageRevision's gates and their conditions: managed ones that no longer apply go,
    wanted ones are added (others are left alone)."""
    types = [g.condition_type for g in wanted]
    for kind in get_readiness_gates(obj, GATES):
        if kind.startswith(prefixes) and kind not in types:
            remove_readiness_gate(obj, kind, GATES)
    for kind in types:
        add_readiness_gate(obj, kind, GATES)
    conditions = Conditions(obj)
    for kind in conditions.types():
        if kind.startswith(prefixes) and kind not in types:
            conditions.remove(kind)
    for gate in wanted:
        conditions.set(gate_condition(gate, revisions))
    conditions.flush()
