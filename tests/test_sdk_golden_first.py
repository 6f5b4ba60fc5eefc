"""The golden harness as an author meets it (issue 34): the first ``pytest --update-golden`` of a
new case whose function fails writes its expected files (through kpt too), and a golden failure
shows the diff first, not the harness's code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FUNCTION = """\
from krmlib import ResourceList


def process(rl: ResourceList, config: None) -> None:
    for obj in rl.items.where(kind="ConfigMap"):
        if obj.get("data.bad"):
            rl.results.error("bad is set", obj, "data.bad")
        else:
            obj.labels["checked"] = "yes"
"""
SCRIPT = "import sys\nfrom fn import process\nfrom krmlib import run\n" + (
    "sys.exit(run(process, None, name='checker'))\n"
)
TEST = """\
from fn import process
from krmlib.testing import golden_tests

test_golden = golden_tests("testdata", process, script="{script}")
"""


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "testdata").mkdir(parents=True)
    (root / "fn.py").write_text(FUNCTION)
    script = root / "checker"
    script.write_text(f"#!{sys.executable}\n" + SCRIPT)
    script.chmod(0o755)
    (root / "test_fn.py").write_text(TEST.format(script=script))
    for case, data in (("fails", "bad: 'x'"), ("passes", "good: 'x'")):
        package = root / "testdata" / case / "package"
        package.mkdir(parents=True)
        (package / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n"
                                         f"  name: {case}\n")  # fmt: skip
        (package / "cm.yaml").write_text(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  {data}\n"
        )
    return root


def _pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("KRMFN_UPDATE_GOLDEN", "KRMLIB_UPDATE_GOLDEN")
    }
    env["PYTHONPATH"] = str(root)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q",
         *args, "test_fn.py"],
        cwd=root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.mark.kpt
def test_the_first_update_of_a_new_failing_case_writes_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    first = _pytest(root, "--update-golden")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "kpt fn eval failed" not in first.stdout
    assert (root / "testdata" / "fails" / "expected" / "output.yaml").is_file()
    assert (root / "testdata" / "passes" / "expected" / "package" / "cm.yaml").is_file()
    again = _pytest(root)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "4 passed" in again.stdout


@pytest.mark.kpt
def test_a_golden_failure_shows_the_diff_first(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert _pytest(root, "--update-golden", "-k", "passes").returncode == 0
    expected = root / "testdata" / "passes" / "expected" / "output.yaml"
    expected.write_text(expected.read_text().replace('checked: "yes"', 'checked: "no"'))
    done = _pytest(root, "-k", "passes and not kpt")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if "test_golden[passes]" in line)
    diff = next(i for i, line in enumerate(lines) if line.startswith("E") and "---" in line)
    assert diff - header < 12, "\n".join(lines[header : diff + 1])
    assert '-      checked: "no"' in done.stdout and '+      checked: "yes"' in done.stdout
    assert "def check_golden" not in done.stdout and "def assert_same_text" not in done.stdout
