"""Golden cases of krmfn-preparer: in-process and through the real kpt."""

from __future__ import annotations

from pathlib import Path

import pytest
from krmfn.preparer import Config, process

from krmlib.testing import GoldenCase, check_golden, check_kpt, golden_cases

CASES = golden_cases(Path(__file__).parent.parent / "testdata", "preparer")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_golden(case: GoldenCase) -> None:
    check_golden(case, process, Config)


@pytest.mark.kpt
@pytest.mark.parametrize("case", [c for c in CASES if c.kpt], ids=str)
def test_kpt(case: GoldenCase) -> None:
    check_kpt(case, "krmfn-preparer")
