"""The bad and hostile input corpus (testdata/bad/) against all five functions.

Every input must end in exit 1 with an error result naming the problem, nothing but a
ResourceList on stdout (never the broken text echoed back), no traceback, bounded time and memory,
and no files written (neither in the working folder nor in HOME or TMPDIR). Inputs too
big to keep as files are generated here. The number of runs is reported at the end of the session.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from krmfn.registry import FUNCTIONS as REGISTRY

from .no_repr import assert_no_repr, messages_of

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "testdata" / "bad"
BIN = Path(sys.executable).parent
FUNCTIONS = [function.name for function in REGISTRY]
MEMORY_LIMIT = 3 * 1024**3
TIME_LIMIT = 120.0
HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
ITEM = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n"
ECHO_CANARY = b"ECHO-CANARY"  # in broken text that must never reach stdout


def _generated() -> dict[str, tuple[Callable[[], bytes], str | None]]:
    deep_block = "".join("  " * level + "a:\n" for level in range(600)) + "  " * 600 + "b: 1\n"
    return {
        "deep-flow": (
            (HEAD + ITEM + "  spec: " + "[" * 10000 + "]" * 10000 + "\n").encode,
            "too deep",
        ),
        "deep-block": (
            (
                HEAD
                + ITEM
                + "  spec:\n"
                + "".join("    " + line + "\n" for line in deep_block.splitlines())
            ).encode,
            "too deep",
        ),
        "deep-sequence": ((HEAD + ITEM + "  spec: " + "- " * 10000 + "x\n").encode, "too deep"),
        "huge-scalar": (
            (HEAD + ITEM + '  data:\n    big: "' + "x" * (100 * 1024 * 1024) + '"\n').encode,
            None,
        ),
    }


def _file_cases() -> dict[str, str]:
    return {str(k): str(v) for k, v in yaml.safe_load((BAD / "cases.yaml").read_text()).items()}


def _domain_cases() -> dict[str, dict[str, str]]:
    """testdata/bad/domain.yaml: per function ("*": the others), the error each must give."""
    loaded = yaml.safe_load((BAD / "domain.yaml").read_text())
    return {str(k): {str(f): str(n) for f, n in v.items()} for k, v in loaded.items()}


CASES = sorted(_file_cases()) + sorted(_domain_cases()) + sorted(_generated())


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _input(case: str, function: str) -> tuple[bytes, str | None]:
    files = _file_cases()
    if case in files:
        return (BAD / case).read_bytes(), files[case]
    domain = _domain_cases()
    if case in domain:
        needles = domain[case]
        return (BAD / case).read_bytes(), needles.get(function, needles.get("*"))
    make, needle = _generated()[case]
    return make(), needle


def test_domain_cases_name_real_functions_and_files() -> None:
    for case, needles in _domain_cases().items():
        assert (BAD / case).is_file(), case
        assert set(needles) <= {*FUNCTIONS, "*"}, needles


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("case", CASES)
def test_bad_input(case: str, function: str, tmp_path: Path) -> None:
    data, needle = _input(case, function)
    work, home, tmp = (tmp_path / name for name in ("work", "home", "tmp"))
    for folder in (work, home, tmp):
        folder.mkdir()
    started = time.monotonic()
    done = subprocess.run(
        [str(BIN / f"krmfn-{function}")],
        input=data,
        capture_output=True,
        cwd=work,
        preexec_fn=_limits,
        timeout=TIME_LIMIT,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "HOME": str(home), "TMPDIR": str(tmp)},
    )
    elapsed = time.monotonic() - started
    stderr = done.stderr.decode(errors="replace")
    assert "Traceback" not in stderr, stderr
    for folder in (work, home, tmp):
        assert list(folder.iterdir()) == [], f"a function wrote files in {folder.name}"
    assert ECHO_CANARY not in done.stdout, "broken input text was echoed to stdout"
    assert elapsed < TIME_LIMIT
    # One document (load refuses a second one), by libyaml: the Python loader took ~30 s of
    # the test's own CPU on the 100 MB scalar's output.
    out = yaml.load(done.stdout, Loader=yaml.CSafeLoader)
    assert isinstance(out, dict) and out.get("kind") == "ResourceList", done.stdout[:500]
    assert_no_repr(*messages_of(out), stderr)  # issue 35: values as text, never a repr
    if needle is None:  # a bounded run is enough; an error must still be a clean one
        assert done.returncode in (0, 1)
        return
    assert done.returncode == 1, f"exit {done.returncode}"
    errors = [r for r in out.get("results") or [] if r.get("severity") == "error"]
    assert any(needle in r.get("message", "") for r in errors), out.get("results")
