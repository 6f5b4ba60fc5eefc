"""krmlib tried as a new user would: a fresh venv with only the krmlib wheel (and pytest), then
(1) the function of docs/tutorial.rst, every file written from the page and its commands run,
and (2) a project from `krmlib new`. Each passes its golden tests without kpt on PATH and runs
under real kpt (`kpt fn render`, `kpt fn eval --exec`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from krmlib.testing import WITHOUT_KPT, run_kpt

from .test_wheel import ROOT

TUTORIAL = ROOT / "docs" / "tutorial.rst"
BLOCK = re.compile(r"^\.\. code-block:: (\w+)\n((?:   :\w+: .*\n)*)\n((?:(?:   .*)?\n)+)", re.M)


def tutorial_blocks() -> list[tuple[str, str, str]]:
    """(language, caption, text) of every code block of the tutorial, in order."""
    blocks = []
    for match in BLOCK.finditer(TUTORIAL.read_text()):
        options = dict(re.findall(r"   :(\w+): (.*)\n", match.group(2)))
        lines = match.group(3).rstrip("\n").split("\n")
        text = "\n".join(line[3:] for line in lines) + "\n"
        blocks.append((match.group(1), options.get("caption", ""), text))
    return blocks


def test_the_tutorial_has_its_files_and_commands() -> None:
    blocks = tutorial_blocks()
    files = [caption for _, caption, _ in blocks if caption]
    assert "ensure_owner/__init__.py" in files and "tests/test_golden.py" in files
    assert sum(1 for language, caption, _ in blocks if language == "sh" and not caption) == 3


def _sh(bin_dir: Path, cwd: Path, line: str, *, kpt: bool) -> subprocess.CompletedProcess[str]:
    """One command line of the tutorial, in the venv; kpt on PATH only when ``kpt``."""
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}" if kpt else str(bin_dir)
    env = {**os.environ, "PATH": path}
    env.pop("KRMFN_UPDATE_GOLDEN", None)
    env.pop("KRMLIB_UPDATE_GOLDEN", None)
    env.pop("VIRTUAL_ENV", None)
    args = line.split()
    if args[0] == "pip":  # this checkout's pip, into the venv (no pip of its own: faster)
        args[:1] = [sys.executable, "-m", "pip", "--python", str(bin_dir / "python")]
        if "-e" in args:  # the build backend installed once, not per project
            args.append("--no-build-isolation")
    args[0] = str(bin_dir / args[0]) if (bin_dir / args[0]).exists() else args[0]
    if args[0].endswith("/pytest"):
        args[1:1] = ["-p", "no:cacheprovider", "-rs"]
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{line}:\n{done.stdout}\n{done.stderr}"
    return done


def _python(version: str) -> str:
    """The interpreter of Python ``version`` (the one of `make test-pythons`); skips without."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    found = subprocess.run(["bash", str(ROOT / "scripts" / "find-python.sh"), version],
                           capture_output=True, text=True, check=False)  # fmt: skip
    if found.returncode != 0:
        pytest.skip(found.stderr.strip())
    return found.stdout.strip()


@pytest.mark.kpt
@pytest.mark.slow
@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])  # what krmlib supports
def test_a_new_user_with_only_the_krmlib_wheel(tmp_path: Path, version: str) -> None:
    # A venv without pip (this checkout's pip installs into it) and with the build backend, so
    # that the wheel and the two editable installs need no build environment of their own.
    python = _python(version)
    if python == sys.executable:
        venv.create(tmp_path / "venv", with_pip=False)
    else:
        subprocess.run([python, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    bin_dir = tmp_path / "venv" / "bin"
    pip = [sys.executable, "-m", "pip", "--python", str(bin_dir / "python")]
    quiet = ["-q", "--disable-pip-version-check", "-c", str(ROOT / "constraints.txt")]

    def pip_run(*args: str) -> None:
        done = subprocess.run([*pip, *args], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"

    pip_run("install", *quiet, "setuptools>=68", "wheel", "pytest")
    # From a copy: setuptools stages under sdk/build/, where the editable install links.
    source = tmp_path / "source"
    skip = shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    shutil.copytree(ROOT / "sdk", source / "sdk", ignore=skip)
    shutil.copytree(ROOT / "krmlib", source / "krmlib", ignore=skip)
    wheel_args = ["--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(source / "sdk")]
    pip_run("wheel", *quiet, *wheel_args)
    [wheel] = tmp_path.glob("krmlib-*.whl")
    pip_run("install", *quiet, str(wheel))
    assert (bin_dir / "krmlib").exists() and not (bin_dir / "krmfn").exists()
    ran = subprocess.run([str(bin_dir / "python"), "-c", "import sys; print(sys.version)"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert ran.stdout.startswith(f"{version}."), ran.stdout

    # (1) The tutorial: its files as the page shows them, then its commands.
    project = tmp_path / "ensure-owner"
    commands = []
    for language, caption, text in tutorial_blocks():
        if caption:
            (project / caption).parent.mkdir(parents=True, exist_ok=True)
            (project / caption).write_text(text)
        elif language == "sh":
            commands += [line.split(" #")[0].strip() for line in text.splitlines()]
    setup, run = commands[:2], commands[2:]
    assert setup[0].startswith("python3 -m venv") and setup[1].startswith("pip install krmlib-")
    assert run[:3] == ["pip install -e . pytest", "pytest --update-golden", "pytest"], run
    _sh(bin_dir, project, run[0], kpt=True)
    _sh(bin_dir, project, run[1], kpt=False)
    recorded = (project / "tests/testdata/annotate/expected/output.yaml").read_text()
    assert recorded.startswith(WITHOUT_KPT)
    assert "example.com/owner: team-a" in recorded and "name: cart # the cart service" in recorded
    assert recorded.count("example.com/owner") == 1  # the ConfigMap is left alone
    done = _sh(bin_dir, project, run[2], kpt=False)
    assert "1 passed, 1 skipped" in done.stdout and "kpt not found on PATH" in done.stdout
    assert run[3] == "kpt fn render example --allow-exec"
    _sh(bin_dir, project, run[3], kpt=True)
    rendered = (project / "example/shop.yaml").read_text()
    assert rendered == (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cart # the cart service\n"
        "  annotations:\n    example.com/owner: team-a\nspec:\n  replicas: 1\n"
    )
    # Recorded without kpt, the case passes with kpt too (compared as data, the kpt run skipped
    # until expected/package/ is recorded).
    done = _sh(bin_dir, project, "pytest", kpt=True)
    assert "1 passed, 1 skipped" in done.stdout and "no expected/package/ yet" in done.stdout

    # (2) krmlib new: its tests pass as created, without kpt and with it.
    _sh(bin_dir, tmp_path, "krmlib new set-team", kpt=False)
    scaffold = tmp_path / "set-team"
    _sh(bin_dir, scaffold, "pip install -e .", kpt=True)
    done = _sh(bin_dir, scaffold, "pytest", kpt=False)
    assert "2 passed, 2 skipped" in done.stdout, done.stdout
    done = _sh(bin_dir, scaffold, "pytest", kpt=True)
    assert "4 passed" in done.stdout, done.stdout  # the :kpt ones: kpt fn eval --exec set-team
    help_text = _sh(bin_dir, scaffold, "set-team --help", kpt=False).stdout
    assert "typed fn.example.com/v1alpha1 SetTeam, or a ConfigMap" in help_text
    assert "\n# set-team\n" in help_text
    # (The :kpt tests above ran `kpt fn eval --exec set-team` on each case.)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = run_kpt(["fn", "render", str(scaffold / "example"), "--allow-exec"], env=env)
    assert done.returncode == 0, done.stderr
    assert (
        "    app: web # kept, with this comment\n    example.com/team: payments\n"
        in (scaffold / "example" / "app.yaml").read_text()
    )
