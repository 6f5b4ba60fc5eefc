"""Durability without fault injection (issue 23, docs/durability.md): the atomic writer and its
leftovers against real kpt, the state prepare-all --check reports, deployment packages found
alike by prepare-all and deployments list, one broken package failing alone, missing and
half-made children rebuilt, a worker that dies, a full stdout. The strace suite is
tests/test_durability_faults.py."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from krmfn.registry import FUNCTIONS as REGISTRY
from krmlib._io.atomic import NewFolder, temp_name
from krmlib.packages import remove_leftovers, write_file
from tests.durability_support import (
    BIN,
    EXAMPLE,
    copy_tree,
    differences,
    env,
    krmfn,
    no_traceback,
    snapshot,
)

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"
KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: {name}\n"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """examples/oran-cu after a clean prepare-all."""
    tree = copy_tree(EXAMPLE, tmp_path_factory.mktemp("clean") / "t")
    done = krmfn("prepare-all", "-q", tree)
    assert done.returncode == 0, done.stderr
    return snapshot(tree)


# --- the writer --------------------------------------------------------------------------------


def test_an_atomic_write_keeps_permissions_and_a_missing_trailing_newline(tmp_path: Path) -> None:
    target = tmp_path / "cm.yaml"
    target.write_text(CM.format(name="a").rstrip("\n"))
    target.chmod(0o640)
    write_file(target, CM.format(name="b"))
    assert target.read_text() == CM.format(name="b").rstrip("\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cm.yaml"]  # no temporary left
    fresh = tmp_path / "new.yaml"
    write_file(fresh, CM.format(name="c"))
    assert fresh.read_text() == CM.format(name="c")


@pytest.mark.kpt
def test_kpt_reads_nothing_a_crash_leaves(tmp_path: Path) -> None:
    """Temporary files, pending files and an unpublished holder folder are invisible to kpt
    (it reads hidden files and folders: the names, not the dots, keep them out)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE.format(name="pkg"))
    (pkg / temp_name("cm.yaml")).write_text(CM.format(name="temporary"))
    (pkg / temp_name("Kptfile")).write_text(KPTFILE.format(name="temporary"))
    child = NewFolder(pkg / "child")
    child.write("Kptfile", KPTFILE.format(name="child"))
    child.write("cm.yaml", CM.format(name="pending"))  # the holder is left as a kill leaves it
    source = subprocess.run(
        ["kpt", "fn", "source", str(pkg)], capture_output=True, text=True, check=True
    )
    assert "temporary" not in source.stdout and "pending" not in source.stdout
    assert source.stdout.count("kind: Kptfile") == 1
    assert len(remove_leftovers(pkg)) == 3
    assert sorted(p.name for p in pkg.iterdir()) == ["Kptfile"]


def test_a_published_folder_with_pending_files_is_finished(tmp_path: Path) -> None:
    new = NewFolder(tmp_path / "child")
    new.write("Kptfile", KPTFILE.format(name="child"))
    new.write("sub/cm.yaml", CM.format(name="x"))
    os.rename(new.holder, tmp_path / "child")  # killed right after the folder was put in place
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / temp_name("HEAD")).write_text("not ours")
    remove_leftovers(tmp_path)
    assert (tmp_path / "child" / "Kptfile").read_text() == KPTFILE.format(name="child")
    assert (tmp_path / "child" / "sub" / "cm.yaml").read_text() == CM.format(name="x")
    assert snapshot(tmp_path / "child").keys() == {"Kptfile", "sub/cm.yaml"}
    assert len(list((tmp_path / ".git").iterdir())) == 1  # .git is left alone


# --- what CI reads ------------------------------------------------------------------------------


def test_check_reports_the_state_on_disk(tmp_path: Path) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    done = krmfn("prepare-all", "--check", "-o", "json", tree)
    assert done.returncode == 1
    doc = json.loads(done.stdout)
    [package] = doc["packages"]
    assert package["id"] == "oran-cu" and package["prepared"] is False
    assert "would change" in package["reason"]
    assert doc["summary"]["prepared"] == 0 and doc["summary"]["packages"] == 1
    table = krmfn("prepare-all", "--check", tree)
    row = next(line for line in table.stdout.splitlines() if line.startswith("oran-cu"))
    assert row.split()[3] == "no"
    assert "0 prepared, 1 not prepared" in table.stderr
    assert snapshot(tree) == snapshot(EXAMPLE)  # nothing written


def test_a_root_without_deployment_packages(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    checked = krmfn("prepare-all", "--check", empty)
    assert checked.returncode == 1
    assert "error: no deployment package under" in checked.stderr
    run = krmfn("prepare-all", empty)
    assert run.returncode == 0
    assert "warning: no deployment package under" in run.stderr


def test_deployments_list_and_prepare_all_agree(tmp_path: Path) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    listed = krmfn("deployments", "list", "-o", "json", tree)
    assert [r["id"] for r in json.loads(listed.stdout)] == ["oran-cu"]
    assert krmfn("prepare-all", "-q", tree).returncode == 0
    listed = krmfn("deployments", "list", "-o", "json", tree)
    prepared = krmfn("prepare-all", "-q", "--check", "-o", "json", tree)
    ids = [r["id"] for r in json.loads(listed.stdout)]
    assert ids == [p["id"] for p in json.loads(prepared.stdout)["packages"]]
    assert len(ids) == 7


# --- one broken package -------------------------------------------------------------------------


def test_a_malformed_package_fails_alone(tmp_path: Path, prepared: dict[str, bytes]) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    assert krmfn("prepare-all", "-q", tree).returncode == 0
    broken = tree / "oran-cu" / "upf-lab-1" / "Kptfile"
    broken.write_text(broken.read_text().split("pipeline:")[0] + "pipeline: 5\n")
    (tree / "oran-cu" / "smf-lab-1" / "deployment.yaml").write_text("- a list\n")
    done = krmfn("prepare-all", "-o", "json", tree)
    no_traceback(done.stdout, done.stderr)
    assert done.returncode == 1
    rows = {p["id"]: p for p in json.loads(done.stdout)["packages"]}
    assert "pipeline must be a map" in rows["oran-cu/upf-lab-1"]["reason"]
    assert "not a mapping" in rows["oran-cu/smf-lab-1"]["reason"]
    assert rows["oran-cu/smf-us-dallas-3"]["prepared"] is True
    listed = krmfn("deployments", "list", tree)
    no_traceback(listed.stdout, listed.stderr)
    assert listed.returncode == 1 and "oran-cu/smf-lab-1" in listed.stderr
    assert "smf-us-dallas-3" in listed.stdout


def test_a_file_where_a_child_folder_must_go(tmp_path: Path) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    (tree / "oran-cu" / "upf-lab-1").write_text("in the way\n")
    done = krmfn("prepare-all", tree)
    no_traceback(done.stdout, done.stderr)
    assert done.returncode == 1
    assert "upf-lab-1 is a file, not a folder" in done.stdout
    assert (tree / "oran-cu" / "upf-lab-1").read_text() == "in the way\n"


# --- crash-safe order: what a parent points to ---------------------------------------------------


@pytest.mark.parametrize("damage", ["child folder removed", "child Deployment removed"])
def test_a_missing_or_half_made_child_is_rebuilt(
    damage: str, tmp_path: Path, prepared: dict[str, bytes]
) -> None:
    """What an older version left when killed after the Placement was written: the parent is
    marked prepared, its child is missing or half made. The next run makes it again."""
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    assert krmfn("prepare-all", "-q", tree).returncode == 0
    child = tree / "oran-cu" / "smf-lab-1"
    if damage == "child folder removed":
        shutil.rmtree(child)
    else:
        (child / "deployment.yaml").unlink()
        (child / "smf.yaml").write_text("")
    done = krmfn("prepare-all", "-q", tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert differences(snapshot(tree), prepared) == []


def test_a_worker_that_dies_is_reported(tmp_path: Path, prepared: dict[str, bytes]) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    plugin = tree / "plugins" / "namespace.py"
    original = plugin.read_text()
    # The plugin kills the process that runs it when that is a worker (its parent is
    # prepare-all itself), as the kernel's OOM killer or a stray signal would.
    plugin.write_text(
        original.replace(
            'if __name__ == "__main__":',
            'if __name__ == "__main__":\n'
            "    import os, signal\n"
            "    worker = os.getppid()\n"
            "    above = open(f'/proc/{worker}/stat').read().rsplit(')', 1)[1].split()[1]\n"
            "    if b'prepare-all' in open(f'/proc/{above}/cmdline', 'rb').read():\n"
            "        os.kill(worker, signal.SIGKILL)\n",
        )
    )
    done = krmfn("prepare-all", "-j", "2", "-o", "json", tree)
    no_traceback(done.stdout, done.stderr)
    assert done.returncode == 1
    rows = {p["id"]: p for p in json.loads(done.stdout)["packages"]}
    assert any("worker process" in p["reason"] for p in rows.values()), rows
    quiet = krmfn("prepare-all", "-q", "-j", "2", tree)  # -q: still a line for each on stderr
    assert quiet.returncode == 1
    assert "error: the worker process preparing it died" in quiet.stderr, quiet.stderr
    plugin.write_text(original)
    again = krmfn("prepare-all", "-q", tree)
    assert again.returncode == 0
    assert differences(snapshot(tree), prepared) == []


# --- a full stdout -------------------------------------------------------------------------------

FUNCTIONS = [f.name for f in REGISTRY]  # every function, the ones added later too


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_full_stdout_is_one_message(name: str) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [str(BIN / f"krmfn-{name}")],
            input='{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": []}',
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            check=False,
        )
    assert done.returncode == 1
    assert done.stderr == f"krmfn-{name}: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("command", [["prepare-all", "--check"], ["deployments", "list"]])
def test_a_full_stdout_for_the_commands(command: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [str(BIN / "krmfn"), *command, str(EXAMPLE)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            check=False,
        )
    assert done.returncode == 1
    no_traceback(done.stderr)
    assert "cannot write the output: No space left on device" in done.stderr


def test_an_error_names_an_item_as_kind_and_name() -> None:
    """krmlib's field errors show the item as Python does (``<KubeObject …>``); prepare-all's
    messages name it ``Kind/name``."""
    from krmfn.preparer.prepare_all import _readable
    from krmlib import KrmError, KubeObject

    kptfile = KubeObject.from_yaml(KPTFILE.format(name="pkg") + "pipeline: 5\n")
    with pytest.raises(KrmError) as caught:
        kptfile.get("pipeline.mutators")
    assert "<KubeObject" in str(caught.value)
    assert _readable(str(caught.value)) == "Kptfile/pkg: pipeline is not a map"


def test_a_folder_made_meanwhile_by_another_process_is_no_file_in_the_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make_folders`` races other writers (prepare-all's workers, shards) making the same
    folder: one that appears between its two looks is a folder, not "a file in the way" (a CI
    run of the shard test hit this: `catalog/sites/provisioned`, made by two deployments)."""
    from krmlib import KrmError
    from krmlib._io import atomic

    target = tmp_path / "sites" / "provisioned" / "edge9"
    made = tmp_path / "sites" / "provisioned"
    real_isdir = os.path.isdir
    looked: list[str] = []

    def isdir_before_the_other_writer(path: str | os.PathLike[str]) -> bool:
        if os.fspath(path) == str(made) and not looked:
            looked.append(os.fspath(path))
            made.mkdir(parents=True)  # the other process, right after this look
            return False
        return real_isdir(path)

    monkeypatch.setattr(os.path, "isdir", isdir_before_the_other_writer)
    atomic.make_folders(target)
    monkeypatch.undo()
    assert looked and target.is_dir()
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(KrmError, match="a file is in the way"):
        atomic.make_folders(tmp_path / "a-file" / "below")
