"""Golden cases of krmfn-merger: in-process and through the real kpt (exec mode)."""

from __future__ import annotations

from pathlib import Path

import pytest
from krmfn.merger.config import Config
from krmfn.merger.process import process

from krmlib.testing import GoldenCase, check_golden, check_kpt, golden_cases

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
CASES = golden_cases(TESTDATA, "merger")


@pytest.fixture(autouse=True)
def _in_package(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kpt fn eval`` gives no package-path: spec.files resolve against the current folder,
    which stands for the package folder here (kpt fn render gives it; see test_merger_function)."""
    case = request.node.callspec.params.get("case")
    if isinstance(case, GoldenCase):
        monkeypatch.chdir(case.package)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_golden(case: GoldenCase) -> None:
    check_golden(case, process, Config)


@pytest.mark.kpt
@pytest.mark.parametrize("case", [c for c in CASES if c.kpt], ids=str)
def test_kpt(case: GoldenCase) -> None:
    check_kpt(case, "krmfn-merger")
