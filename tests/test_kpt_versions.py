"""kpt across versions (issue 38.1): what kpt since v1.0.0-beta.56 changed under us.

Each test names the kpt source it follows (kptdev/kpt, the commit given, the path).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from krmfn.applyset_labeler.prune import RESOURCE_ID_ANNOTATIONS, first_difference
from krmfn.registry import BY_NAME, FUNCTIONS
from krmlib import ResourceList
from krmlib.testing import GoldenCase, golden_cases, kpt_source, run_resource_list

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


def test_rendered_condition_never_read_as_ours(tmp_path: Path) -> None:
    """interface-expander forgets the conditions of Interfaces that left the package: with the
    Interface removed from the beta.67 case's rendered package, the Interface's conditions go and
    Rendered and renderStatus stay, byte for byte (they are kpt's, not an Interface's)."""
    case = BETA67_CASES[0]
    package = tmp_path / "package"
    shutil.copytree(case / "expected" / "package", package)
    (package / "interface.yaml").unlink()
    process, config = BY_NAME["interface-expander"].load()
    source = kpt_source(package)
    rl = run_resource_list(process, config, source)
    [kptfile] = [o for o in rl.items if o.kind == "Kptfile"]
    [kptfile_in] = [o for o in ResourceList.parse(source).items if o.kind == "Kptfile"]
    types = [c["type"] for c in kptfile.get("status.conditions")]
    assert types[0] == "Rendered" and not [t for t in types if "-interface-" in t], types
    assert kptfile.get("status.conditions")[0] == kptfile_in.get("status.conditions")[0]
    text, text_in = kptfile.to_yaml(), kptfile_in.to_yaml()
    rendered = re.search(r"^ *- type: Rendered\n(?: +[a-z].*\n)*", text_in, re.M)
    assert rendered is not None and rendered.group(0) in text  # its text, byte for byte
    assert text.split("renderStatus:", 1)[1] == text_in.split("renderStatus:", 1)[1]


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


# --- the functionConfig among the items (kpt <= beta.67) or not (kpt main) ------------------


CONFIG_CASES = [
    case
    for function in FUNCTIONS
    for case in golden_cases(ROOT / "testdata", function.name)
    if case.config is not None and case.exit_code == 0 and function.name != "merger"
]


@pytest.mark.kpt
@pytest.mark.parametrize("case", CONFIG_CASES, ids=str)
def test_no_function_reads_its_config_from_the_items(
    case: GoldenCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kpt fn eval --fn-config FILE` in the package passes FILE among the items up to
    v1.0.0-beta.67 and not on kpt's main (kptdev/kpt 9044f12be, #4639: "Exclude fn-config from
    function input items in kpt fn eval"; thirdparty/kyaml/runfn/runfn.go @23c57d7). Every
    function reads its config from functionConfig only: with the config file among the items too,
    the other items come out byte for byte the same, with the same results."""
    assert case.config is not None
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    process, config = BY_NAME[case.function].load()
    without = run_resource_list(process, config, kpt_source(case.package, case.config))
    package = tmp_path / "package"
    shutil.copytree(case.package, package)
    inside = package / "fn-config.yaml"
    inside.write_bytes(case.config.read_bytes())
    with_item = run_resource_list(process, config, kpt_source(package, inside))
    kept = [o for o in with_item.items if o.path != "fn-config.yaml"]
    assert len(kept) == len(with_item.items) - 1
    assert [o.to_yaml() for o in kept] == [o.to_yaml() for o in without.items]
    assert [(r.severity, r.message, r.field_path) for r in with_item.results] == [
        (r.severity, r.message, r.field_path) for r in without.results
    ]


def test_docs_table_names_each_version_with_its_commit() -> None:
    """docs/kpt-versions.md: one row per kpt version we check, with the kpt commit, and every
    test it names exists."""
    text = (ROOT / "docs" / "kpt-versions.md").read_text(encoding="utf-8")
    rows = [
        line
        for line in text.splitlines()
        if line.startswith("| v1.0.0-beta.") or line.startswith("| main")
    ]
    versions = [row.split("|")[1].strip() for row in rows]
    assert versions == [
        "v1.0.0-beta.56",
        "v1.0.0-beta.59",
        "v1.0.0-beta.61.1",
        "v1.0.0-beta.62",
        "v1.0.0-beta.67",
        "main",
    ]
    for row in rows:
        assert re.search(r"`[0-9a-f]{7,40}`", row.split("|")[2]), row
    tests = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("test_*.py"))
    for name in re.findall(r"`(test_[a-z_]+)`", text) + re.findall(r"::(test_[a-z_]+)`", text):
        assert f"def {name}(" in tests, name
    for case in re.findall(r"`testdata/([a-z-]+/[a-z0-9-]+)`", text):
        assert (ROOT / "testdata" / case / "package").is_dir(), case
