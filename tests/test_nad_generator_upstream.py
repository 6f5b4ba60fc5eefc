"""nad-generator against Nephio's nad-fn: its own expected outputs, transcribed with its cases.

Every case folder of testdata/nad-generator with an ``upstream.yaml`` (nad-fn's ``_expected.yaml``,
nephio-project/nephio krm-functions/nad-fn/fn/testdata at a29054b) is run in-process and its items
compared with nad-fn's, after removing what only kpt adds (path and index annotations). Kptfile
conditions are compared as a set (nad-fn's test sorts the ResourceList). No difference is allowed
on these cases; the deliberate differences (README, "Where it differs from nad-fn") are shown by
tests/test_nad_generator.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from krmfn.nad_generator import Config, process
from krmlib import ResourceList
from krmlib.testing import DEFAULT_ENV, GoldenCase, golden_cases, kpt_source, run_text
from tests.upstream_cases import assert_same_items

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
CASES = [c for c in golden_cases(TESTDATA, "nad-generator") if (c.path / "upstream.yaml").exists()]


def test_every_nad_fn_case_is_transcribed() -> None:
    """nad-fn has 21 golden cases (8 at the top of fn/testdata, 13 under golden/)."""
    assert len([c for c in CASES if c.name.startswith("nephio-fn-")]) == 20
    assert any(
        c.name == "nephio-fn-missing-kptfile" for c in golden_cases(TESTDATA, "nad-generator")
    )


@pytest.mark.parametrize("case", CASES, ids=str)
def test_same_items_as_nad_fn(case: GoldenCase, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in DEFAULT_ENV.items():
        monkeypatch.setenv(name, value)
    output, code = run_text(process, Config, kpt_source(case.package, case.config))
    assert code == case.exit_code
    ours = ResourceList.parse(output).to_yaml(with_results=False)
    assert_same_items(ours, (case.path / "upstream.yaml").read_text(), "nad-fn's")


def test_missing_kptfile_is_an_error_as_in_nad_fn() -> None:
    case = next(
        c for c in golden_cases(TESTDATA, "nad-generator") if c.name == "nephio-fn-missing-kptfile"
    )
    output, code = run_text(process, Config, kpt_source(case.package, case.config))
    assert code == 1
    assert (case.path / "upstream-error.txt").read_text().strip() in output
