"""`krmlib new`: a function project whose tests pass right away, without kpt (this checkout's
venv), and, as a new user gets it, in a fresh venv with only the krmlib wheel, under real kpt."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from krmlib._io.cli import main as krmlib_main
from krmlib._io.scaffold import TEMPLATES, ScaffoldError, new_project, placeholders

EXPECTED_FILES = {
    ".gitignore",
    "Dockerfile",
    "Makefile",
    "README.md",
    "pyproject.toml",
    "example/Kptfile",
    "example/app.yaml",
    "example/fn-config.yaml",
    "set_team/__init__.py",
    "tests/test_golden.py",
    "tests/testdata/label-and-check/config.yaml",
    "tests/testdata/label-and-check/package/Kptfile",
    "tests/testdata/label-and-check/package/app.yaml",
    "tests/testdata/label-and-check/expected/output.yaml",
    "tests/testdata/label-and-check/expected/package/Kptfile",
    "tests/testdata/label-and-check/expected/package/app.yaml",
    "tests/testdata/service-without-selector/config.yaml",
    "tests/testdata/service-without-selector/package/Kptfile",
    "tests/testdata/service-without-selector/package/app.yaml",
    "tests/testdata/service-without-selector/expected/output.yaml",
}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_new_writes_the_project_with_every_placeholder_filled(tmp_path: Path) -> None:
    target = tmp_path / "set-team"
    written = new_project("set-team", target, "0.1.0")
    assert {p.relative_to(target).as_posix() for p in written} == EXPECTED_FILES
    assert _files(target) == EXPECTED_FILES
    for path in written:
        text = path.read_text()
        assert not re.search(r"__(NAME|MODULE|KIND|KRMLIB_\w+)__", text), path
    pyproject = (target / "pyproject.toml").read_text()
    assert 'set-team = "set_team:main"' in pyproject
    assert '"krmlib>=0.1,<0.2"' in pyproject
    assert "kind: SetTeam" in (target / "example" / "fn-config.yaml").read_text()


def test_new_refuses_a_bad_name_and_a_folder_in_use(tmp_path: Path) -> None:
    for bad in ("Set_Team", "1st", "-x", "yes", "a" * 64):
        with pytest.raises(ScaffoldError, match="is not a function name"):
            placeholders(bad, "0.1.0")
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "keep.txt").write_text("mine")
    with pytest.raises(ScaffoldError, match="not an empty folder"):
        new_project("x", tmp_path / "used", "0.1.0")
    assert (tmp_path / "used" / "keep.txt").read_text() == "mine"


def test_the_command_says_what_to_do_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert krmlib_main(["new", "set-team", str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert f"pip install -e {tmp_path / 'p'}" in out and "kpt fn render" in out
    assert krmlib_main(["new", "Bad"]) == 1
    assert "is not a function name" in capsys.readouterr().err
    assert krmlib_main(["neww"]) == 2
    assert "did you mean 'new'?" in capsys.readouterr().err


def test_an_io_error_is_a_message_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file where the project's folder must go: one message naming it, exit 1."""
    (tmp_path / "file").write_text("mine")
    assert krmlib_main(["new", "set-team", str(tmp_path / "file" / "p")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"krmlib: cannot create {tmp_path / 'file' / 'p'}"), err
    assert "Traceback" not in err and (tmp_path / "file").read_text() == "mine"


def test_the_templates_hold_no_stray_files() -> None:
    names = _files(TEMPLATES)
    assert {
        n.replace("__MODULE__", "set_team").replace("gitignore", ".gitignore") for n in names
    } == (EXPECTED_FILES), names


def test_the_new_projects_tests_pass_without_kpt(tmp_path: Path) -> None:
    """The generated pytest file and cases, run by this venv's pytest with kpt out of reach."""
    target = tmp_path / "set-team"
    new_project("set-team", target, "0.1.0")
    env = {**os.environ, "KPT": "kpt-not-installed", "PYTHONPATH": str(target)}
    env.pop("KRMFN_UPDATE_GOLDEN", None)
    env.pop("KRMLIB_UPDATE_GOLDEN", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:hypothesispytest",
            "-rs",
            "-q",
        ],
        cwd=target,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed, 2 skipped" in done.stdout, done.stdout
    assert "kpt not found on PATH (kpt-not-installed): the kpt round trip needs it" in done.stdout
    assert _files(target) == EXPECTED_FILES  # nothing written by a run that is not updating
