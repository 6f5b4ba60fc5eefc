"""stdin read to its end (issue 36.4): a non-blocking stdin whose first read says ``EAGAIN`` is
waited for, never taken as the whole input, by every function and every path that reads stdin.

The stdin is a real pipe whose read end is made non-blocking (the flag belongs to the open file
description the child shares). The first half of the input is written; once the child has read
it all (the pipe is empty) and had time to see ``EAGAIN``, the rest follows. A reader that takes
``EAGAIN`` for the end answers for half the items (and kpt would write that back, deleting the
files of the rest); the output must equal a run fed from an ordinary stdin.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest

from krmfn.registry import FUNCTIONS
from tests.durability_support import BIN, env

ITEMS = 400


def _input() -> bytes:
    lines = ["apiVersion: config.kubernetes.io/v1", "kind: ResourceList", "items:"]
    for i in range(ITEMS):
        lines += [
            "- apiVersion: v1",
            "  kind: ConfigMap",
            "  metadata:",
            f"    name: cm-{i:04d}",
            "    annotations:",
            f"      config.kubernetes.io/path: cm-{i:04d}.yaml",
            "  data:",
            f"    key: value-{i}",
        ]
    return ("\n".join(lines) + "\n").encode()


def _unread(fd: int) -> int:
    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])


def run_with_a_late_half(argv: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    """``argv`` with ``data`` on a non-blocking stdin, its second half written once the first
    is read (or the program ended)."""
    cut = data.index(b"\n- apiVersion", len(data) // 2) + 1  # a whole list, shorter
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    proc = subprocess.Popen(
        argv, stdin=read_end, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env()
    )
    try:
        os.write(write_end, data[:cut])
        deadline = time.monotonic() + 60
        while _unread(read_end) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.close(read_end)
        read_end = -1
        with contextlib.suppress(subprocess.TimeoutExpired):  # a reader stopped at EAGAIN ends
            proc.wait(timeout=0.5)
        with contextlib.suppress(BrokenPipeError):
            os.write(write_end, data[cut:])
    finally:
        if read_end >= 0:
            os.close(read_end)
        os.close(write_end)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _plain(argv: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, input=data, capture_output=True, env=env(), check=False)


@pytest.mark.parametrize("name", [f.name for f in FUNCTIONS])
def test_every_function_reads_a_non_blocking_stdin_to_its_end(name: str) -> None:
    script = next(f.script for f in FUNCTIONS if f.name == name)
    data = _input()
    plain = _plain([str(BIN / script)], data)
    late = run_with_a_late_half([str(BIN / script)], data)
    assert plain.stdout.count(b"kind: ConfigMap") == ITEMS, plain.stderr.decode()
    assert late.stdout == plain.stdout, late.stderr.decode()[-2000:]
    assert late.returncode == plain.returncode


def test_file_mode_reads_stdin_to_its_end() -> None:
    argv = [str(BIN / FUNCTIONS[0].script), "-"]
    data = _input()
    plain = _plain(argv, data)
    late = run_with_a_late_half(argv, data)
    assert plain.stdout.count(b"kind: ConfigMap") == ITEMS, plain.stderr.decode()
    assert late.stdout == plain.stdout, late.stderr.decode()[-2000:]


def test_deployment_create_reads_stdin_to_its_end(tmp_path: Path) -> None:
    """``krmfn deployment create --stdin``: every merged resource arrives in the package."""
    from tests.durability_support import EXAMPLE

    template = EXAMPLE / "catalog" / "templates"
    found = sorted(p for p in template.iterdir() if (p / "Kptfile").is_file())
    assert found, template
    argv = [str(BIN / "krmfn"), "deployment", "create", str(found[0]), "--stdin"]
    data = _input()
    late = run_with_a_late_half([*argv, str(tmp_path / "late")], data)
    assert late.returncode == 0, late.stderr.decode()
    written = "".join(p.read_text() for p in (tmp_path / "late").rglob("*.yaml"))
    assert written.count("kind: ConfigMap") >= ITEMS, late.stderr.decode()


def test_an_error_reading_stdin_is_a_message_naming_stdin(tmp_path: Path) -> None:
    """A read of stdin that fails (EIO injected on the file stdin comes from): a message naming
    stdin and the reason, exit 1, for a function, file mode's ``-`` and ``deployment create
    --stdin`` alike; never an empty input taken as the whole."""
    import shutil

    from tests.durability_support import EXAMPLE

    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (make strace)")
    given = tmp_path / "input.yaml"
    given.write_bytes(_input())
    template = EXAMPLE / "catalog" / "templates" / "upf"
    script = str(BIN / FUNCTIONS[0].script)
    create = [str(BIN / "krmfn"), "deployment", "create", str(template), "--stdin"]
    cases = {
        "function": [script],
        "file mode": [script, "-"],
        "create": [*create, str(tmp_path / "made")],
    }
    inject = [strace, "-f", "-qq", "-o", "/dev/null", "-P", str(given), "-e"]
    for case, argv in cases.items():
        with open(given, "rb") as stdin:
            done = subprocess.run(
                [*inject, "inject=read:error=EIO", *argv],
                stdin=stdin,
                capture_output=True,
                text=True,
                env=env(),
                check=False,
            )
        assert done.returncode == 1, (case, done.stdout, done.stderr)
        said = done.stdout + done.stderr
        assert "cannot read the input (stdin): Input/output error" in said, (case, said)
        assert "Traceback" not in said and "cm-0000" not in done.stdout, case
    assert not (tmp_path / "made").exists()
