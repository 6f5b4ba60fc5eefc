"""The promises SECURITY.md makes about package trees on disk (issue 35, item 2), one test per
promise and tree command, on a tree holding every kind of link and hidden folder.

The tree commands: ``krmfn prepare-all``, ``prepare-all --check``, ``krmfn deployments list``,
``krmfn deployment create``, ``krmfn deployment approve`` and the merger's ``files:``. Each test
names the promise it checks, as SECURITY.md words it (``test_each_promise_is_stated_once``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from krmlib.packages import (
    MAX_TREE_FILE,
    TreeError,
    UnlistableFolder,
    kptfile_folders,
    read_package,
    read_tree_file,
)

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
BASE = ROOT / "testdata/bad/trees/duplicate-catalog-ids"
SECURITY = (ROOT / "SECURITY.md").read_text()

LINKS = "Symbolic links are not followed"
HIDDEN = "Hidden files and folders are left out"
REGULAR = "Only regular files are read"
SIZE = "A size cap"
UNLISTABLE = "A folder that cannot be listed is an error"
PROMISES = (LINKS, HIDDEN, REGULAR, SIZE, UNLISTABLE)

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  secret: {secret}\n"
SECRET = "SECRET-OUTSIDE-THE-TREE"
NOT_KRM = "name: ci\non: push\njobs: {}\n"  # a GitHub workflow: YAML, not KRM


def krmfn(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(BIN / "krmfn"), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    for stream in (done.stdout, done.stderr):
        assert SECRET not in stream and "root:x:" not in stream, stream[:2000]
    return done


def hostile_tree(tmp_path: Path) -> Path:
    """A tree of one deployment package (edge) and a catalog, with a link of every kind (to a
    file outside, to a file inside, to a folder outside, to a package outside, dangling), hidden
    files and folders holding YAML that is not KRM, and a FIFO."""
    outside = tmp_path / "outside"
    (outside / "pkg").mkdir(parents=True)
    (outside / "secret.yaml").write_text(CM.format(name="outside", secret=SECRET))
    (outside / "pkg" / "Kptfile").write_text((BASE / "deployments/edge/Kptfile").read_text())
    (outside / "pkg" / "cm.yaml").write_text(CM.format(name="outside-pkg", secret=SECRET))
    tree = tmp_path / "tree"
    shutil.copytree(BASE, tree)
    shutil.rmtree(tree / "catalog/templates/upf-b")
    edge = tree / "deployments/edge"
    (edge / "passwd.yaml").symlink_to("/etc/passwd")
    (edge / "secret.yaml").symlink_to(outside / "secret.yaml")
    (edge / "inside.yaml").symlink_to("deployment.yaml")
    (edge / "linkdir").symlink_to(outside)
    (edge / "dangling.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (tree / "deployments/linked-pkg").symlink_to(outside / "pkg")
    (tree / "catalog/templates/linked").symlink_to(outside / "pkg")
    for hidden in (
        tree / ".github/workflows/ci.yaml",
        edge / ".hidden.yaml",
        edge / ".cache/x.yaml",
        tree / "catalog/templates/upf-a/.github/ci.yaml",
        tree / "deployments/.hidden-pkg/Kptfile",
    ):
        hidden.parent.mkdir(parents=True, exist_ok=True)
        hidden.write_text(NOT_KRM)
    (tree / "catalog/templates/upf-a/.hidden").mkdir()
    (tree / "catalog/templates/upf-a/.hidden/secret.yaml").symlink_to(outside / "secret.yaml")
    os.mkfifo(edge / "fifo.yaml")
    return tree


def test_each_promise_is_stated_once() -> None:
    for promise in PROMISES:
        assert SECURITY.count(promise) == 1, promise


# --- prepare-all, --check, deployments list ------------------------------------------------------


@pytest.mark.parametrize("promise", [LINKS, HIDDEN, REGULAR])
def test_prepare_all_check_and_list_keep_the_promise(tmp_path: Path, promise: str) -> None:
    """Before issue 35: ``passwd.yaml -> /etc/passwd`` and ``.github/workflows/ci.yaml`` were
    read and failed the whole tree ("items[0] has no apiVersion")."""
    tree = hostile_tree(tmp_path)
    edge = tree / "deployments/edge"
    links = {p.name: os.readlink(p) for p in edge.iterdir() if p.is_symlink()}
    done = krmfn("prepare-all", str(tree))
    assert done.returncode == 0, (promise, done.stdout, done.stderr)
    assert "deployments/edge" in done.stdout
    assert "linked-pkg" not in done.stdout and "hidden-pkg" not in done.stdout
    check = krmfn("prepare-all", "--check", str(tree))
    assert check.returncode == 0, (promise, check.stdout, check.stderr)
    listed = krmfn("deployments", "list", str(tree), "-o", "json")
    assert listed.returncode == 0, (promise, listed.stderr)
    assert [line for line in listed.stdout.splitlines() if '"id"' in line] == [
        '    "id": "deployments/edge",'
    ]
    # nothing was written through a link, no hidden file was touched
    assert {p.name: os.readlink(p) for p in edge.iterdir() if p.is_symlink()} == links
    assert (tmp_path / "outside/secret.yaml").read_text() == CM.format(
        name="outside", secret=SECRET
    )
    assert (tree / ".github/workflows/ci.yaml").read_text() == NOT_KRM


def test_prepare_all_and_list_refuse_a_file_over_the_size_cap(tmp_path: Path) -> None:
    """A size cap: a 200 MB file is refused from its size (it was parsed, for over 20 s)."""
    tree = hostile_tree(tmp_path)
    big = tree / "deployments/edge/big.yaml"
    with big.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: no disk used, no byte read
    for args in (("prepare-all", str(tree)), ("deployments", "list", str(tree))):
        done = krmfn(*args)
        assert done.returncode == 1, args
        assert f"over the cap of {MAX_TREE_FILE} bytes" in done.stdout + done.stderr, args
        assert "big.yaml" in done.stdout + done.stderr


# --- deployment create, deployment approve -----------------------------------------------------


def test_deployment_create_keeps_the_promise(tmp_path: Path) -> None:
    """Symbolic links are not followed, hidden files and folders are left out: a link in a
    hidden folder of the template was read through (its ConfigMap merged into the package)."""
    tree = hostile_tree(tmp_path)
    out = tmp_path / "new"
    done = krmfn(
        "deployment",
        "create",
        "nf/upf",
        "--catalog",
        str(tree / "catalog"),
        str(out),
    )
    assert done.returncode == 1
    assert "symbolic link" in done.stderr
    assert not out.exists()
    (tree / "catalog/templates/upf-a/.hidden/secret.yaml").unlink()
    done = krmfn("deployment", "create", "nf/upf", "--catalog", str(tree / "catalog"), str(out))
    assert done.returncode == 0, done.stderr  # the hidden .github/ci.yaml is not read
    assert not any(SECRET in p.read_text() for p in out.rglob("*.yaml"))


def test_deployment_create_refuses_duplicate_template_ids(tmp_path: Path) -> None:
    """It picked one of the two."""
    tree = tmp_path / "tree"
    shutil.copytree(BASE, tree)
    done = krmfn(
        "deployment", "create", "nf/upf", "--catalog", str(tree / "catalog"), str(tmp_path / "n")
    )
    assert done.returncode == 1
    assert "two catalog packages have the id nf/upf: upf-a and upf-b" in done.stderr
    assert not (tmp_path / "n").exists()


def test_deployment_approve_does_not_read_a_linked_deployment(tmp_path: Path) -> None:
    """Symbolic links are not followed: a ``deployment.yaml`` linked from outside was read."""
    tree = hostile_tree(tmp_path)
    assert krmfn("prepare-all", str(tree)).returncode == 0
    edge = tree / "deployments/edge"
    prepared = (edge / "deployment.yaml").read_text()
    (tmp_path / "outside/deployment.yaml").write_text(prepared)
    (edge / "deployment.yaml").unlink()
    (edge / "deployment.yaml").symlink_to(tmp_path / "outside/deployment.yaml")
    done = krmfn("deployment", "approve", "--no-wait", str(edge))
    assert done.returncode == 1
    assert "no deployment.nephio.org Deployment" in done.stderr or "not a deployment" in (
        done.stderr
    ), done.stderr
    assert (tmp_path / "outside/deployment.yaml").read_text() == prepared


# --- the merger's files: -----------------------------------------------------------------------


def _merger(package: Path, files: str) -> subprocess.CompletedProcess[str]:
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: target\n    annotations:\n"
        f"      internal.config.kubernetes.io/package-path: '{package}'\n"
        "      internal.config.kubernetes.io/path: 'cm.yaml'\n"
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: m\n"
        f"  data:\n    files: {files}\n"
    )
    return subprocess.run(
        [str(BIN / "krmfn-merger")],
        input=text,
        capture_output=True,
        text=True,
        cwd=package,
        env={"PATH": f"{BIN}:/usr/bin:/bin"},
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("named", ["secret.yaml", "inputs/inside.yaml", "inputs"])
def test_the_merger_files_do_not_follow_links(tmp_path: Path, named: str) -> None:
    """Symbolic links are not followed: a link named in ``files:`` (or in a folder it names) to
    a file outside the package was read (a regression of issue 27)."""
    tree = hostile_tree(tmp_path)
    package = tree / "deployments/edge"
    (package / "inputs").mkdir()
    (package / "inputs/secret.yaml").symlink_to(tmp_path / "outside/secret.yaml")
    (package / "inputs/.hidden.yaml").write_text(NOT_KRM)
    (package / "inputs/own.yaml").write_text(CM.format(name="own", secret="mine"))
    (package / "inputs/inside.yaml").symlink_to("own.yaml")
    done = _merger(package, named)
    assert SECRET not in done.stdout
    if named.endswith(".yaml"):
        assert done.returncode == 1
        assert "symbolic link" in done.stdout or "resolves to" in done.stdout
    else:
        assert done.returncode == 0, done.stdout
        assert "name: own" in done.stdout


# --- the library path every command goes through ---------------------------------------------


def test_a_folder_that_cannot_be_listed_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that cannot be listed is an error, not skipped (root lists any folder, so the
    refusal is simulated)."""
    tree = hostile_tree(tmp_path)
    locked = tree / "deployments"
    scandir = os.scandir

    def refusing(path: str) -> object:
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied")
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    with pytest.raises(UnlistableFolder, match=r"cannot list the folder .*deployments"):
        kptfile_folders(tree)
    with pytest.raises(UnlistableFolder):
        read_package(tree, tree=True)


def test_one_file_is_opened_without_following_a_link_and_must_be_regular(tmp_path: Path) -> None:
    tree = hostile_tree(tmp_path)
    edge = tree / "deployments/edge"
    with pytest.raises(TreeError, match="symbolic link"):
        read_tree_file(edge / "passwd.yaml")
    with pytest.raises(TreeError, match="not a regular file"):
        read_tree_file(edge / "fifo.yaml")  # refused at once: O_NONBLOCK, then fstat
    names = {o.name for o in read_package(edge, tree=True)}
    assert names == {"edge", "deployment", "preparer"}  # no link, no hidden entry, no FIFO
