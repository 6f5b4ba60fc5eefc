"""Faults injected into real runs with strace (issue 23): a kill at the N-th rename, write or
fsync, an I/O error (ENOSPC, EIO, EROFS) on the writer's calls, two runs at once. After each,
every file is its old or its new content, and running the command again converges to the tree a
clean run makes, byte for byte.

The default samples a few kill points (about 36 s of CPU); ``KRMFN_FAULTS=full`` sweeps every
rename and fsync and every fifth write of prepare-all on examples/oran-cu, 60 renames spread over
the 20-site run, every rename of create (see docs/durability.md for the times).
strace comes from the project's setup (``make strace``, run by ``make test``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.durability_support import (
    BIN,
    EXAMPLE,
    FULL,
    ROOT,
    STRACE,
    Snapshot,
    copy_tree,
    count_calls,
    differences,
    env,
    krmfn,
    no_traceback,
    old_or_new,
    sample,
    snapshot,
    traced,
)

pytestmark = [
    pytest.mark.kpt,
    pytest.mark.skipif(STRACE is None, reason="strace is not installed (make strace)"),
]


class Clean:
    """A tree before and after a clean run of one command."""

    def __init__(self, source: Path, old: Snapshot, new: Snapshot) -> None:
        self.source = source
        self.old = old
        self.new = new


def _clean(tmp: Path, source: Path, *args: str) -> Clean:
    tree = copy_tree(source, tmp / "clean")
    done = krmfn(*args, tree)
    assert done.returncode == 0, done.stderr
    return Clean(source, snapshot(source), snapshot(tree))


@pytest.fixture(scope="module")
def oran(tmp_path_factory: pytest.TempPathFactory) -> Clean:
    return _clean(tmp_path_factory.mktemp("oran"), EXAMPLE, "prepare-all", "-q")


@pytest.fixture(scope="module")
def sites20(tmp_path_factory: pytest.TempPathFactory) -> Clean:
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench import prepare_all as bench

    base = tmp_path_factory.mktemp("sites20")
    source = bench.make_tree(base / "source", 20)
    return _clean(base, source, "prepare-all", "-q")


PREPARE = ("prepare-all", "-q", "-j", "1")
RENAMES = "rename,renameat,renameat2"
KILLS = {  # syscall -> kill points of the default run (the full run sweeps)
    RENAMES: 3,
    "write": 2,
    "fsync": 2,
}


def _points(syscall: str, clean: Clean, tmp: Path, count: int, cap: int = 0) -> list[int]:
    """The kill points: ``count`` spread over the calls a clean run makes; in the full sweep
    every call (every fifth write), or ``cap`` spread over them when given."""
    tree = copy_tree(clean.source, tmp / "count")
    total = count_calls(syscall, *PREPARE, tree)
    assert total > 0
    if FULL and cap:
        return sample(total, cap)
    if FULL:
        step = 5 if syscall == "write" else 1
        return list(range(1, total + 1, step))
    return sample(total, count)


def _killed_then_rerun(clean: Clean, tree: Path, inject: str, args: tuple[str, ...]) -> None:
    run = traced(inject, *args, tree)
    no_traceback(run.stdout, run.stderr)
    bad = old_or_new(snapshot(tree), clean.old, clean.new)
    assert not bad, f"{inject}: neither old nor new: {bad}"
    again = krmfn("prepare-all", "-q", tree)
    assert again.returncode == 0, again.stdout + again.stderr
    assert differences(snapshot(tree), clean.new) == [], inject


@pytest.mark.parametrize("syscall", list(KILLS))
def test_a_kill_at_any_point_of_prepare_all_leaves_old_or_new_and_a_rerun_converges(
    syscall: str, oran: Clean, tmp_path: Path
) -> None:
    for number in _points(syscall, oran, tmp_path, KILLS[syscall]):
        tree = copy_tree(oran.source, tmp_path / f"t{number}")
        _killed_then_rerun(oran, tree, f"{syscall}:signal=SIGKILL:when={number}", PREPARE)


def test_a_kill_during_prepare_all_on_20_sites(sites20: Clean, tmp_path: Path) -> None:
    for number in _points(RENAMES, sites20, tmp_path, 2, cap=60):
        tree = copy_tree(sites20.source, tmp_path / f"t{number}")
        _killed_then_rerun(sites20, tree, f"{RENAMES}:signal=SIGKILL:when={number}", PREPARE)


ERRORS = ["ENOSPC", "EIO", "EROFS"]


@pytest.mark.parametrize("error", ERRORS)
def test_an_io_error_on_write_is_a_message_and_nothing_half_written(
    error: str, oran: Clean, tmp_path: Path
) -> None:
    calls = [("write", 3), (RENAMES, 5), ("fsync", 2)]
    for syscall, number in calls if FULL else calls[ERRORS.index(error) :][:1]:
        tree = copy_tree(oran.source, tmp_path / f"t-{syscall[:5]}-{number}")
        run = traced(f"{syscall}:error={error}:when={number}", *PREPARE, tree)
        no_traceback(run.stdout, run.stderr)
        assert run.returncode == 1, run.stdout + run.stderr
        assert "cannot" in run.stdout + run.stderr
        assert not old_or_new(snapshot(tree), oran.old, oran.new)
        again = krmfn("prepare-all", "-q", tree)
        assert again.returncode == 0
        assert differences(snapshot(tree), oran.new) == []
    if error == "ENOSPC":  # -o json carries the error of the package
        tree = copy_tree(oran.source, tmp_path / "json")
        run = traced(f"{RENAMES}:error=ENOSPC:when=1", *PREPARE, "-o", "json", tree)
        assert "No space left on device" in run.stdout


def _two_packages(tmp: Path) -> tuple[Path, Path, Path]:
    tree = copy_tree(EXAMPLE, tmp / "tree")
    done = krmfn("prepare-all", "-q", tree)
    assert done.returncode == 0
    return tree, tree / "catalog" / "templates" / "upf", tree / "oran-cu" / "upf-lab-1"


def test_a_kill_during_deployment_create_leaves_nothing_or_the_whole_package(
    tmp_path: Path,
) -> None:
    tree, template, _child = _two_packages(tmp_path)
    args = ("deployment", "create", template, "--site", "lab/1")
    (tmp_path / "clean").mkdir()
    clean = krmfn(*args, tmp_path / "clean" / "made")
    assert clean.returncode == 0, clean.stderr
    new = snapshot(tmp_path / "clean" / "made")
    (tmp_path / "count").mkdir()
    total = count_calls(RENAMES, *args, tmp_path / "count" / "made")
    assert total > 1
    for number in range(1, total + 1) if FULL else sample(total, 3):
        out = tree / f"in-{number}" / "made"
        out.parent.mkdir()
        run = traced(f"{RENAMES}:signal=SIGKILL:when={number}", *args, out)
        no_traceback(run.stdout, run.stderr)
        visible = snapshot(out) if out.exists() else {}
        assert not old_or_new(visible, {}, new)
        again = krmfn(*args, out)
        no_traceback(again.stdout, again.stderr)
        if again.returncode != 0:  # killed after the package was put in place: it is whole
            assert "exists" in again.stderr
        assert differences(snapshot(out), new) == [], number
        assert [p.name for p in out.parent.iterdir()] == ["made"]  # no leftover


def test_a_kill_during_approve_leaves_old_or_new(tmp_path: Path) -> None:
    tree, _template, _child = _two_packages(tmp_path)
    done = krmfn("deployment", "create", tree / "catalog/templates/upf", tmp_path / "p")
    assert done.returncode == 0
    package = tmp_path / "p"
    text = (package / "deployment.yaml").read_text()
    (package / "deployment.yaml").write_text(
        text.replace(
            "metadata:\n", 'metadata:\n  annotations:\n    nephio.org/prepared: "true"\n', 1
        )
    )
    old = snapshot(package)
    probe = copy_tree(package, tmp_path / "probe")
    assert krmfn("deployment", "approve", probe).returncode == 0
    new = snapshot(probe)
    assert differences(old, new) == ["deployment.yaml"]
    for syscall in ("write", RENAMES, "fsync"):
        for number in (1, 2):
            target = copy_tree(package, tmp_path / f"a-{syscall[:5]}-{number}")
            run = traced(f"{syscall}:signal=SIGKILL:when={number}", "deployment", "approve", target)
            no_traceback(run.stdout, run.stderr)
            assert not old_or_new(snapshot(target), old, new)
            assert krmfn("deployment", "approve", target).returncode == 0
            assert differences(snapshot(target), new) == []
    target = copy_tree(package, tmp_path / "enospc")
    run = traced(f"{RENAMES}:error=ENOSPC", "deployment", "approve", target)
    no_traceback(run.stdout, run.stderr)
    assert run.returncode == 1 and "No space left on device" in run.stderr
    assert snapshot(target) == old or not old_or_new(snapshot(target), old, new)


def test_two_runs_at_once_never_both_write(oran: Clean, tmp_path: Path) -> None:
    for attempt in range(5):
        tree = copy_tree(oran.source, tmp_path / f"t{attempt}")
        command = [str(BIN / "krmfn"), "prepare-all", "-q", str(tree)]
        first = subprocess.Popen(command, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        second = subprocess.Popen(
            command, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        outs = [p.communicate(timeout=300) for p in (first, second)]
        assert [first.returncode, second.returncode] == [0, 0], outs
        for out, err in outs:
            no_traceback(out.decode(), err.decode())
        assert differences(snapshot(tree), oran.new) == []


def test_no_wait_refuses_while_another_run_writes(oran: Clean, tmp_path: Path) -> None:
    tree = copy_tree(oran.source, tmp_path / "t")
    holder = subprocess.Popen(
        [
            "python3",
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)",
            str(tree),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        refused = krmfn("prepare-all", "-q", "--no-wait", tree)
        assert refused.returncode == 1
        assert "another krmfn command is writing" in refused.stderr
        assert "--no-wait" in refused.stderr
        assert snapshot(tree) == oran.old
        waiting = subprocess.Popen(
            [str(BIN / "krmfn"), "prepare-all", "-q", str(tree)],
            env=env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        import time

        time.sleep(2)
        assert waiting.poll() is None  # it waits
        holder.kill()
        _out, err = waiting.communicate(timeout=300)
        assert waiting.returncode == 0, err
        assert "waiting for it" in err
    finally:
        holder.kill()
    assert differences(snapshot(tree), oran.new) == []


def test_a_catalog_template_that_cannot_be_read_is_an_error(oran: Clean, tmp_path: Path) -> None:
    tree = copy_tree(oran.source, tmp_path / "t")
    template = tree / "catalog" / "templates" / "smf" / "smf.yaml"
    assert template.is_file()
    assert STRACE is not None
    run = subprocess.run(
        [
            STRACE,
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-P",
            str(template),
            "-e",
            "inject=openat:error=EIO",
            str(BIN / "krmfn"),
            *PREPARE,
            str(tree),
        ],
        capture_output=True,
        text=True,
        env=env(),
        timeout=300,
        check=False,
    )
    no_traceback(run.stdout, run.stderr)
    assert run.returncode == 1
    assert "Input/output error" in run.stdout
    assert "no catalog template matches" not in run.stdout + run.stderr


def test_enospc_on_a_real_small_file_system(oran: Clean, tmp_path: Path) -> None:
    mount = tmp_path / "small"
    mount.mkdir()
    size = (len(oran.old) + 12) * 4096  # tmpfs counts pages: the tree, and a little room
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.strip()}")
    try:
        tree = copy_tree(oran.source, mount / "t")
        old = snapshot(tree)
        run = krmfn("prepare-all", "-q", tree)
        no_traceback(run.stdout, run.stderr)
        assert run.returncode == 1
        assert "No space left on device" in run.stdout + run.stderr
        assert not old_or_new(snapshot(tree), old, oran.new)
        subprocess.run(["mount", "-o", f"remount,size={size * 4}", str(mount)], check=True)
        again = krmfn("prepare-all", "-q", tree)
        assert again.returncode == 0, again.stdout + again.stderr
        assert differences(snapshot(tree), oran.new) == []
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_package_is_marked_prepared_after_everything_it_points_to(
    oran: Clean, tmp_path: Path
) -> None:
    """The order of a clean run's renames (docs/durability.md 2): a package's Deployment file
    (the one that says "prepared") is the last file put in place in its folder, and the root
    package's comes after every child folder it points to is in place whole."""
    import re

    tree = copy_tree(oran.source, tmp_path / "t")
    assert STRACE is not None
    trace = [STRACE, "-f", "-qq", "-e", f"trace={RENAMES}", "-e", "signal=none"]
    done = subprocess.run(
        [*trace, "-o", "/dev/stdout", str(BIN / "krmfn"), *PREPARE, str(tree)],
        capture_output=True,
        text=True,
        env=env(),
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    targets = []
    for line in done.stdout.splitlines():
        quoted = re.findall(r'"([^"]*)"', line)
        if "resumed" not in line and quoted and line.rstrip().endswith("= 0"):
            targets.append(Path(quoted[-1]).resolve().relative_to(tree.resolve()).as_posix())
    root = "oran-cu/deployment.yaml"
    assert root in targets, targets
    children = [  # the child folders put in place whole
        t for t in targets if re.fullmatch(r"oran-cu/[^/]+", t) and (tree / t).is_dir()
    ]
    assert len(children) == 6, targets
    assert max(targets.index(c) for c in children) < targets.index(root)
    packages = {t.rpartition("/")[0] for t in targets if t.endswith("/deployment.yaml")}
    assert len(packages) == 7, packages
    for package in packages:
        own = [t for t in targets if t.rpartition("/")[0] == package]
        assert own[-1] == f"{package}/deployment.yaml", own
