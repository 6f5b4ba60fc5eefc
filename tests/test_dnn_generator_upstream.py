"""dnn-generator against Nephio's dnn-fn: its own expected outputs, transcribed with its cases.

Every case folder of testdata/dnn-generator with an ``upstream.yaml`` (dnn-fn's ``_expected.yaml``,
nephio-project/nephio krm-functions/dnn-fn/fn/testdata at a29054b) is run in-process and its
items compared with dnn-fn's, after removing what only kpt adds (path and index annotations).
The Kptfile's conditions are compared in dnn-fn's order too (condkptsdk appends them in a fixed
order on these cases). No difference is allowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from krmfn.dnn_generator import Config, process
from krmlib import ResourceList, run_text
from krmlib.testing import DEFAULT_ENV, GoldenCase, golden_cases, kpt_source
from tests.kpt_packages import without_kpt_bookkeeping

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
ALL = golden_cases(TESTDATA, "dnn-generator")
CASES = [c for c in ALL if (c.path / "upstream.yaml").exists()]
Key = tuple[str, str, str, str]


def items_of(text: str) -> tuple[dict[Key, dict[str, Any]], list[str]]:
    """The items by (apiVersion, kind, namespace, name), and the Kptfile's condition types in
    their order."""
    doc = yaml.safe_load(text) or {}
    items = doc.get("items") or []
    order = [
        c["type"]
        for i in items
        if i["kind"] == "Kptfile"
        for c in (i.get("status") or {}).get("conditions") or []
    ]
    return {
        (
            i["apiVersion"],
            i["kind"],
            i["metadata"].get("namespace", ""),
            i["metadata"]["name"],
        ): without_kpt_bookkeeping(i)
        for i in items
    }, order


def test_every_dnn_fn_case_is_transcribed() -> None:
    """dnn-fn has 8 golden cases (7 with an _expected.yaml, missing_kptfile with its error)."""
    assert len([c for c in CASES if c.name.startswith("nephio-fn-")]) == 7
    assert any(c.name == "nephio-fn-missing-kptfile" for c in ALL)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_same_items_as_dnn_fn(case: GoldenCase, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in DEFAULT_ENV.items():
        monkeypatch.setenv(name, value)
    output, code = run_text(process, Config, kpt_source(case.package, case.config))
    assert code == case.exit_code
    ours, our_order = items_of(ResourceList.parse(output).to_yaml(with_results=False))
    theirs, their_order = items_of((case.path / "upstream.yaml").read_text())
    assert sorted(ours) == sorted(theirs), "not the same items as dnn-fn's"
    for key, item in theirs.items():
        assert ours[key] == item, f"{key} differs from dnn-fn's"
    assert our_order == their_order, "the Kptfile's conditions are not in dnn-fn's order"


def test_missing_kptfile_is_an_error_as_in_dnn_fn() -> None:
    case = next(c for c in ALL if c.name == "nephio-fn-missing-kptfile")
    output, code = run_text(process, Config, kpt_source(case.package, case.config))
    assert code == 1
    assert (case.path / "upstream-error.txt").read_text().strip() in output
