"""Exec plugins that are Python scripts for the preparer's own interpreter run in a fork of the
warm process (krmfn/preparer/README.md, "exec plugins"): the same stdin/stdout/stderr, exit
status, timeout, working folder, environment and interpreter state as the fresh process the
command would start (``KRMFN_PLUGIN_FORK=0``), compared here on the same scripts; and
``krmfn prepare-all`` gives the same trees and reports either way."""

from __future__ import annotations

import base64
import builtins
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from krmfn.preparer.executors import run_in_group
from krmfn.preparer.python_fork import FORK_ENV, python_script, same_interpreter
from krmlib._io.programs import STDERR_KEPT

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "oran-cu"
SCENARIO = ROOT / "testdata" / "tko-scenario"
BIN = Path(sys.executable).parent
WARM = "'krmfn.preparer.python_fork' in sys.modules"  # True in the fork only


def write(path: Path, text: str, mode: int = 0o644) -> Path:
    path.write_text(textwrap.dedent(text))
    path.chmod(mode)
    return path


# The forked path needs a process with one thread (krmlib.packages.run_program starts the command as a
# process otherwise): a pytest-xdist worker has more, so the fork is taken in a fresh driver.
DRIVER = """
import base64, json, signal, sys
from pathlib import Path
from krmfn.preparer.executors import run_in_group
from krmfn.preparer.python_fork import python_script
from krmlib.packages import command_read_root, fork_safe
spec = json.loads(sys.argv[1])
data = sys.stdin.buffer.read()
taken = python_script(spec["argv"], spec["cwd"]) is not None and fork_safe()
if spec["handler"]:
    signal.signal(signal.SIGTERM, lambda number, frame: None)  # not the plugin's
try:
    with command_read_root(Path(spec["root"])):  # this process's context is not the plugin's
        done = run_in_group(spec["argv"], data, spec["timeout"], spec["cwd"])
except Exception as exc:
    answer = {"error": type(exc).__name__, "errno": getattr(exc, "errno", None),
              "strerror": getattr(exc, "strerror", None)}
else:
    answer = {"code": done.returncode, "out": base64.b64encode(done.stdout).decode(),
              "err": base64.b64encode(done.stderr).decode()}
print(json.dumps({**answer, "taken": taken}))
"""


def run_forked(
    argv: list[str],
    data: bytes = b"",
    cwd: Path | str | None = None,
    timeout: float = 60,
    root: Path | None = None,
    handler: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """``run_in_group`` in a fresh process with one thread, the fork checked to be taken; its
    exception (a timeout, an OSError) raised here."""
    folder = str(cwd) if cwd is not None else None
    spec = {
        "argv": argv,
        "cwd": folder,
        "timeout": timeout,
        "root": str(root or ROOT),
        "handler": handler,
    }
    env = {k: v for k, v in os.environ.items() if k != FORK_ENV}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(spec)],
        input=data,
        capture_output=True,
        env=env,
        timeout=timeout + 60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    answer = json.loads(done.stdout)
    assert answer["taken"], "the fork was not taken"
    if answer.get("error") == "TimeoutExpired":
        raise subprocess.TimeoutExpired(argv, timeout)
    if "error" in answer:
        raise getattr(builtins, answer["error"])(answer["errno"], answer["strerror"])
    out, err = (base64.b64decode(answer[k]) for k in ("out", "err"))
    return subprocess.CompletedProcess(argv, answer["code"], out, err)


def run_both(
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    data: bytes = b"",
    cwd: Path | None = None,
    **driver: object,
) -> tuple[subprocess.CompletedProcess[bytes], subprocess.CompletedProcess[bytes]]:
    """(forked, fresh): the same command through each path."""
    monkeypatch.delenv(FORK_ENV, raising=False)
    assert python_script(argv, str(cwd) if cwd is not None else None) is not None
    forked = run_forked(argv, data, cwd, **driver)  # type: ignore[arg-type]
    monkeypatch.setenv(FORK_ENV, "0")
    assert python_script(argv, str(cwd) if cwd is not None else None) is None
    fresh = run_in_group(argv, data, 60, str(cwd) if cwd is not None else None)
    monkeypatch.delenv(FORK_ENV)
    return forked, fresh


CONTRACT = f"""\
    import atexit, json, os, signal, sys
    import krmlib._io.package
    data = sys.stdin.read()
    atexit.register(lambda: sys.stderr.write("exit handler ran\\n"))
    print(json.dumps({{
        "argv": sys.argv,
        "name": __name__,
        "file": __file__,
        "package": __package__,
        "spec": repr(__spec__),
        "loader": type(__loader__).__name__,
        "main": sys.modules["__main__"].__dict__ is globals(),
        "path0": sys.path[0],
        "cwd": os.getcwd(),
        "env": os.environ.get("PLUGIN_VAR"),
        "group": os.getpgid(0) == os.getpid(),
        "session": os.getsid(0) == os.getpid(),
        "signals": [repr(signal.getsignal(s)) for s in
                    (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGHUP)],
        "streams": [(s.encoding, s.errors, s.line_buffering, s.name, s.mode)
                    for s in (sys.stdin, sys.stdout, sys.stderr)],
        "same": [sys.stdin is sys.__stdin__, sys.stdout is sys.__stdout__],
        "roots": [str(p) for p in krmlib._io.confine._COMMAND_ROOTS.get()],
        "input": data,
        "warm": {WARM},
    }}))
    sys.stderr.write("to stderr\\n")
"""


def test_a_script_sees_what_a_fresh_interpreter_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugins = tmp_path / "real"
    plugins.mkdir()
    write(plugins / "plugin.py", CONTRACT)
    (tmp_path / "link.py").symlink_to(plugins / "plugin.py")  # sys.path[0]: the real folder
    monkeypatch.setenv("PLUGIN_VAR", "from the environment")
    argv = [sys.executable, str(tmp_path / "link.py"), "one", "two words"]
    forked, fresh = run_both(
        monkeypatch, argv, "héllo\nworld".encode(), cwd=plugins, root=tmp_path, handler=True
    )
    assert forked.returncode == fresh.returncode == 0
    assert forked.stderr == fresh.stderr == b"to stderr\nexit handler ran\n"
    seen, expected = json.loads(forked.stdout), json.loads(fresh.stdout)
    assert (seen.pop("warm"), expected.pop("warm")) == (True, False)
    # runpy.run_path's differences (krmfn/preparer/README.md): no loader, package ""
    assert (seen.pop("loader"), expected.pop("loader")) == ("NoneType", "SourceFileLoader")
    assert (seen.pop("package"), expected.pop("package")) == ("", None)
    assert seen == expected
    assert seen["argv"] == [str(tmp_path / "link.py"), "one", "two words"]
    assert seen["path0"] == str(plugins.resolve()) and seen["cwd"] == str(plugins)
    assert seen["input"] == "héllo\nworld" and seen["roots"] == []
    assert seen["name"] == "__main__" and seen["main"] and seen["group"] and seen["session"]


def test_a_relative_script_sees_its_absolute_path_in_argv0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """runpy's third difference (README): ``python3 plugin.py`` run in its folder."""
    write(tmp_path / "plugin.py", "import json, sys\nprint(json.dumps([sys.argv, __file__]))\n")
    argv = [sys.executable, "plugin.py", "arg"]
    forked, fresh = run_both(monkeypatch, argv, cwd=tmp_path)
    absolute = str(tmp_path / "plugin.py")
    assert json.loads(fresh.stdout) == [["plugin.py", "arg"], absolute]
    assert json.loads(forked.stdout) == [[absolute, "arg"], absolute]


@pytest.mark.parametrize(
    "body",
    [
        "pass",
        "print('out'); sys.exit(None)",
        "sys.exit(3)",
        "sys.exit('a message for stderr')",
        "sys.exit(True)",
        "print('partial', flush=True); os._exit(7)",
        "def fail():\n    raise ValueError('boom')\nprint('before')\nfail()",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise KeyError('chained') from e",
        "def broken(:\n    pass",
        "raise KeyboardInterrupt",
        "sys.stdout.write('no newline'); sys.stderr.write('err no newline')",
        "import signal\nos.kill(os.getpid(), signal.SIGTERM)",
    ],
)
def test_exit_status_output_and_tracebacks_are_the_interpreters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str
) -> None:
    script = tmp_path / "plugin.py"
    script.write_text("import os, sys\n" + body + "\n")
    forked, fresh = run_both(monkeypatch, [sys.executable, str(script)], b"ignored input")
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode,
        fresh.stdout,
        fresh.stderr,
    )


def test_big_input_and_outputs_do_not_deadlock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1 MB on stderr before reading 4 MB of stdin, then 8 MB on stdout: every pipe full at
    some point, so only reading and writing at once gets through."""
    script = write(
        tmp_path / "plugin.py",
        """\
        import sys
        sys.stderr.write("e" * (1 << 20))
        sys.stderr.flush()
        data = sys.stdin.buffer.read()
        sys.stdout.buffer.write(data + data)
        """,
    )
    data = bytes(range(256)) * (1 << 14)
    forked, fresh = run_both(monkeypatch, [sys.executable, str(script)], data)
    assert forked.returncode == fresh.returncode == 0
    assert forked.stdout == fresh.stdout == data + data
    assert forked.stderr == fresh.stderr == b"e" * STDERR_KEPT  # the end of stderr is kept


def test_a_plugin_that_stops_reading_its_input_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = write(tmp_path / "plugin.py", "import sys\nsys.stdin.close()\nprint('done')\n")
    forked, fresh = run_both(monkeypatch, [sys.executable, str(script)], b"x" * (1 << 22))
    assert (forked.returncode, forked.stdout) == (fresh.returncode, fresh.stdout) == (0, b"done\n")


def process_state(pid: int) -> str | None:
    """The process's state letter (Z: a zombie), None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


@pytest.mark.parametrize("fork", ["1", "0"])
def test_a_timeout_kills_the_plugin_and_what_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: str
) -> None:
    pid_file = tmp_path / "child.pid"
    script = write(
        tmp_path / "plugin.py",
        f"""\
        import subprocess, time
        child = subprocess.Popen(["sleep", "60"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        time.sleep(60)
        """,
    )
    monkeypatch.setenv(FORK_ENV, fork)
    argv = [sys.executable, str(script)]
    assert (python_script(argv, None) is not None) == (fork == "1")
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        if fork == "1":
            run_forked(argv, timeout=3)
        else:
            run_in_group(argv, b"", 3, None)
    assert time.monotonic() - start < 30
    grandchild = int(pid_file.read_text())
    for _ in range(100):
        if process_state(grandchild) in (None, "Z"):
            break
        time.sleep(0.05)
    assert process_state(grandchild) in (None, "Z")


def test_a_working_folder_that_is_missing_fails_as_it_does_for_a_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = write(tmp_path / "plugin.py", "print('never')\n")
    argv, missing = [sys.executable, str(script)], str(tmp_path / "missing")
    errors = []
    with pytest.raises(OSError) as caught:
        run_forked(argv, cwd=missing, timeout=10)
    errors.append((type(caught.value), caught.value.strerror))
    monkeypatch.setenv(FORK_ENV, "0")
    with pytest.raises(OSError) as caught:
        run_in_group(argv, b"", 10, missing)
    errors.append((type(caught.value), caught.value.strerror))
    assert errors[0] == errors[1] == (FileNotFoundError, "No such file or directory")


# --- which commands fork -------------------------------------------------------------------------


def test_which_commands_run_in_a_fork(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FORK_ENV, raising=False)
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")
    script = write(tmp_path / "plugin.py", "print('hi')\n")
    env_shebang = write(tmp_path / "env-plugin", "#!/usr/bin/env python3\nprint(1)\n", 0o755)
    direct = write(tmp_path / "direct-plugin", f"#!{sys.executable}\nprint(1)\n", 0o755)
    options = write(tmp_path / "options", "#!/usr/bin/env -S python3 -u\nprint(1)\n", 0o755)
    shell = write(tmp_path / "shell-plugin", "#!/bin/sh\necho 1\n", 0o755)
    not_executable = write(tmp_path / "plain", "#!/usr/bin/env python3\nprint(1)\n")
    (tmp_path / "folder.py").mkdir()
    python = sys.executable
    assert python_script([python, str(script), "a"], None) is not None
    assert python_script([python, "plugin.py"], str(tmp_path)) is not None  # from its folder
    assert python_script([python, "-c", "print(1)"], None) is None
    assert python_script([python, "-m", "json.tool"], None) is None
    assert python_script([python, str(tmp_path / "folder.py")], None) is None
    assert python_script([python, str(tmp_path / "nothing.py")], None) is None
    assert python_script([str(env_shebang), "x"], None) is not None
    assert python_script([str(direct)], None) is not None
    assert python_script([str(options)], None) is None
    assert python_script([str(shell)], None) is None
    assert python_script([str(not_executable)], None) is None
    assert python_script(["/bin/echo", "hi"], None) is None
    monkeypatch.setenv(FORK_ENV, "0")
    assert python_script([python, str(script)], None) is None


def test_another_interpreter_is_started_as_a_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same binary in another virtual environment (or outside any) is another Python."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /nowhere\n")
    (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    assert same_interpreter(sys.executable)
    assert not same_interpreter(str(venv / "bin" / "python"))
    monkeypatch.delenv(FORK_ENV, raising=False)
    script = write(tmp_path / "plugin.py", "print(1)\n")
    assert python_script([str(venv / "bin" / "python"), str(script)], None) is None


def test_a_changed_startup_environment_starts_a_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PYTHONPATH set after this interpreter started: only a new one would honour it."""
    monkeypatch.delenv(FORK_ENV, raising=False)
    argv = [sys.executable, str(write(tmp_path / "plugin.py", "print(1)\n"))]
    assert python_script(argv, None) is not None
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert python_script(argv, None) is None


# --- prepare-all either way ----------------------------------------------------------------------


def snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def prepare_all(root: Path, fork: str, *args: str) -> tuple[int, str]:
    env = {**os.environ, FORK_ENV: fork, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [str(BIN / "krmfn"), "prepare-all", "-q", *args, str(root)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return done.returncode, done.stdout


def test_prepare_all_on_the_example_is_the_same_either_way(tmp_path: Path) -> None:
    results = []
    for fork in ("1", "0"):
        root = tmp_path / f"fork-{fork}"
        shutil.copytree(EXAMPLE, root)
        code, table = prepare_all(root, fork)
        results.append((code, table, snapshot(root)))
    assert results[0][0] == 0 and "oran-cu/smf-" in results[0][1]
    assert results[0] == results[1]


def test_prepare_all_on_the_tko_scenario_is_the_same_either_way(tmp_path: Path) -> None:
    results = []
    for fork in ("1", "0"):
        root = tmp_path / f"fork-{fork}"
        shutil.copytree(SCENARIO, root)
        catalog = str(root / "catalog")
        for args in (
            ["demo/hello-world:v1.0.0", "--site", "lab/1", "hello-world"],
            ["topology/oran/cu:v1.0.0", "oran-cu"],
            ["topology/oran/du:v1.0.0", "oran-du"],
        ):
            out = str(root / "deployments" / args[-1])
            created = subprocess.run(
                [str(BIN / "krmfn"), "deployment", "create", *args[:-1], "--catalog", catalog, out],
                capture_output=True,
                check=False,
            )
            assert created.returncode == 0, created.stderr
        code, table = prepare_all(root, fork, "--catalog", catalog)
        results.append((code, table.replace(str(root), "ROOT"), snapshot(root)))
    assert results[0][0] == 1 and "provisioned" in results[0][1]  # TOSCA stays unprepared
    assert results[0] == results[1]
