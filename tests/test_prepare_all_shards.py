"""``krmfn prepare-all --shard K/N`` (issue 37.6): shards of a tree give, together, the tree one
run gives, byte for byte, run one after the other or all at once (overlapping shards included);
each writes only its own deployments (and the sites they provision); the locks let shards run
side by side and keep a whole-tree run out; a final ``--check`` over the tree is clean.

The tree: examples/oran-cu with five top-level deployments (copies of ``oran-cu`` under other
names), each provisioning a site in the catalog, so shards write the catalog at once too.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from krmfn.preparer.prepare_all import parse_shard, shard_of, top_level
from krmlib.packages import tree_lock
from tests.durability_support import (
    BIN,
    EXAMPLE,
    copy_tree,
    differences,
    env,
    krmfn,
    snapshot,
)

NAMES = ["oran-cu", "oran-cu-b", "oran-cu-c", "oran-cu-d", "oran-cu-e"]
PROVISIONED = """---
apiVersion: topology.nephio.org/v1alpha1
kind: Site
metadata:
  name: edge9
spec:
  provisionIfNotFound: true
"""


def make_tree(target: Path) -> Path:
    tree = copy_tree(EXAMPLE, target)
    source = tree / "oran-cu"
    topology = source / "topology.yaml"
    text = topology.read_text().replace("sites: [edge1]", "sites: [edge1, edge9]", 1)
    topology.write_text(text + PROVISIONED)
    for name in NAMES[1:]:
        copy_tree(source, tree / name)
        kptfile = tree / name / "Kptfile"
        kptfile.write_text(kptfile.read_text().replace("name: oran-cu", f"name: {name}", 1))
    return tree


def owned(k: int, n: int) -> list[str]:
    return [name for name in NAMES if shard_of(name, n) == k]


@pytest.fixture(scope="module")
def one_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The tree one ``prepare-all`` gives."""
    tree = make_tree(tmp_path_factory.mktemp("one") / "tree")
    done = krmfn("prepare-all", "-q", tree)
    assert done.returncode == 0, done.stdout + done.stderr
    made = snapshot(tree)
    assert all(f"catalog/sites/provisioned/{name}-edge9/Kptfile" in made for name in NAMES)
    assert all(f"{name}/upf-lab-1/Kptfile" in made for name in NAMES)
    return made


def test_the_partition_is_by_top_level_deployment_and_every_shard_has_one() -> None:
    for n in (2, 3):
        assert all(owned(k, n) for k in range(1, n + 1)), n
        assert sorted(x for k in range(1, n + 1) for x in owned(k, n)) == sorted(NAMES)
    root = Path("/t")
    folders = [root / "a", root / "a/x", root / "a/x/y", root / "b", root / "c/d"]
    assert top_level(folders) == [root / "a", root / "b", root / "c/d"]
    # from the path alone: fixed values, the same on every machine and Python
    assert [shard_of(name, 3) for name in NAMES] == [1, 3, 1, 1, 2]
    assert parse_shard("2/3") == (2, 3)
    assert [parse_shard(t) for t in ("0/3", "4/3", "3", "a/b", "-1/2", "1/0")] == [None] * 6


def test_each_shard_writes_only_its_part(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    before = snapshot(tree)
    done = krmfn("prepare-all", "-q", "--shard", "2/3", tree)
    assert done.returncode == 0, done.stdout + done.stderr
    mine = owned(2, 3)
    changed = differences(before, snapshot(tree))
    assert changed
    places = tuple(f"{name}/" for name in mine)
    sites = tuple(f"catalog/sites/provisioned/{name}-edge9/" for name in mine)
    assert [rel for rel in changed if not rel.startswith(places + sites)] == []
    assert {line.split()[0] for line in done.stdout.splitlines()[1:]} == {
        rel for name in mine for rel in (name, *_children(tree, name))
    }


def _children(tree: Path, name: str) -> list[str]:
    return [
        f"{name}/{p.name}" for p in sorted((tree / name).iterdir()) if (p / "Kptfile").is_file()
    ]


@pytest.mark.parametrize("n", [2, 3])
def test_shards_one_after_the_other_give_one_runs_tree(
    tmp_path: Path, one_run: dict[str, bytes], n: int
) -> None:
    tree = make_tree(tmp_path / "tree")
    for k in range(1, n + 1):
        done = krmfn("prepare-all", "-q", "--shard", f"{k}/{n}", tree)
        assert done.returncode == 0, done.stdout + done.stderr
    assert differences(snapshot(tree), one_run) == []
    check = krmfn("prepare-all", "--check", tree)
    assert check.returncode == 0, check.stdout + check.stderr


def test_shards_at_once_give_one_runs_tree(tmp_path: Path, one_run: dict[str, bytes]) -> None:
    """Shards 1/3, 2/3, 3/3 and 1/2 (which overlaps them) started together."""
    tree = make_tree(tmp_path / "tree")
    runs = [
        subprocess.Popen(
            [str(BIN / "krmfn"), "prepare-all", "-q", "-j", "1", "--shard", shard, str(tree)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )
        for shard in ("1/3", "2/3", "3/3", "1/2")
    ]
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, out + err
    assert differences(snapshot(tree), one_run) == []
    check = krmfn("prepare-all", "--check", tree)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_shard_waits_only_for_its_own_deployments(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    busy = tree / owned(1, 3)[0]
    with tree_lock(busy):  # another command writing one deployment of shard 1
        refused = krmfn("prepare-all", "-q", "--no-wait", "--shard", "1/3", tree)
        assert refused.returncode == 1
        assert "another krmfn command is writing" in refused.stderr, refused.stderr
        assert krmfn("prepare-all", "-q", "--no-wait", "--shard", "2/3", tree).returncode == 0
    assert krmfn("prepare-all", "-q", "--no-wait", "--shard", "1/3", tree).returncode == 0


def test_a_whole_tree_run_waits_for_the_shards(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    with tree_lock(tree, exclusive=False):  # what a running shard holds on ROOT
        refused = krmfn("prepare-all", "-q", "--no-wait", tree)
        assert refused.returncode == 1
        assert "another krmfn command is writing" in refused.stderr, refused.stderr
    with tree_lock(tree):  # a whole-tree run: every shard waits
        refused = krmfn("prepare-all", "-q", "--no-wait", "--shard", "2/3", tree)
        assert refused.returncode == 1


def test_the_final_check_finds_a_shard_not_run(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    for k in (1, 2):
        assert krmfn("prepare-all", "-q", "--shard", f"{k}/3", tree).returncode == 0
    check = krmfn("prepare-all", "--check", tree)
    assert check.returncode == 1
    assert owned(3, 3)[0] in check.stderr  # "not clean: ..." names it
    assert krmfn("prepare-all", "--check", "--shard", "1/3", tree).returncode == 0
    assert krmfn("prepare-all", "--check", "--shard", "3/3", tree).returncode == 1


def test_an_empty_shard_and_usage_errors(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    for name in NAMES[1:]:
        shutil.rmtree(tree / name)  # one top-level deployment left: oran-cu, in shard 1/3
    done = krmfn("prepare-all", "--shard", "2/3", tree)
    assert done.returncode == 0, done.stderr
    assert "shard 2/3: no top-level deployment of it" in done.stderr
    for bad in ("0/3", "4/3", "x", "1/0"):
        wrong = krmfn("prepare-all", "--shard", bad, tree)
        assert wrong.returncode == 2 and "--shard takes K/N" in wrong.stderr, wrong.stderr


def test_a_root_that_is_itself_the_deployment_is_one_shard(tmp_path: Path) -> None:
    """ROOT is the only top-level deployment: its shard locks ROOT as a whole-tree run does
    (it locked itself out, shared then exclusive), the other shards have nothing to do."""
    whole = copy_tree(EXAMPLE, tmp_path / "whole")
    done = krmfn("prepare-all", "-q", whole / "oran-cu")
    assert done.returncode == 0, done.stdout + done.stderr
    tree = copy_tree(EXAMPLE, tmp_path / "tree")
    mine = shard_of(".", 2)
    for k in (3 - mine, mine):
        done = krmfn("prepare-all", "-q", "--no-wait", "--shard", f"{k}/2", tree / "oran-cu")
        assert done.returncode == 0, done.stdout + done.stderr
    assert differences(snapshot(tree), snapshot(whole)) == []
