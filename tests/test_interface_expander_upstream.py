"""The nephio dialect against Nephio's own expected outputs (transcribed with their cases).

Every case folder with an ``upstream.yaml`` (Nephio's ``_expected.yaml``) is run in-process and
its output compared with Nephio's, item by item, after removing what only kpt adds (path and index
annotations). Kptfile conditions are compared as a set (Nephio sorts some of them). The only
differences allowed are listed in ``ALLOWED`` with their reason (see also the README's
"Deliberate differences").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from krmfn.interface_expander import Config, process
from krmlib import ResourceList
from krmlib._io.runner import run_text
from krmlib.testing import DEFAULT_ENV, GoldenCase, golden_cases, kpt_source
from tests.upstream_cases import assert_same_items

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
CASES = [
    c for c in golden_cases(TESTDATA, "interface-expander") if (c.path / "upstream.yaml").exists()
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_same_items_as_nephio(case: GoldenCase, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in DEFAULT_ENV.items():
        monkeypatch.setenv(name, value)
    output, code = run_text(process, Config, kpt_source(case.package, case.config))
    assert code == case.exit_code
    ours = ResourceList.parse(output).to_yaml(with_results=False)
    assert_same_items(ours, (case.path / "upstream.yaml").read_text(), "Nephio's")


def test_missing_kptfile_is_an_error_as_in_nephio() -> None:
    case = next(
        c
        for c in golden_cases(TESTDATA, "interface-expander")
        if c.name.endswith("kptfile") and (c.path / "upstream-error.txt").exists()
    )
    output, code = run_text(process, Config, kpt_source(case.package, case.config))
    assert code == 1
    assert (case.path / "upstream-error.txt").read_text().strip() in output
