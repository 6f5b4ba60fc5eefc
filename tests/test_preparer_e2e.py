"""krmfn prepare-all on package trees, the oran-cu example, and kpt render equivalence."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from krmlib.packages import is_kpt_internal

from .kpt_packages import render

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "oran-cu"
BIN = Path(sys.executable).parent


def prepare_all(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "krmfn"), "prepare-all", *args],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": f"{BIN}:/usr/bin:/bin"},
    )


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def content(root: Path) -> dict[str, list[Any]]:
    """Every YAML file as parsed documents without kpt's bookkeeping annotations."""
    out: dict[str, list[Any]] = {}
    for rel, data in tree(root).items():
        if not (rel.endswith(".yaml") or rel.endswith("Kptfile")):
            continue
        docs = [d for d in yaml.safe_load_all(data) if d is not None]
        for doc in docs:
            annotations = (doc.get("metadata") or {}).get("annotations") or {}
            for key in [k for k in annotations if is_kpt_internal(k)]:
                del annotations[key]
        out[rel] = docs
    return out


def rows(stdout: str) -> dict[str, list[str]]:
    """The table by ID: [TEMPLATE, SITE, PREPARED] (APPROVED and REASON left out)."""
    lines = stdout.strip().splitlines()
    assert lines[0].split() == ["ID", "TEMPLATE", "SITE", "PREPARED", "APPROVED", "REASON"]
    return {line.split()[0]: line.split()[1:4] for line in lines[1:]}


def test_example_prepares_topology_and_six_children(tmp_path: Path) -> None:
    work = tmp_path / "oran-cu"
    shutil.copytree(EXAMPLE, work)
    done = prepare_all(str(work))
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert table["oran-cu"][-1] == "yes"
    children = {k: v for k, v in table.items() if k != "oran-cu"}
    assert len(children) == 6
    assert all(v[-1] == "yes" for v in children.values())
    templates = sorted(v[0] for v in children.values())
    assert templates == ["nf/free5gc/smf:v1.0.0"] * 5 + ["nf/free5gc/upf:v1.0.0"]
    smf = yaml.safe_load((work / "oran-cu/smf-lab-1/smf.yaml").read_text().split("---")[1])
    assert smf["metadata"]["annotations"]["nephio.org/prepare"] == "Here"
    assert smf["spec"]["labels"]["app.kubernetes.io/part-of"] == "oran-cu"
    carried = yaml.safe_load((work / "oran-cu/smf-lab-1/smf_free5gc-smf.yaml").read_text())
    assert carried["metadata"]["annotations"]["nephio.org/prepare"] == "Never"
    assert carried["status"]["sessionCapacity"] == 2000
    assert "catalog" not in "".join(table)
    before = tree(work)
    again = prepare_all(str(work))
    assert again.returncode == 0, again.stderr
    assert tree(work) == before, "a second run changed files"
    assert "0 changed" in again.stderr


def test_example_demo_script(tmp_path: Path) -> None:
    work = tmp_path / "oran-cu"
    shutil.copytree(EXAMPLE, work)
    done = subprocess.run(
        [str(EXAMPLE / "demo.sh"), str(work)],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": f"{BIN}:/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert (work / "oran-cu/upf-lab-1/deployment.yaml").exists()


@pytest.mark.kpt
def test_prepare_all_equals_repeated_kpt_render(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    shutil.copytree(EXAMPLE, ours)
    shutil.copytree(EXAMPLE, theirs)
    assert prepare_all(str(ours)).returncode == 0
    previous: dict[str, list[Any]] = {}
    for _ in range(6):
        render(theirs)
        now = content(theirs)
        if now == previous:
            break
        previous = now
    assert content(ours) == content(theirs)


def nested_tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    pkg = root / "top"
    shutil.copytree(ROOT / "testdata/preparer/nested-topology/package", pkg)
    kptfile = pkg / "Kptfile"
    kptfile.write_text(kptfile.read_text() + "pipeline:\n  mutators:\n  - exec: krmfn-preparer\n")
    return root


def test_nested_topologies_prepare_at_every_level(tmp_path: Path) -> None:
    root = nested_tree(tmp_path)
    done = prepare_all(str(root))
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert set(table) == {"top", "top/region-us-west", "top/region-us-west/leaf-us-west-1"}
    assert all(v[-1] == "yes" for v in table.values())
    leaf = yaml.safe_load((root / "top/region-us-west/leaf-us-west-1/deployment.yaml").read_text())
    assert leaf["spec"]["parentDeploymentId"] == "nested-topology/region-us-west"
    assert leaf["spec"]["templateId"] == "nf/leaf:v1"


def test_prepare_all_fails_when_something_stays_unprepared(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "testdata/preparer/sites-0/package", root / "pkg")
    kptfile = root / "pkg/Kptfile"
    kptfile.write_text(kptfile.read_text() + "pipeline:\n  mutators:\n  - exec: krmfn-preparer\n")
    done = prepare_all(str(root))
    assert done.returncode == 1
    assert rows(done.stdout)["pkg"][-1] == "no"
    before = tree(root)
    assert prepare_all(str(root)).returncode == 1
    assert tree(root) == before


def test_prepare_all_reports_a_failing_plugin_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "testdata/preparer/plugin-fails/package", root / "pkg")
    shutil.copy(ROOT / "testdata/preparer/plugin-fails/config.yaml", root / "pkg/preparer.yaml")
    kptfile = root / "pkg/Kptfile"
    kptfile.write_text(
        kptfile.read_text()
        + "pipeline:\n  mutators:\n  - exec: krmfn-preparer\n    configPath: preparer.yaml\n"
    )
    before = tree(root)
    done = prepare_all(str(root))
    assert done.returncode == 1
    assert "widget backend unreachable" in done.stderr
    assert tree(root) == before


def test_prepare_all_usage_errors(tmp_path: Path) -> None:
    assert prepare_all().returncode == 2
    assert prepare_all(str(tmp_path / "missing")).returncode == 2
    assert prepare_all("--help").returncode == 0
