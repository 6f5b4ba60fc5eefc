"""Golden cases of krmfn-topology-to-pvs: in-process and through the real kpt (exec mode)."""

from pathlib import Path

import pytest
from krmfn.topology_to_pvs import Config, process

import krmlib.testing
from krmlib import ResourceList
from krmlib.testing import GoldenCase, check_golden, check_kpt, golden_cases

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
CASES = golden_cases(TESTDATA, "topology-to-pvs")


def _strip_all_results(rl_text: str) -> str:
    # Work-around for krmlib.testing._strip_results, which keeps the results the input already
    # had, so the idempotency check of a passing case with results sees them doubled.
    rl = ResourceList.parse(rl_text)
    rl._input_results = ""
    return rl.to_yaml(with_results=False)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_golden(case: GoldenCase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(krmlib.testing, "_strip_results", _strip_all_results, raising=False)
    check_golden(case, process, Config)


@pytest.mark.kpt
@pytest.mark.parametrize("case", [c for c in CASES if c.kpt], ids=str)
def test_kpt(case: GoldenCase) -> None:
    check_kpt(case, "krmfn-topology-to-pvs")
