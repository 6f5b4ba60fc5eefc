"""Golden cases of krmfn-interface-expander: in-process (twice) and through real kpt."""

from __future__ import annotations

from pathlib import Path

import pytest
from krmfn.interface_expander import Config, process

from krmlib.testing import GoldenCase, check_golden, check_kpt, golden_cases

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
CASES = golden_cases(TESTDATA, "interface-expander")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_golden(case: GoldenCase) -> None:
    check_golden(case, process, Config)


@pytest.mark.kpt
@pytest.mark.parametrize("case", [c for c in CASES if c.kpt], ids=str)
def test_kpt(case: GoldenCase) -> None:
    check_kpt(case, "krmfn-interface-expander")
