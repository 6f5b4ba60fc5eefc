"""``krmlib.packages.run_program``: the one way a function runs a program (issue 24.2, 24.5).

Its first act is krmlib's gate: a big input whose whole-input check runs apart (a forked child)
and refuses the input starts no program, with no ``verify()`` call by the caller. Then the
limits (timeout, output cap, start failures), the fork only in a process with one thread, and
on Python 3.12+ no fork of a multi-threaded process anywhere the preparer forks (the
interpreter's ``DeprecationWarning``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from krmlib import KrmError
from krmlib._io.programs import MAX_OUTPUT, STDERR_KEPT
from krmlib.packages import TooMuchOutput, run_program

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "oran-cu"
HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
DUPLICATE = (
    "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n  data:\n    a: b\n    a: c\n"
)


def big_input(broken: str) -> str:
    """2000 ConfigMaps (above the size whose check runs apart) and ``broken`` last."""
    items = "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n  data:\n    k: v{i}\n"
        for i in range(2000)
    )
    return HEAD + items + broken


def script(body: str, stdin: str = "", python: str = sys.executable, *options: str) -> str:
    """Run ``body`` in a fresh interpreter (one thread, the check forced apart); its stdout."""
    done = subprocess.run(
        [python, *options, "-c", textwrap.dedent(body)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**os.environ, "KRMFN_BACKGROUND_CHECK": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert "DeprecationWarning" not in done.stderr, done.stderr
    return done.stdout


GATED = """
    import sys
    from pathlib import Path
    from krmlib import ResourceList; from krmlib.packages import run_program
    from krmlib._io.resourcelist import CheckFailed

    folder = Path(sys.argv[1])
    rl = ResourceList.parse(sys.stdin.read(), background=True)
    assert rl._pending is not None, "the check did not run apart"

    def touch(name):
        def child():
            (folder / name).touch()
            return 0
        return child

    for name, child in (("started", None), ("forked", touch("forked"))):
        argv = ["sh", "-c", f"touch {folder / name}"]
        try:
            run_program(argv, b"", timeout=30, child=child)
        except CheckFailed as exc:
            print(name, "refused:", exc.results[0].message)
        else:
            print(name, "ran")
"""


@pytest.mark.parametrize("broken", ["", DUPLICATE])
def test_a_refused_input_starts_no_program(tmp_path: Path, broken: str) -> None:
    """No verify() call: run_program alone waits for the check, and a refusal starts nothing
    (neither a process nor a fork); a valid input runs both (the test could fail)."""
    out = script(GATED.replace("sys.argv[1]", repr(str(tmp_path))), big_input(broken))
    if broken:
        message = "refused: items[2000] (Secret s): duplicate key 'a' (line 12010"
        lines = out.splitlines()
        assert [line.partition(" ")[0] for line in lines] == ["started", "forked"]
        assert all(line.partition(" ")[2].startswith(message) for line in lines), out
        assert not (tmp_path / "started").exists() and not (tmp_path / "forked").exists()
    else:
        assert out.splitlines() == ["started ran", "forked ran"]
        assert (tmp_path / "started").exists() and (tmp_path / "forked").exists()


def test_a_refusal_is_a_krm_error_with_the_checks_results() -> None:
    out = script(
        """
        import sys
        from krmlib import KrmError, ResourceList; from krmlib.packages import run_program
        rl = ResourceList.parse(sys.stdin.read(), background=True)
        try:
            run_program(["true"], b"", timeout=30)
        except KrmError as exc:
            print(type(exc).__name__, len(exc.results), exc.results[0].severity)
        """,
        big_input(DUPLICATE),
    )
    assert out.split() == ["CheckFailed", "1", "error"]


def test_output_exit_code_and_the_end_of_stderr() -> None:
    data = b"x" * (1 << 20)
    body = f"cat; head -c {3 * STDERR_KEPT} /dev/zero | tr '\\0' e >&2; echo end >&2; exit 3"
    done = run_program(["sh", "-c", body], data, timeout=60)
    assert done.returncode == 3 and done.stdout == data
    assert len(done.stderr) == STDERR_KEPT and done.stderr.endswith(b"eeend\n")


def test_a_timeout_kills_the_group(tmp_path: Path) -> None:
    marker = tmp_path / "late"
    with pytest.raises(subprocess.TimeoutExpired):
        run_program(["sh", "-c", f"(sleep 1; touch {marker}) & sleep 30"], b"", timeout=0.5)
    time.sleep(1.5)
    assert not marker.exists()  # the program's own child was killed with it


def test_too_much_output_is_stopped() -> None:
    with pytest.raises(TooMuchOutput) as caught:
        run_program(["sh", "-c", "cat /dev/zero"], b"", timeout=60)
    assert caught.value.limit == MAX_OUTPUT


def test_a_program_that_cannot_start_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        run_program([str(tmp_path / "missing")], b"", timeout=10)
    with pytest.raises(FileNotFoundError):
        run_program(["true"], b"", timeout=10, cwd=str(tmp_path / "missing"))
    assert not issubclass(TooMuchOutput, KrmError)


def test_a_threaded_process_starts_the_program_instead_of_forking(tmp_path: Path) -> None:
    out = script(
        """
        import _thread, time
        from krmlib.packages import run_program
        def forked():
            print("forked", flush=True)
            return 0
        argv = ["echo", "started"]
        print(run_program(argv, b"", timeout=30, child=forked).stdout.decode().strip())
        _thread.start_new_thread(time.sleep, (3,))  # a thread threading does not count
        print(run_program(argv, b"", timeout=30, child=forked).stdout.decode().strip())
        """,
        "",
        sys.executable,
        "-W",
        "always::DeprecationWarning",
    )
    assert out.split() == ["forked", "started"]


# --- Python 3.12+: no fork of a multi-threaded process ---------------------------------------


def python_312() -> str | None:
    """An interpreter of Python 3.12 or later with the project installed: this one, else the
    venv ``make test-pythons`` builds (.venv-3.12); None when there is none."""
    if sys.version_info >= (3, 12):
        return sys.executable
    candidate = ROOT / ".venv-3.12" / "bin" / "python"
    return str(candidate) if candidate.exists() else None


FORKS = """
    import _thread, shutil, sys, time
    from pathlib import Path
    from krmfn.preparer.executors import run_in_group
    from krmfn.preparer.prepare_all import prepare_all
    from krmlib import ResourceList

    work = Path(sys.argv[1])
    plugin = work / "plugin.py"
    plugin.write_text("import sys\\nsys.stdout.write(sys.stdin.read())\\n")
    big = (work / "big.yaml").read_text()

    def forking_paths(label):
        rl = ResourceList.parse(big, background=True)  # the input check in a child
        rl.verify()
        done = run_in_group([sys.executable, str(plugin)], b"echo", 60, None)  # the warm fork
        assert done.stdout == b"echo", done
        tree = work / label
        shutil.copytree(sys.argv[2], tree)
        outcomes, summary = prepare_all(tree, None, None, jobs=2)  # workers, and their forks
        print(label, summary.packages, summary.failed, rl._pending is not None)

    forking_paths("one-thread")
    _thread.start_new_thread(time.sleep, (60,))  # a thread threading does not count (xdist's)
    forking_paths("threaded")
"""


def test_the_forking_paths_fork_no_threaded_process_on_python_312(tmp_path: Path) -> None:
    """With ``-W always::DeprecationWarning`` (``error`` would hide it: the interpreter
    swallows the exception at the fork), Python 3.12+ warns at each fork of a process with
    threads; here every forking path runs in a process with one thread and again with a second
    thread: the check, the warm plugin and prepare-all's workers fork only in the first."""
    python = python_312()
    if python is None:
        pytest.skip("no Python 3.12 venv (make test-pythons PYTHONS=3.12 builds .venv-3.12)")
    (tmp_path / "big.yaml").write_text(big_input(""))
    body = FORKS.replace("sys.argv[1]", repr(str(tmp_path)))
    body = body.replace("sys.argv[2]", repr(str(EXAMPLE)))
    out = script(body, "", python, "-W", "always::DeprecationWarning")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == ["one-thread", "threaded"], out
    one, threaded = (line.split()[1:] for line in lines)
    assert one[:2] == threaded[:2] and int(one[0]) > 1 and one[1] == "0", out
    assert (one[2], threaded[2]) == ("True", "False")  # the check ran apart only with one thread


# --- no other way ------------------------------------------------------------------------------

STARTS = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput"},
    "os": {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp"},
}


def test_no_function_starts_a_program_but_through_krmlib() -> None:
    """``krmlib.packages.run_program`` is the one way (and its gate the one check): no module of krmfn
    calls ``subprocess`` or ``os`` to start or fork a process (prepare-all's worker pool forks
    itself, not a plugin)."""
    import ast

    found = []
    for path in sorted((ROOT / "krmfn").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Attribute) or not isinstance(node.value, ast.Name):
                continue
            name = node.attr
            if name in STARTS.get(node.value.id, ()) or (
                node.value.id == "os" and name.startswith(("exec", "spawn"))
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}.{name}")
    assert found == []


def test_a_timeout_kills_a_child_that_left_the_session(tmp_path: Path) -> None:
    """Issue 35: a plugin's child started with ``setsid`` (a session and group of its own)
    survived the timeout; the plugin's whole tree is killed now."""
    marker = tmp_path / "late"
    pids = tmp_path / "pids"
    body = f"setsid sh -c 'echo $$ > {pids}; sleep 1; touch {marker}' & sleep 30"
    with pytest.raises(subprocess.TimeoutExpired):
        run_program(["sh", "-c", body], b"", timeout=0.5)
    time.sleep(1.5)
    assert not marker.exists()
    assert not _alive(int(pids.read_text()))


def _alive(pid: int) -> bool:
    """A process that runs (a zombie waiting for init to reap it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] != b"Z"


def test_a_python_child_that_called_setsid_is_killed_too(tmp_path: Path) -> None:
    marker = tmp_path / "late"
    program = textwrap.dedent(
        f"""
        import os, time
        if os.fork() == 0:
            os.setsid()
            time.sleep(1)
            open({str(marker)!r}, "w").close()
            os._exit(0)
        time.sleep(30)
        """
    )
    with pytest.raises(subprocess.TimeoutExpired):
        run_program([sys.executable, "-c", program], b"", timeout=0.5)
    time.sleep(1.5)
    assert not marker.exists()
