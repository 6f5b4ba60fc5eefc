"""examples/applyset through real kpt: the first render labels and creates, the second is a no-op."""

from __future__ import annotations

from pathlib import Path

import pytest

from krmfn.applyset_labeler import applyset_id
from krmlib.testing import read_tree

from .kpt_packages import assert_render_changes_nothing, rendered_copy

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "applyset"


@pytest.mark.kpt
def test_applyset_example_renders_and_a_second_render_changes_nothing(tmp_path: Path) -> None:
    work = tmp_path / "applyset"
    first = rendered_copy(EXAMPLE, work)
    set_id = applyset_id("shop-applyset", "shop", "ConfigMap", "")
    assert "would be pruned: live member of the set, not in the package" in first
    assert "1 pruned, 2 created, 1 updated, 2 unchanged" in first
    once = read_tree(work)
    parent = once["configmap_shop-applyset.yaml"].decode()
    assert f"applyset.kubernetes.io/id: {set_id}" in parent
    assert "contains-group-kinds: ConfigMap,Deployment.apps,Namespace,Service" in parent
    assert "additional-namespaces: monitoring" in parent
    for name in ("namespace.yaml", "web.yaml", "settings.yaml"):
        text = once[name].decode()
        members = text.count("\nkind: ")
        assert text.count(f"applyset.kubernetes.io/part-of: {set_id}") == members, name
    # local-config and ignored files stay byte-identical (comments included)
    for name in ("Kptfile", "applyset.yaml", "live/objects.yaml", ".krmignore"):
        assert once[name] == (EXAMPLE / name).read_bytes(), name
    assert "# The shop front end." in once["web.yaml"].decode()
    assert_render_changes_nothing(work)


@pytest.mark.kpt
def test_upf_pipeline_ends_with_the_labeler_in_kubectl_mode(tmp_path: Path) -> None:
    upf = EXAMPLE.parent / "upf"
    work = tmp_path / "upf"
    first = rendered_copy(upf, work)
    set_id = applyset_id("upf", "upf", "Secret", "")
    assert "kubectl apply -n upf --prune --applyset=secrets/upf" in first
    once = read_tree(work)
    parent = once["secret_upf.yaml"].decode()
    assert f"applyset.kubernetes.io/id: {set_id}" in parent
    assert 'config.kubernetes.io/local-config: "true"' in parent
    # kubectl mode: members stay unlabelled (kubectl refuses input that carries part-of)
    assert not any("part-of" in text.decode() for text in once.values())
    assert_render_changes_nothing(work)
