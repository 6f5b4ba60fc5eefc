"""kpt across versions (issue 38.1): what kpt since v1.0.0-beta.56 changed under us.

Each test names the kpt source it follows (kptdev/kpt, the commit given, the path).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from krmfn.applyset_labeler.prune import RESOURCE_ID_ANNOTATIONS, first_difference

ROOT = Path(__file__).resolve().parent.parent
KPT_MAIN = "23c57d7fae70ee87265d17e7fa75955d1c12e553"


def _image_mode_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "Dockerfiles" / "README.md", ROOT / "mk" / "images.mk"]
    files += sorted((ROOT / "scripts" / "images").glob("*.sh"))
    files += sorted((ROOT / "krmfn").glob("*/README.md"))
    files += sorted((ROOT / "docs").glob("*.rst")) + sorted((ROOT / "docs").glob("*.md"))
    return [f for f in files if f.is_file()]


@pytest.mark.parametrize("path", _image_mode_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_krm_fn_runtime_beside_kpt_fn_runtime(path: Path) -> None:
    """kpt reads KRM_FN_RUNTIME since v1.0.0-beta.59 (64012864b) and KPT_FN_RUNTIME before it:
    kptdev/kpt pkg/fn/runtime/container.go `ContainerRuntimeEnv` @23c57d7 (internal/fnruntime/
    container.go @v1.0.0-beta.56 39d723331). Every line (a paragraph in docs) that sets one
    sets the other."""
    text = path.read_text(encoding="utf-8")
    units = text.split("\n\n") if path.suffix in (".md", ".rst") else text.splitlines()
    for number, line in enumerate(units, 1):
        if "KPT_FN_RUNTIME" in line or "KRM_FN_RUNTIME" in line:
            assert "KPT_FN_RUNTIME" in line and "KRM_FN_RUNTIME" in line, (
                f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
            )


def test_function_readmes_say_how_to_pick_podman() -> None:
    for readme in sorted((ROOT / "krmfn").glob("*/README.md")):
        text = readme.read_text(encoding="utf-8")
        if "Image: `ghcr.io/krmfn/" in text:
            assert "KRM_FN_RUNTIME=podman" in " ".join(text.split()), readme


# --- Rendered condition and renderStatus (kpt >= v1.0.0-beta.62) ---------------------------

BETA67_CASES = [
    ROOT / "testdata" / "interface-expander" / "kpt-beta67-rendered",
    ROOT / "testdata" / "nad-generator" / "kpt-beta67-render-failed",
]


def _rendered_blocks(kptfile: str) -> tuple[str, str]:
    """The Rendered condition's text and the renderStatus block's text (kpt writes both wide)."""
    rendered = re.search(r"^    - type: Rendered\n(?:      .*\n|\t.*\n)*", kptfile, re.M)
    render_status = re.search(r"^  renderStatus:\n(?:    .*\n|\s*\n)*", kptfile, re.M)
    assert rendered is not None and render_status is not None
    return rendered.group(0), render_status.group(0)


@pytest.mark.parametrize("case", BETA67_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rendered_status_kept_byte_for_byte(case: Path) -> None:
    """kpt >= v1.0.0-beta.62 appends a Rendered condition (RenderSuccess/RenderFailed) and writes
    status.renderStatus into the root Kptfile: kptdev/kpt pkg/lib/kptops/render_executor.go
    (updateRenderStatus, setRenderStatus) @23c57d7; the shapes are transcribed from kptdev/kpt
    e2e/testdata/fn-render/{basicpipeline,fn-failure}/.expected/diff.patch @23c57d7. The golden
    cases (tests/test_golden.py) run the function in-process and through kpt, twice; here: the
    two blocks are the input's, byte for byte, after the function (on disk and on stdout)."""
    before = (case / "package" / "Kptfile").read_text(encoding="utf-8")
    after = (case / "expected" / "package" / "Kptfile").read_text(encoding="utf-8")
    assert KPT_MAIN in (case / "case.yaml").read_text(encoding="utf-8").replace("\n  ", "")
    assert _rendered_blocks(after) == _rendered_blocks(before)
    output = (case / "expected" / "output.yaml").read_text(encoding="utf-8")
    assert "reason: Render" in output and "renderStatus:" in output
    assert after != before  # the function did change its own conditions


def test_rendered_condition_never_read_as_ours() -> None:
    """interface-expander forgets conditions of Interfaces that are gone; Rendered is kpt's."""
    case = BETA67_CASES[0]
    after = (case / "expected" / "package" / "Kptfile").read_text(encoding="utf-8")
    output = (case / "expected" / "output.yaml").read_text(encoding="utf-8")
    assert after.count("type: Rendered") == 1
    assert "Rendered" not in "".join(
        line for line in output.splitlines() if "message:" in line and "Rendered" in line
    )


# --- the resource-id annotation ------------------------------------------------------------


@pytest.mark.parametrize("name", RESOURCE_ID_ANNOTATIONS)
def test_both_resource_id_annotations_are_local(name: str) -> None:
    """kpt's round-trip id is internal.config.k8s.io/kpt-resource-id up to v1.0.0-beta.67
    (kptdev/kpt pkg/fn/runtime/utils.go @6bfa2af14) and internal.config.kubernetes.io/
    kpt-resource-id on main (fe84ac7b9, #4663; same path @23c57d7): the prune preview reads
    neither as a difference from the live object."""
    want = {"metadata": {"name": "a", "annotations": {name: "7"}}, "data": {"k": "v"}}
    live = {"metadata": {"name": "a", "uid": "u"}, "data": {"k": "v"}}
    assert first_difference(want, live) is None
    assert first_difference({**want, "data": {"k": "w"}}, live) == "data.k"
