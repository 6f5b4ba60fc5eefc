"""Signals and orphans (issue 36.1): a signal to the main ``prepare-all`` process only (as a CI
runner, ``kill`` or the OOM killer sends it, not to its group) never leaves a process or a lock
behind, and SIGINT, SIGTERM and SIGHUP stop the run with one line and exit 130, 143 and 129.

The run is held where it hurts most: a plugin that sleeps, run by a pool worker (``-j 2``, the
example's children) or by prepare-all itself (``-j 1``), as a warm fork (the example's plugins
are Python scripts) or as a program (``KRMFN_PLUGIN_FORK=0``). Every process below prepare-all
is noted before the signal; after it, each must end, and a later ``prepare-all --no-wait`` and
``--check --no-wait`` must take the tree's lock at once and converge to a clean run's tree.

The default runs a sample; ``KRMFN_FAULTS=full`` (``make test-faults``) every combination.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.durability_support import (
    BIN,
    EXAMPLE,
    FULL,
    copy_tree,
    differences,
    env,
    krmfn,
    no_traceback,
    snapshot,
)

MARK = 'if __name__ == "__main__":'


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    tree = copy_tree(EXAMPLE, tmp_path_factory.mktemp("clean") / "t")
    done = krmfn("prepare-all", "-q", tree)
    assert done.returncode == 0, done.stderr
    return snapshot(tree)


def _hold_in_plugin(tree: Path, marker: Path) -> str:
    """The Namespace plugin writes ``marker`` and sleeps; returns its original text."""
    plugin = tree / "plugins" / "namespace.py"
    original = plugin.read_text()
    plugin.write_text(
        original.replace(
            MARK,
            f"{MARK}\n    import os, time\n"
            f"    open({str(marker)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
            "    time.sleep(600)\n",
        )
    )
    return original


def _children() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                ppid = int(handle.read().rpartition(b")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found.setdefault(ppid, []).append(int(entry))
    return found


def descendants(pid: int) -> set[int]:
    tree = _children()
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        return False


def _wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.05)
    return False


CASES = [  # (signal, jobs, plugin forked, to the group)
    ("SIGKILL", "2", True, False),
    ("SIGTERM", "2", True, False),
    ("SIGHUP", "2", False, False),
    ("SIGINT", "1", True, False),
    ("SIGINT", "2", True, True),  # Ctrl-C in a terminal: the whole foreground group
]
FULL_CASES = [
    (name, jobs, forked, False)
    for name in ("SIGKILL", "SIGTERM", "SIGHUP", "SIGINT")
    for jobs in ("1", "2")
    for forked in (True, False)
]
EXIT = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129, "SIGKILL": -9}


@pytest.mark.parametrize(("name", "jobs", "forked", "group"), FULL_CASES if FULL else CASES)
def test_a_signal_to_prepare_all_leaves_no_process_and_no_lock(
    tmp_path: Path, prepared: dict[str, bytes], name: str, jobs: str, forked: bool, group: bool
) -> None:
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    marker = tmp_path / "plugin-started"
    original = _hold_in_plugin(tree, marker)
    extra = {} if forked else {"KRMFN_PLUGIN_FORK": "0"}
    run = subprocess.Popen(
        [str(BIN / "krmfn"), "prepare-all", "-q", "-j", jobs, "-o", "json", str(tree)],
        env={**env(), **extra},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: a signal to the main process only, or to all
    )
    seen: set[int] = set()
    try:
        assert _wait_for(marker.exists, 240), "the plugin never started"
        seen = descendants(run.pid)
        assert seen, "no process below prepare-all"
        number = getattr(signal, name)
        if group:
            os.killpg(run.pid, number)
        else:
            os.kill(run.pid, number)
        out, err = run.communicate(timeout=120)
        no_traceback(out, err)
        assert run.returncode == EXIT[name], err
        if name != "SIGKILL":
            assert err.count("\n") == 1 and f"stopped by {name}" in err, err
        left = [p for p in seen if _wait_for(lambda p=p: not alive(p), 20) is False]
        assert not left, f"left running after {name}: {left}"
    finally:
        for pid in [run.pid, *seen]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        run.wait()
    (tree / "plugins" / "namespace.py").write_text(original)
    check = krmfn("prepare-all", "--check", "--no-wait", "-q", tree, timeout=300)
    assert "another krmfn command" not in check.stderr, check.stderr  # no lock left behind
    again = krmfn("prepare-all", "-q", "--no-wait", tree, timeout=300)
    assert again.returncode == 0, again.stderr
    assert differences(snapshot(tree), prepared) == []
    check = krmfn("prepare-all", "--check", "--no-wait", "-q", tree, timeout=300)
    assert check.returncode == 0, check.stderr


def test_a_signal_ignored_at_the_start_stays_ignored_in_the_workers(
    tmp_path: Path, prepared: dict[str, bytes]
) -> None:
    """``nohup krmfn prepare-all`` and the terminal closed: SIGHUP reaches the whole group. The
    command started with it ignored, so its pool workers ignore it too: the run finishes."""
    tree = copy_tree(EXAMPLE, tmp_path / "t")
    marker = tmp_path / "plugin-started"
    plugin = tree / "plugins" / "namespace.py"
    original = plugin.read_text()
    plugin.write_text(  # the first call writes the marker and waits for the SIGHUP to be sent
        original.replace(
            MARK,
            f"{MARK}\n    import os, time\n"
            f"    if not os.path.exists({str(marker)!r}):\n"
            f"        open({str(marker)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
            "        time.sleep(3)\n",
        )
    )
    run = subprocess.Popen(
        ["bash", "-c", 'trap "" HUP; exec "$0" prepare-all -q -j 2 "$1"', BIN / "krmfn", tree],
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert _wait_for(marker.exists, 240), "the plugin never started"
        assert descendants(run.pid), "no pool worker"
        os.killpg(run.pid, signal.SIGHUP)
        out, err = run.communicate(timeout=300)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    no_traceback(out, err)
    assert run.returncode == 0, err
    plugin.write_text(original)
    assert differences(snapshot(tree), prepared) == []


@pytest.mark.parametrize("forked", [True, False])
def test_a_plugin_holds_no_descriptor_of_prepare_all(tmp_path: Path, forked: bool) -> None:
    """A plugin, run by a pool worker (``-j 2``) and by prepare-all itself (``-j 1``), forked or
    started as a program, has its three pipes open and nothing else of prepare-all's: not the
    tree's lock, not the pool's pipes, not a file (a copy would keep the lock after a kill)."""
    import json

    extra = {} if forked else {"KRMFN_PLUGIN_FORK": "0"}
    for jobs in ("1", "2"):
        tree = copy_tree(EXAMPLE, tmp_path / f"t{jobs}")
        seen = tmp_path / f"fds-{jobs}"
        plugin = tree / "plugins" / "namespace.py"
        plugin.write_text(
            plugin.read_text().replace(
                MARK,
                f"{MARK}\n    import json, os\n"
                "    fds = {}\n"
                "    for fd in os.listdir('/proc/self/fd'):\n"
                "        try:\n"
                "            fds[fd] = os.readlink(f'/proc/self/fd/{fd}')\n"
                "        except OSError:\n"
                "            pass  # the listing's own descriptor, closed\n"
                f"    open({str(seen)!r}, 'a').write(json.dumps(fds) + '\\n')\n",
            )
        )
        done = subprocess.run(
            [str(BIN / "krmfn"), "prepare-all", "-q", "-j", jobs, str(tree)],
            capture_output=True,
            text=True,
            env={**env(), **extra},
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        runs = [json.loads(line) for line in seen.read_text().splitlines()]
        assert runs, "the plugin never ran"
        for fds in runs:
            assert sorted(fds) == ["0", "1", "2"], (jobs, fds)
            assert all(target.startswith("pipe:") for target in fds.values()), (jobs, fds)
