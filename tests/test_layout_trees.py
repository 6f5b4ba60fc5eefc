"""The tree commands read a package tree the same whatever its layout (issue 33, items 2 and 4).

``krmfn prepare-all`` on examples/oran-cu rewritten with 4-space indentation, or with every
``metadata`` in flow style (``metadata: {name: x, ...}``), prepares the same tree as on the
original: the same files (a child package's Kptfile is ``Kptfile``), the same data, and none of
kpt's bookkeeping annotations (path, index, package-path) left in any file.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "oran-cu"
BIN = Path(sys.executable).parent
BOOKKEEPING = (
    "config.kubernetes.io/path",
    "config.kubernetes.io/index",
    "internal.config.kubernetes.io/",
    "config.k8s.io/id",
)


def _rewrite(root: Path, dump: Callable[[list[Any]], str]) -> None:
    for path in sorted(root.rglob("*")):
        if path.is_file() and (path.suffix in (".yaml", ".yml") or path.name == "Kptfile"):
            docs = list(YAML().load_all(path.read_text()))
            path.write_text(dump(docs))


def four_spaces(docs: list[Any]) -> str:
    out = io.StringIO()
    writer = YAML()
    writer.indent(mapping=4, sequence=6, offset=4)
    writer.width = 4096
    writer.dump_all(docs, out)
    return out.getvalue()


def flow_metadata(docs: list[Any]) -> str:
    for doc in docs:
        if isinstance(doc, CommentedMap) and isinstance(doc.get("metadata"), CommentedMap):
            doc["metadata"].fa.set_flow_style()
    out = io.StringIO()
    writer = YAML()
    writer.width = 4096
    writer.dump_all(docs, out)
    return out.getvalue()


def _prepare(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "krmfn"), "prepare-all", "-q", str(root)],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": f"{BIN}:/usr/bin:/bin"},
    )


def _tree(root: Path) -> dict[str, list[Any]]:
    return {
        p.relative_to(root).as_posix(): list(yaml.safe_load_all(p.read_text()))
        for p in sorted(root.rglob("*"))
        if p.is_file() and (p.suffix in (".yaml", ".yml") or p.name == "Kptfile")
    }


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    root = tmp_path_factory.mktemp("block") / "oran-cu"
    shutil.copytree(EXAMPLE, root)
    done = _prepare(root)
    assert done.returncode == 0, done.stderr
    return _tree(root)


@pytest.mark.parametrize("layout", [four_spaces, flow_metadata], ids=lambda f: f.__name__)
def test_prepare_all_prepares_the_same_tree_in_every_layout(
    tmp_path: Path, prepared: dict[str, list[Any]], layout: Callable[[list[Any]], str]
) -> None:
    root = tmp_path / "oran-cu"
    shutil.copytree(EXAMPLE, root)
    _rewrite(root, layout)
    done = _prepare(root)
    assert done.returncode == 0, done.stderr
    tree = _tree(root)
    assert sorted(tree) == sorted(prepared)  # a child's Kptfile is Kptfile, no kptfile_<x>.yaml
    assert tree == prepared
    for rel in tree:
        text = (root / rel).read_text()
        for word in BOOKKEEPING:
            assert word not in text, f"{rel} keeps kpt's {word}"
    again = subprocess.run(
        [str(BIN / "krmfn"), "prepare-all", "--check", str(root)],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": f"{BIN}:/usr/bin:/bin"},
    )
    assert again.returncode == 0, again.stdout + again.stderr
