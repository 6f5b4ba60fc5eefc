"""Round two of the fault suite (issue 36): what a real environment refuses, injected with strace
at the exact call: a file system without ``flock``, a folder that cannot be listed, a kill
while a site is provisioned, a stderr that takes nothing, a stdout that takes nothing in file
mode, a failure under ``-q``, a kill of ``deployment create`` at each rename, the folders
``deployment create`` makes. Signals and orphans: tests/test_durability_signals.py; stdin:
tests/test_durability_stdin.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from krmfn.registry import FUNCTIONS as REGISTRY
from tests.durability_support import (
    BIN,
    EXAMPLE,
    FULL,
    STRACE,
    copy_tree,
    differences,
    env,
    krmfn,
    no_traceback,
    old_or_new,
    sample,
    snapshot,
)

pytestmark = [
    pytest.mark.kpt,
    pytest.mark.skipif(STRACE is None, reason="strace is not installed (make strace)"),
]

RENAMES = "rename,renameat,renameat2"


def strace(
    options: list[str], *args: str | Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``krmfn ARGS`` under ``strace -f OPTIONS`` (strace's own output discarded)."""
    assert STRACE is not None
    return subprocess.run(
        [STRACE, "-f", "-qq", "-o", "/dev/null", *options, str(BIN / "krmfn"), *map(str, args)],
        capture_output=True,
        text=True,
        env=env(),
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    tree = copy_tree(EXAMPLE, tmp_path_factory.mktemp("clean") / "t")
    done = krmfn("prepare-all", "-q", tree)
    assert done.returncode == 0, done.stderr
    return snapshot(tree)


# --- 36.5 no flock, no silent run ----------------------------------------------------------------


@pytest.mark.parametrize("error", ["ENOLCK", "EOPNOTSUPP"])
def test_where_flock_is_refused_nothing_is_written_without_no_lock(
    tmp_path: Path, prepared: dict[str, bytes], error: str
) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    old = snapshot(tree)
    refused = strace(["-e", f"inject=flock:error={error}"], "prepare-all", "-q", tree)
    no_traceback(refused.stdout, refused.stderr)
    assert refused.returncode == 1
    assert "refuses flock" in refused.stderr and "--no-lock" in refused.stderr, refused.stderr
    assert snapshot(tree) == old
    unlocked = strace(["-e", f"inject=flock:error={error}"], "prepare-all", "-q", "--no-lock", tree)
    assert unlocked.returncode == 0, unlocked.stderr
    assert differences(snapshot(tree), prepared) == []
    check = strace(["-e", f"inject=flock:error={error}"], "prepare-all", "--check", "-q", tree)
    assert check.returncode == 0, check.stderr  # a reader needs no lock
    template = tree / "catalog" / "templates" / "upf"
    create = ("deployment", "create", template, "--site", "lab/1")
    made = tmp_path / "made"
    no = strace(["-e", f"inject=flock:error={error}"], *create, made)
    assert no.returncode == 1 and "refuses flock" in no.stderr, no.stderr
    assert not made.exists()
    yes = strace(["-e", f"inject=flock:error={error}"], *create, "--no-lock", made)
    assert yes.returncode == 0, yes.stderr
    approve = strace(["-e", f"inject=flock:error={error}"], "deployment", "approve", made)
    assert approve.returncode == 1 and "refuses flock" in approve.stderr


# --- 36.3 an unreadable folder is an error -------------------------------------------------------


def test_a_folder_that_cannot_be_listed_is_a_named_error(
    tmp_path: Path, prepared: dict[str, bytes]
) -> None:
    tree = tmp_path / "t"
    tree.mkdir()
    for rel, data in prepared.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    folder = tree / "oran-cu" / "upf-lab-1"
    deny = ["-P", str(folder), "-e", "trace=openat", "-e", "inject=openat:error=EACCES"]
    check = strace(deny, "prepare-all", "--check", tree)
    no_traceback(check.stdout, check.stderr)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "cannot list the folder" in check.stdout and "upf-lab-1" in check.stdout
    assert "not clean" in check.stderr and "upf-lab-1" in check.stderr
    run = strace(deny, "prepare-all", "-q", tree)
    no_traceback(run.stdout, run.stderr)
    assert run.returncode == 1
    assert "upf-lab-1" in run.stderr and "Permission denied" in run.stderr, run.stderr
    listed = strace(deny, "deployments", "list", tree)
    no_traceback(listed.stdout, listed.stderr)
    assert listed.returncode == 1
    assert "oran-cu/upf-lab-1: cannot list the folder: Permission denied" in listed.stderr
    assert "smf-lab-1" in listed.stdout  # the others are listed
    assert differences(snapshot(tree), prepared) == []


# --- 36.2 a provisioned site appears whole -------------------------------------------------------

PROVISIONED_SITE = """---
apiVersion: topology.nephio.org/v1alpha1
kind: Site
metadata:
  name: edge9
spec:
  provisionIfNotFound: true
  merge:
  - apiVersion: v1
    kind: ConfigMap
    name: edge9-info
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: edge9-info
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  region: south
"""
SITE = "catalog/sites/provisioned/oran-cu-edge9"


def provisioning_tree(target: Path) -> Path:
    """examples/oran-cu with a UPF on a site the preparer provisions (two files)."""
    tree = copy_tree(EXAMPLE, target)
    topology = tree / "oran-cu" / "topology.yaml"
    text = topology.read_text().replace("sites: [edge1]", "sites: [edge1, edge9]", 1)
    topology.write_text(text + PROVISIONED_SITE)
    return tree


def _site_renames(tree: Path) -> list[int]:
    """The numbers of the renames a clean ``prepare-all -j 1`` makes in the provisioned site."""
    assert STRACE is not None
    done = subprocess.run(
        [
            STRACE,
            "-f",
            "-qq",
            "-e",
            f"trace={RENAMES}",
            "-e",
            "signal=none",
            "-o",
            "/dev/stdout",
            str(BIN / "krmfn"),
            "prepare-all",
            "-q",
            "-j",
            "1",
            str(tree),
        ],
        capture_output=True,
        text=True,
        env=env(),
        timeout=300,
        check=False,
    )
    calls = [line for line in done.stdout.splitlines() if "(" in line and "resumed" not in line]
    # The site's own renames (not those of the child package named after it, upf-provisioned-…)
    found = [n for n, line in enumerate(calls, 1) if "/catalog/sites/provisioned/" in line]
    assert found, done.stdout[-2000:]
    return found


def test_a_kill_while_a_site_is_provisioned_leaves_it_whole_or_named(tmp_path: Path) -> None:
    clean = provisioning_tree(tmp_path / "clean")
    old = snapshot(clean)
    assert krmfn("prepare-all", "-q", clean).returncode == 0
    new = snapshot(clean)
    assert f"{SITE}/Kptfile" in new and f"{SITE}/configmap_edge9-info.yaml" in new
    points = _site_renames(provisioning_tree(tmp_path / "count"))
    named = 0  # kills that left the site half made, each named by --check
    for number in points if FULL else points[-2:]:
        tree = provisioning_tree(tmp_path / f"k{number}")
        inject = f"inject={RENAMES}:signal=SIGKILL:when={number}"
        run = strace(["-e", inject], "prepare-all", "-q", "-j", "1", tree)
        no_traceback(run.stdout, run.stderr)
        assert not old_or_new(snapshot(tree), old, new), number
        site = tree / SITE
        if site.is_dir() and any(p.name.endswith(".krmfn-new") for p in site.iterdir()):
            check = krmfn("prepare-all", "--check", tree)
            assert check.returncode == 1
            assert f"{SITE} is half made" in check.stderr, check.stderr
            named += 1
        again = krmfn("prepare-all", "-q", tree)
        assert again.returncode == 0, again.stderr
        assert differences(snapshot(tree), new) == [], number
    assert named, "no kill point left the site half made: --check's message was not tried"


def test_a_site_folder_an_older_version_left_half_made_is_made_again(tmp_path: Path) -> None:
    clean = provisioning_tree(tmp_path / "clean")
    assert krmfn("prepare-all", "-q", clean).returncode == 0
    new = snapshot(clean)
    tree = provisioning_tree(tmp_path / "t")
    half = tree / SITE
    half.mkdir(parents=True)  # written in place by an older version, killed before its Kptfile
    (half / "configmap_edge9-info.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    (half / "stray.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    done = krmfn("prepare-all", "-q", tree)
    assert done.returncode == 0, done.stderr
    again = krmfn("prepare-all", "-q", tree)  # the folder moved aside is removed by a run
    assert again.returncode == 0, again.stderr
    assert differences(snapshot(tree), new) == []


# --- 36.6 a message for every failure; outputs that refuse -----------------------------------


def test_a_failure_under_quiet_is_on_stderr(tmp_path: Path) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    run = strace(["-e", f"inject={RENAMES}:error=ENOSPC:when=3"], "prepare-all", "-q", tree)
    no_traceback(run.stdout, run.stderr)
    assert run.returncode == 1
    assert "No space left on device" in run.stderr, run.stdout + run.stderr


@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_progress_that_cannot_be_written_does_not_stop_the_run(
    tmp_path: Path, prepared: dict[str, bytes], stderr: str
) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    redirect = "2>/dev/full" if stderr == "full" else "2>&-"
    done = subprocess.run(
        ["bash", "-c", f'exec "$0" prepare-all -o json "$1" {redirect}', BIN / "krmfn", tree],
        capture_output=True,
        text=True,
        env=env(),
        timeout=300,
        check=False,
    )
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    assert doc["summary"]["prepared"] == doc["summary"]["packages"] > 0
    assert differences(snapshot(tree), prepared) == []


FUNCTIONS = [f.name for f in REGISTRY]  # every function, the ones added later too


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_full_stdout_in_file_mode_is_an_error(tmp_path: Path, name: str) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [str(BIN / f"krmfn-{name}"), str(tmp_path)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            check=False,
        )
    no_traceback(done.stderr)
    assert done.returncode == 1
    assert "cannot write the output: No space left on device" in done.stderr


def test_a_create_killed_at_any_rename_is_finished_by_the_rerun(tmp_path: Path) -> None:
    template = EXAMPLE / "catalog" / "templates" / "upf"
    args = ("deployment", "create", template, "--site", "lab/1")
    clean = krmfn(*args, tmp_path / "clean" / "made")
    assert clean.returncode == 0, clean.stderr
    new = snapshot(tmp_path / "clean" / "made")
    done = subprocess.run(
        [
            STRACE or "strace",
            "-f",
            "-qq",
            "-e",
            f"trace={RENAMES}",
            "-o",
            "/dev/stdout",
            str(BIN / "krmfn"),
            *map(str, args),
            str(tmp_path / "count" / "made"),
        ],
        capture_output=True,
        text=True,
        env=env(),
        check=False,
    )
    total = sum(1 for line in done.stdout.splitlines() if "rename" in line)
    assert total > 2
    for number in range(1, total + 1) if FULL else sample(total, 3):
        out = tmp_path / f"in-{number}" / "made"
        run = strace(["-e", f"inject={RENAMES}:signal=SIGKILL:when={number}"], *args, out)
        no_traceback(run.stdout, run.stderr)
        again = krmfn(*args, out)
        assert again.returncode == 0, (number, again.stderr)
        assert differences(snapshot(out), new) == [], number
        assert [p.name for p in out.parent.iterdir()] == ["made"]


def test_create_syncs_each_folder_it_makes_and_the_one_above(tmp_path: Path) -> None:
    template = EXAMPLE / "catalog" / "templates" / "upf"
    out = tmp_path / "a" / "b" / "made"
    assert STRACE is not None
    done = subprocess.run(
        [
            STRACE,
            "-f",
            "-qq",
            "-y",
            "-e",
            "trace=fsync",
            "-o",
            "/dev/stdout",
            str(BIN / "krmfn"),
            "deployment",
            "create",
            str(template),
            "--site",
            "lab/1",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env(),
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if "<" in line]
    synced = {line.split("<", 1)[1].split(">", 1)[0] for line in lines}
    for folder in (tmp_path, tmp_path / "a", tmp_path / "a" / "b", out):
        assert str(folder) in synced, (folder, sorted(synced))


def test_a_pool_that_cannot_start_is_a_message_not_a_hang(tmp_path: Path) -> None:
    """Two packages in the first pass, so the pool starts before any plugin: its first fork
    (the run's first ``clone``) is refused."""
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    twin = copy_tree(tree / "oran-cu", tree / "oran-du")
    kptfile = twin / "Kptfile"
    kptfile.write_text(kptfile.read_text().replace("name: oran-cu", "name: oran-du", 1))
    old = snapshot(tree)
    run = strace(
        ["-e", "inject=clone:error=EAGAIN:when=1"],
        "prepare-all",
        "-q",
        "-j",
        "2",
        tree,
        timeout=120,
    )
    no_traceback(run.stdout, run.stderr)
    assert run.returncode == 1
    assert "cannot start the worker processes" in run.stderr, run.stderr
    assert snapshot(tree) == old


# --- 4 one writer per tree: nested trees, readers ------------------------------------------------

HOLD = (
    "import fcntl, os, sys, time\n"
    "for spec in sys.argv[1:]:\n"
    "    mode, path = spec.split('=', 1)\n"
    "    fd = os.open(path, os.O_RDONLY)\n"
    "    fcntl.flock(fd, fcntl.LOCK_EX if mode == 'ex' else fcntl.LOCK_SH)\n"
    "print('held', flush=True)\n"
    "time.sleep(120)\n"
)


def _held(*specs: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen(["python3", "-c", HOLD, *specs], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_locks_of_nested_trees_exclude_writers_and_share_readers(
    tmp_path: Path, prepared: dict[str, bytes]
) -> None:
    """The locks another command holds, taken as krmlib.packages.tree_lock takes them: a reader of ROOT
    (shared), a writer of the tree enclosing ROOT (exclusive above it), a writer of a tree
    inside ROOT (exclusive below it, shared on ROOT). prepare-all --no-wait refuses to write
    under each; --check --no-wait reads beside a reader, never beside the writer of a tree
    holding ROOT (a writer of a tree inside ROOT does not stop it: docs/durability.md, "Not
    covered")."""
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    old = snapshot(tree)
    inner = tree / "oran-cu"
    cases: dict[str, tuple[list[str], bool | None]] = {  # locks -> may --check read beside
        "a reader of ROOT": ([f"sh={tree}"], True),
        "a writer of the tree above": ([f"ex={tmp_path}"], False),
        "a writer of a tree inside": ([f"sh={tree}", f"ex={inner}"], None),
    }
    for case, (specs, check_reads) in cases.items():
        holder = _held(*specs)
        try:
            write = krmfn("prepare-all", "-q", "--no-wait", tree)
            assert write.returncode == 1, (case, write.stderr)
            assert "another krmfn command is writing" in write.stderr, (case, write.stderr)
            assert snapshot(tree) == old, case
            if check_reads is not None:
                check = krmfn("prepare-all", "--check", "-q", "--no-wait", tree)
                refused = "another krmfn command is writing" in check.stderr
                assert refused is not check_reads, (case, check.stderr)
        finally:
            holder.kill()
            holder.wait()
    assert krmfn("prepare-all", "-q", "--no-wait", tree).returncode == 0
    assert differences(snapshot(tree), prepared) == []


def test_a_run_wide_failure_is_one_line_and_a_document(tmp_path: Path) -> None:
    """A failure of the whole run (here the lock another command holds, with --no-wait): one
    line on stderr, exit 1, and with -o json a document saying so (no package, no summary)."""
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    holder = _held(f"ex={tree}")
    try:
        done = krmfn("prepare-all", "--no-wait", "-o", "json", tree)
    finally:
        holder.kill()
        holder.wait()
    no_traceback(done.stdout, done.stderr)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "another krmfn command is writing" in done.stderr
    doc = json.loads(done.stdout)
    assert doc["packages"] == [] and doc["summary"] is None
    assert "another krmfn command is writing" in doc["error"]


def test_a_partial_copy_an_older_create_left_is_made_again(tmp_path: Path) -> None:
    """An older version's ``create`` copied the template file by file: killed mid-copy, it left
    some of the template's files and nothing else. The rerun makes the package whole; a folder
    holding anything else is someone's work, refused."""
    template = EXAMPLE / "catalog" / "templates" / "upf"
    args = ("deployment", "create", template, "--site", "lab/1")
    clean = krmfn(*args, tmp_path / "clean" / "made")  # the folder names the package
    assert clean.returncode == 0, clean.stderr
    new = snapshot(tmp_path / "clean" / "made")
    partial = tmp_path / "partial" / "made"
    partial.mkdir(parents=True)
    kept = sorted(p for p in template.iterdir() if p.is_file())[:1]
    assert kept
    for path in kept:
        (partial / path.name).write_bytes(path.read_bytes())
    again = krmfn(*args, partial)
    no_traceback(again.stdout, again.stderr)
    assert again.returncode == 0, again.stderr
    assert differences(snapshot(partial), new) == []
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.yaml").write_text("mine: true\n")
    refused = krmfn(*args, theirs)
    no_traceback(refused.stdout, refused.stderr)
    assert refused.returncode == 1 and "exists" in refused.stderr, refused.stderr
    assert snapshot(theirs) == {"notes.yaml": b"mine: true\n"}
