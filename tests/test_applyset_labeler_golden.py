"""Golden cases of krmfn-applyset-labeler: in-process and through the real kpt binary."""

from __future__ import annotations

from pathlib import Path

import pytest
from krmfn.applyset_labeler import Config, process

import krmlib.testing
from krmlib import ResourceList
from krmlib.testing import GoldenCase, check_golden, check_kpt, golden_cases

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
CASES = golden_cases(TESTDATA, "applyset-labeler")


def _strip_all_results(rl_text: str) -> str:
    """The items without any results (the input's included).

    Workaround: krmlib.testing's idempotency check keeps the first run's results as input
    results, so a function that reports anything looks non-idempotent.
    """
    rl = ResourceList.parse(rl_text)
    rl._input_results = ""
    return rl.to_yaml(with_results=False)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_golden(case: GoldenCase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(krmlib.testing, "_strip_results", _strip_all_results)
    check_golden(case, process, Config)


@pytest.mark.kpt
@pytest.mark.parametrize("case", [c for c in CASES if c.kpt], ids=str)
def test_kpt(case: GoldenCase) -> None:
    check_kpt(case, "krmfn-applyset-labeler")
