"""The benchmark's package generator: deterministic, the size asked for, a mix kpt reads."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import generate  # noqa: E402

SIZE = 50
needs_kpt = pytest.mark.skipif(shutil.which("kpt") is None, reason="kpt is not installed")


def resources(files: dict[str, str]) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path, text in files.items():
        if path == "Kptfile":
            continue
        docs.extend(doc for doc in yaml.safe_load_all(text) if doc is not None)
    return docs


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_same_size_same_bytes() -> None:
    assert generate.package_files(SIZE) == generate.package_files(SIZE)
    assert generate.package_files(SIZE) != generate.package_files(SIZE + 1)


def test_written_package_is_deterministic(tmp_path: Path) -> None:
    generate.write_package(SIZE, tmp_path / "a")
    generate.write_package(SIZE, tmp_path / "b")
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    assert (tmp_path / "a" / "Kptfile").is_file()


@pytest.mark.parametrize("size", [1, 2, SIZE, 250])
def test_count(size: int) -> None:
    docs = resources(generate.package_files(size))
    assert len(docs) == size
    names = Counter((d["kind"], d["metadata"]["name"]) for d in docs)
    assert max(names.values()) == 1


def test_files_hold_at_most_per_file_resources() -> None:
    files = generate.package_files(1000)
    for path, text in files.items():
        if path.startswith("resources/"):
            assert len([d for d in yaml.safe_load_all(text) if d]) <= generate.PER_FILE
    assert len(files) >= 1000 // generate.PER_FILE


def test_mix() -> None:
    docs = resources(generate.package_files(1000))
    kinds = Counter(d["kind"] for d in docs)
    assert kinds["ClusterContext"] == 1
    assert {"Deployment", "Service", "ConfigMap", "Interface"} <= set(kinds)
    assert 0.15 < kinds["Interface"] / len(docs) < 0.35
    for doc in docs:
        if doc["kind"] == "Interface":
            assert doc["apiVersion"] == "req.nephio.org/v1alpha1"
            spec = doc["spec"]
            assert spec["networkInstance"]["name"]
            assert spec["attachmentType"] in ("vlan", "none")
            assert spec["ipFamilyPolicy"] in ("ipv4-only", "ipv6-only", "dual-stack")
    context = next(d for d in docs if d["kind"] == "ClusterContext")
    assert context["apiVersion"] == "infra.nephio.org/v1alpha1"
    assert context["spec"]["siteCode"] and context["spec"]["region"]
    assert context["spec"]["cniConfig"]["cniType"]


def test_has_comments_and_quoted_strings() -> None:
    text = "".join(generate.package_files(1000).values())
    assert " # " in text and "\n# " in text
    assert "'" in text and '"' in text
    assert ": |\n" in text


@pytest.mark.kpt
@needs_kpt
def test_kpt_reads_it(tmp_path: Path) -> None:
    out = generate.generate(SIZE, tmp_path / "out")
    pkg = out / generate.PKG_NAME
    done = subprocess.run(["kpt", "fn", "source", str(pkg)], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    rl = yaml.safe_load(done.stdout)
    assert rl["kind"] == "ResourceList"
    kinds = [item["kind"] for item in rl["items"]]
    assert len(kinds) == SIZE + 1  # the resources and the Kptfile
    assert kinds.count("Kptfile") == 1
    assert (out / generate.RL_NAME).read_bytes() == done.stdout


@pytest.mark.kpt
@needs_kpt
def test_cache_reused_and_output_deterministic(tmp_path: Path) -> None:
    first = generate.generate(SIZE, tmp_path / "one")
    rl = first / generate.RL_NAME
    mtime = rl.stat().st_mtime_ns
    assert generate.generate(SIZE, tmp_path / "one") == first
    assert rl.stat().st_mtime_ns == mtime
    second = generate.generate(SIZE, tmp_path / "two")
    assert tree(first) == tree(second)


@pytest.mark.parametrize(("shape", "share"), [("nephio", 0.25), ("nephio-dense", 1.0)])
def test_the_nephio_shapes_give_nad_generator_its_share_of_work(shape: str, share: float) -> None:
    """nad-generator's bench package: the share of resources that are Interfaces and their
    claims (a quarter, as the mixed shape's Interfaces; all of them when dense), each Interface
    with one NAD condition left to write, which nad-generator writes."""
    from krmfn.nad_generator.config import Config
    from krmfn.nad_generator.process import process
    from krmlib import Conditions, ResourceList

    files = generate.SHAPES[shape](240)
    docs = [
        yaml.safe_load(part)
        for path, text in files.items()
        if path != "Kptfile"
        for part in text.split("\n---\n")
    ]
    inputs = [d for d in docs if d["kind"] in ("Interface", "IPClaim", "VLANClaim")]
    assert abs(len(inputs) / len(docs) - share) < 0.05
    interfaces = {d["metadata"]["name"] for d in docs if d["kind"] == "Interface"}
    parts = [
        "\n".join(line for line in part.splitlines() if not line.startswith("#")).strip()
        for text in files.values()
        for part in text.split("\n---\n")
    ]
    items = "".join("- " + part.replace("\n", "\n  ") + "\n" for part in parts if part)
    rl = ResourceList.parse(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
    )
    process(rl, Config())
    nads = [obj for obj in rl.items if obj.kind == "NetworkAttachmentDefinition"]
    assert len(nads) == len(interfaces) > 0
    conditions = Conditions(rl.package().kptfile)
    assert all(conditions.status(t) == "True" for t in conditions.types())
