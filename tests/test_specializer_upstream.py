"""dnn-generator and nfdeploy against Nephio's dnn-fn and nfdeploy-fn: their own expected outputs.

Every case folder of testdata/<function> with an ``upstream.yaml`` (the Go function's
``_expected.yaml``, nephio-project/nephio krm-functions/<fn>/fn/testdata at a29054b) is run
in-process and its items compared with the Go function's, after removing what only kpt adds (path
and index annotations). The Kptfile's conditions are compared in the Go function's order too
(condkptsdk appends them in a fixed order on these cases). A case with ``upstream-error.txt``
(no Kptfile) must fail with that text. No difference is allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from krmfn.registry import BY_NAME
from krmlib import ResourceList
from krmlib.testing import DEFAULT_ENV, GoldenCase, golden_cases, kpt_source, run_text
from tests.upstream_cases import assert_same_items

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
# function -> the number of the Go function's cases (with _expected.yaml, with _expected_error.txt)
UPSTREAM = {"dnn-generator": (7, 1), "nfdeploy": (10, 1)}
ALL = [c for function in UPSTREAM for c in golden_cases(TESTDATA, function)]
CASES = [c for c in ALL if (c.path / "upstream.yaml").exists()]
ERRORS = [c for c in ALL if (c.path / "upstream-error.txt").exists()]


@pytest.mark.parametrize("function", sorted(UPSTREAM))
def test_every_case_is_transcribed(function: str) -> None:
    expected, errors = UPSTREAM[function]
    assert len([c for c in CASES if c.function == function]) == expected
    assert len([c for c in ERRORS if c.function == function]) == errors


@pytest.mark.parametrize("case", CASES, ids=str)
def test_same_items_as_the_go_function(case: GoldenCase, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in DEFAULT_ENV.items():
        monkeypatch.setenv(name, value)
    process, config = BY_NAME[case.function].load()
    output, code = run_text(process, config, kpt_source(case.package, case.config))
    assert code == case.exit_code
    ours = ResourceList.parse(output).to_yaml(with_results=False)
    theirs = (case.path / "upstream.yaml").read_text()
    assert_same_items(ours, theirs, "the Go function's", order=True)


@pytest.mark.parametrize("case", ERRORS, ids=str)
def test_the_same_error_as_the_go_function(case: GoldenCase) -> None:
    process, config = BY_NAME[case.function].load()
    output, code = run_text(process, config, kpt_source(case.package, case.config))
    assert code == 1
    assert (case.path / "upstream-error.txt").read_text().strip() in output
