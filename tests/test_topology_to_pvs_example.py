"""examples/topology renders with real kpt, and a second render changes nothing."""

from pathlib import Path

import pytest

from krmlib.testing import read_tree

from .kpt_packages import assert_render_changes_nothing, rendered_copy

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "topology"


@pytest.mark.kpt
def test_example_renders_twice_without_diff(tmp_path: Path) -> None:
    work = tmp_path / "topology"
    rendered_copy(EXAMPLE, work)
    once = read_tree(work)
    original = read_tree(EXAMPLE)
    assert {name: once[name] for name in original} == original, "inputs must stay byte-identical"
    assert sorted(name for name in once if name.startswith("packagevariantsets/")) == [
        "packagevariantsets/free5gc-west-amf-regional.yaml",
        "packagevariantsets/free5gc-west-smf-regional.yaml",
        "packagevariantsets/free5gc-west-upf-edge-1.yaml",
        "packagevariantsets/free5gc-west-upf-edge-2.yaml",
    ]
    smf = once["packagevariantsets/free5gc-west-smf-regional.yaml"].decode()
    assert "wait-for-upf-upf-edge-1,wait-for-upf-upf-edge-2" in smf
    assert "nfdeployed/free5gc-west.yaml" in once
    assert_render_changes_nothing(work)
