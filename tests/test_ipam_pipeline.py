"""Nephio's own pipeline tests (nephio-project/nephio krm-functions/pipeline-tests at a29054b) with
krmfn-ipam-allocator in mock mode in the places of ipam-fn and vlan-fn (``claims: ip``, then
``claims: vlan``, as Nephio's TestPipelines runs them apart): the final items are Nephio's, the
claims' status and conditions included. The cases and the comparison are tests/
test_nephio_pipeline.py's (its own stand-in for the two is tests/fn_nephio_mock_claims.py)."""

from __future__ import annotations

import pytest

from krmfn.registry import BY_NAME
from krmlib import ResourceList
from krmlib.testing import DEFAULT_ENV, kpt_source, run_text
from tests import test_nephio_pipeline as pipeline

ALLOCATOR = BY_NAME["ipam-allocator"]


def allocate(claims: str, text: str) -> str:
    config = (
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ipam\n"
        f"  data:\n    mode: mock\n    claims: {claims}\n"
    )
    head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    items = "".join(obj.to_item() for obj in ResourceList.parse(text).items)
    output, code = run_text(*ALLOCATOR.load(), head + items + config)
    assert code == 0, output
    return head + "".join(obj.to_item() for obj in ResourceList.parse(output).items)


@pytest.mark.parametrize("case", sorted(pipeline.CASES))
def test_nephio_pipeline_with_the_allocator_in_mock_mode(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in DEFAULT_ENV.items():
        monkeypatch.setenv(name, value)
    package, steps = pipeline.CASES[case]
    text = kpt_source(pipeline.CASES_DIR / package)
    for name in steps:
        if name in (pipeline.IP, pipeline.VLAN):
            text = allocate(name, text)
        else:
            text = pipeline.step(name, text)
    pipeline.check(case, ResourceList.parse(text).to_yaml(with_results=False))
