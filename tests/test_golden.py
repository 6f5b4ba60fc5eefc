"""Every function's golden cases (testdata/<function>/<case>/): in-process and through real kpt.

The functions come from the registry (krmfn.registry); the case layout is krmlib.testing's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from krmfn.registry import BY_NAME, FUNCTIONS
from krmlib.testing import GoldenCase, check_golden, check_kpt, golden_cases

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
CASES = [case for function in FUNCTIONS for case in golden_cases(TESTDATA, function.name)]
# `kpt fn eval` gives no package-path: the merger's spec.files resolve against the current folder,
# which stands for the package folder here (kpt fn render gives it; see test_merger_function).
IN_PACKAGE_FOLDER = {"merger"}


@pytest.fixture(autouse=True)
def _in_package(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    callspec = getattr(request.node, "callspec", None)
    case = callspec.params.get("case") if callspec is not None else None
    if isinstance(case, GoldenCase) and case.function in IN_PACKAGE_FOLDER:
        monkeypatch.chdir(case.package)


def test_every_function_has_cases() -> None:
    assert {case.function for case in CASES} == set(BY_NAME)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_golden(case: GoldenCase) -> None:
    process, config = BY_NAME[case.function].load()
    check_golden(case, process, config)


@pytest.mark.kpt
@pytest.mark.parametrize("case", [c for c in CASES if c.kpt], ids=str)
def test_kpt(case: GoldenCase) -> None:
    check_kpt(case, BY_NAME[case.function].script)
