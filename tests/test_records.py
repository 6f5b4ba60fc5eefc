"""Records without dataclasses (ARCHITECTURE.md, "Records"): what callers see stays the same.

Values of a public API compare by value and show their fields; the machine-readable outputs keep
the keys and key order ``dataclasses.asdict`` gave them; a list or dict default is a new one
for each record.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from krmfn.applyset_labeler.scope import Scopes
from krmfn.merger.listing import Row
from krmfn.preparer import Outcome, prepare_all
from krmlib import Result, Severity
from krmlib.packages import Package


def test_a_result_is_equal_by_value_and_shows_its_fields() -> None:
    a = Result("m", Severity.WARNING, {"kind": "K"}, "spec.x", tags={"t": "1"})
    same = Result(
        message="m",
        severity=Severity.WARNING,
        resource_ref={"kind": "K"},
        field_path="spec.x",
        tags={"t": "1"},
    )
    assert a == same
    assert a != Result("m", Severity.WARNING, {"kind": "K"}, "spec.x")
    assert a != "m"
    with pytest.raises(TypeError):
        hash(a)  # as the frozen dataclass with dict fields: unhashable
    assert repr(Result("m")) == (
        "Result(message='m', severity=<Severity.ERROR: 'error'>, resource_ref=None, "
        "field_path=None, current_value=None, proposed_value=None, file_path=None, "
        "file_index=None, tags={})"
    )


def test_a_plugin_outcome_is_a_value() -> None:
    assert Outcome.done() == Outcome(True) == Outcome(prepared=True, reason="")
    assert Outcome.waiting("why") != Outcome.waiting("other")
    assert len({Outcome.done(), Outcome(True), Outcome.waiting("why")}) == 2
    assert repr(Outcome.waiting("why")) == "Outcome(prepared=False, reason='why')"
    assert Outcome.of(Outcome.waiting("x")) == Outcome(False, "x")


def test_prepare_all_output_keeps_its_keys_and_order() -> None:
    outcome = prepare_all.Outcome("dep", site="s", changed=["Kptfile"])
    assert list(outcome.to_dict()) == [
        "id",
        "template",
        "site",
        "prepared",
        "approved",
        "reason",
        "changed",
        "errors",
        "seconds",
        "ran",
    ]
    assert outcome.to_dict()["changed"] == ["Kptfile"]
    assert outcome.to_dict()["changed"] is not outcome.changed  # a copy, as asdict made
    summary = prepare_all.Summary(jobs=2, check=True)
    assert summary.to_dict() == {
        "packages": 0,
        "prepared": 0,
        "changed": 0,
        "failed": 0,
        "passes": 0,
        "seconds": 0.0,
        "jobs": 2,
        "check": True,
        "converged": True,
    }
    assert list(summary.to_dict()) == list(prepare_all.Summary().to_dict())


def test_a_worker_outcome_and_task_survive_pickling() -> None:
    """prepare-all sends tasks to its worker processes and gets outcomes back."""
    outcome = prepare_all.Outcome("dep", errors=["boom"], ran=False)
    back = pickle.loads(pickle.dumps(outcome))
    assert back.to_dict() == outcome.to_dict()
    task = prepare_all.Task(Path("/r"), Path("/r/dep"), None, 3, False)
    assert pickle.loads(pickle.dumps(task)) == task


def test_the_deployments_list_row_keeps_its_keys_and_order() -> None:
    row = Row("a", "t", "s", "", True, False, {"k": "v"})
    assert row.to_dict() == {
        "id": "a",
        "template": "t",
        "site": "s",
        "parent": "",
        "prepared": True,
        "approved": False,
        "metadata": {"k": "v"},
    }
    assert list(row.to_dict()) == [
        "id",
        "template",
        "site",
        "parent",
        "prepared",
        "approved",
        "metadata",
    ]
    assert row.to_dict()["metadata"] is not row.metadata


def test_default_lists_and_dicts_are_not_shared() -> None:
    first, second = Scopes(), Scopes()
    first.crds["x"] = None  # type: ignore[assignment]
    assert second.crds == {} and second.from_crds == {}
    assert Package(Path("a"), []).files is not Package(Path("b"), []).files
    one, two = prepare_all.Outcome("a"), prepare_all.Outcome("b")
    one.changed.append("f")
    assert two.changed == [] and two.errors == []
    assert Result("a").tags is not Result("b").tags


def test_results_keep_the_same_result_once_and_every_different_one() -> None:
    from krmlib import Results

    results = Results()
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "c"}
    for _ in range(3):
        results.add(Result("same", Severity.WARNING, resource_ref=dict(ref)))
    results.add(Result("same", Severity.ERROR, resource_ref=dict(ref)))  # another severity
    results.add(Result("same", Severity.WARNING, resource_ref={**ref, "name": "d"}))
    for n in range(500):
        results.add(Result(f"message {n}", Severity.INFO))
        results.add(Result(f"message {n}", Severity.INFO))
    assert len(results) == 3 + 500
    assert [r.message for r in results][:3] == ["same", "same", "same"]
    assert [r.severity for r in results][:2] == [Severity.WARNING, Severity.ERROR]


def test_results_that_share_a_hash_are_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Positions by the hash of a result's form (one int per hash, a list when two share one):
    every hash the same, the different results are all kept and the repeats dropped."""
    from krmlib import Results
    from krmlib._model import results as results_module

    monkeypatch.setattr(results_module, "hash", lambda _key: 7, raising=False)
    results = Results()
    for n in (1, 2, 1, 3, 2, 3, 4):
        results.add(Result(f"message {n}", Severity.INFO))
    assert [r.message for r in results] == [f"message {n}" for n in (1, 2, 3, 4)]
