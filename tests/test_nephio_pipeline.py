"""Nephio's own pipeline tests (nephio-project/nephio krm-functions/pipeline-tests at a29054b),
with krmfn's functions in place of nfdeploy-fn, interface-fn, dnn-fn and nad-fn.

The inputs (``upf_pkg``, ``upf_pkg_init``) and the expected outputs are Nephio's, transcribed in
testdata/nfdeploy/pipeline-tests; the IPAM/VLAN step is played by Nephio's mock backends
(tests/fn_nephio_mock_claims.py). Each case runs the steps of Nephio's ``TestPipelines`` in its
order, in-process and through ``kpt fn eval --exec``, and the final items must be Nephio's
(kpt's bookkeeping aside; Kptfile conditions in Nephio's order).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from krmfn.registry import BY_NAME
from krmlib import ResourceList
from krmlib.testing import DEFAULT_ENV, KPT, kpt_source, run_text
from tests import fn_nephio_mock_claims
from tests.upstream_cases import assert_same_items

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE.parent / "testdata" / "nfdeploy" / "pipeline-tests"
BIN = Path(sys.executable).parent

NF, ITF, DNN, NAD, IP, VLAN = (
    "nfdeploy",
    "interface-expander",
    "dnn-generator",
    "nad-generator",
    "ip",
    "vlan",
)
SIMPLE = [NF, ITF, DNN, IP, VLAN, NAD, ITF, DNN, NF]
# TestPipelines: (input package, expected output, steps)
CASES = {
    "workload_cluster_not_ready": ("upf_pkg_init", SIMPLE),
    "simplified_deployment": ("upf_pkg", SIMPLE),
    "real_deployment": ("upf_pkg", [NF, ITF, NAD, ITF, DNN, NF, IP, VLAN, NAD, ITF, DNN, NF]),
    "real_deployment_2": (
        "upf_pkg",
        [NF, ITF, NAD, ITF, DNN, NF, IP, NAD, ITF, DNN, NF, VLAN, NAD, ITF, DNN, NF],
    ),
}


def step(name: str, text: str) -> str:
    if name in (IP, VLAN):
        output, code = run_text(
            lambda rl, config: fn_nephio_mock_claims.process(rl, name), None, text
        )
    else:
        output, code = run_text(*BY_NAME[name].load(), text)
    assert code == 0, output
    return output


def check(case: str, output: str) -> None:
    theirs = (CASES_DIR / f"{case}.yaml").read_text()
    assert_same_items(output, theirs, "Nephio's pipeline", order=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_nephio_pipeline_in_process(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in DEFAULT_ENV.items():
        monkeypatch.setenv(name, value)
    package, steps = CASES[case]
    text = kpt_source(CASES_DIR / package)
    for name in steps:
        text = step(name, text)
    check(case, ResourceList.parse(text).to_yaml(with_results=False))


def _exec(name: str) -> str:
    if name in (IP, VLAN):
        return f"{sys.executable} {HERE / 'fn_nephio_mock_claims.py'} {name}"
    return str(BIN / f"krmfn-{name}")


@pytest.mark.kpt
@pytest.mark.parametrize("case", sorted(CASES))
def test_nephio_pipeline_through_kpt(case: str, tmp_path: Path) -> None:
    package, steps = CASES[case]
    work = tmp_path / package
    shutil.copytree(CASES_DIR / package, work)
    for name in steps:
        subprocess.run(
            [KPT, "fn", "eval", str(work), "--exec", _exec(name), "--truncate-output=false"],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
    check(case, kpt_source(work))
