"""examples/topology renders with real kpt, and a second render changes nothing."""

import shutil
from pathlib import Path

import pytest

from krmlib.testing import run_kpt

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "topology"


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.kpt
def test_example_renders_twice_without_diff(tmp_path: Path) -> None:
    work = tmp_path / "topology"
    shutil.copytree(EXAMPLE, work)
    first = run_kpt(["fn", "render", "--allow-exec", str(work)])
    assert first.returncode == 0, first.stderr
    once = _files(work)
    original = _files(EXAMPLE)
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
    second = run_kpt(["fn", "render", "--allow-exec", str(work)])
    assert second.returncode == 0, second.stderr
    assert _files(work) == once
