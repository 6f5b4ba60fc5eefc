"""examples/upf through real kpt: the first render adds children, the second changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from krmlib.testing import read_tree

from .kpt_packages import assert_render_changes_nothing, rendered_copy

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "upf"


@pytest.mark.kpt
def test_upf_renders_and_a_second_render_changes_nothing(tmp_path: Path) -> None:
    work = tmp_path / "upf"
    rendered_copy(EXAMPLE, work)
    once = read_tree(work)
    children = sorted(n for n in once if n.startswith(("ipallocation_", "vlanallocation_")))
    assert [n.split("_")[0] + "_" + n.split("_")[1].rsplit("-", 1)[0] for n in children] == [
        "ipallocation_lo0-ip",
        "ipallocation_n3-ip",
        "ipallocation_n4-ip",
        "ipallocation_n6-ipv4",
        "ipallocation_n6-ipv6",
        "vlanallocation_n3-vlan",
        "vlanallocation_n6-vlan",
    ]
    kptfile = once["Kptfile"].decode()
    assert "type: req-nephio-org-v1alpha1-interface-n6-nad-generated" in kptfile
    assert "type: req-nephio-org-v1alpha1-interface-lo0-nad-generated" not in kptfile
    # the inputs stay byte-identical (comments included)
    for name in ("interfaces.yaml", "cluster-context.yaml"):
        assert once[name] == (EXAMPLE / name).read_bytes(), name
    assert_render_changes_nothing(work)
