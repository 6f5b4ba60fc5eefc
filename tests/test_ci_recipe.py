"""The README's "Use it in your repository and in CI" recipe, end to end: a wheel installed with
pip into a fresh venv, a Kptfile pipeline, `kpt fn render` then `git diff --exit-code`, and
`krmfn prepare-all --check`, on a copy of examples/oran-cu."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "oran-cu"


def sh(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.mark.kpt
def test_the_ci_recipe_end_to_end(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(wheels),
            str(ROOT / "sdk"),
            str(ROOT),
        ],  # krmlib (its own distribution), then krmfn
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("krmfn-*.whl")
    (krmlib_wheel,) = wheels.glob("krmlib-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # The dependencies from the project's constraints (pip's cache or PyPI), then the wheel.
    installed = subprocess.run(
        [
            str(venv / "bin/pip"),
            "install",
            "-q",
            "-c",
            str(ROOT / "constraints.txt"),
            str(krmlib_wheel),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    env = {
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "GIT_AUTHOR_NAME": "ci",
        "GIT_AUTHOR_EMAIL": "ci@example.com",
        "GIT_COMMITTER_NAME": "ci",
        "GIT_COMMITTER_EMAIL": "ci@example.com",
    }
    for name in ("KRMFN_ALLOW_READ", "KPT"):
        if name in os.environ:
            env[name] = os.environ[name]
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    assert sh(["git", "init", "-q"], repo, env).returncode == 0

    # The repository before CI: the tree prepared, rendered once by kpt (kpt writes files in its
    # own format) and committed. The commands come from the wheel.
    prepared = sh(["krmfn", "prepare-all", "-q", "."], repo, env)
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    first = sh(["kpt", "fn", "render", "--allow-exec", "."], repo, env)
    assert first.returncode == 0, first.stderr
    assert shutil.which("krmfn-preparer", path=env["PATH"]) == str(venv / "bin/krmfn-preparer")
    sh(["git", "add", "-A"], repo, env)
    assert sh(["git", "commit", "-qm", "prepared"], repo, env).returncode == 0

    # CI: render, no diff, nothing left to prepare.
    rendered = sh(["kpt", "fn", "render", "--allow-exec", "."], repo, env)
    assert rendered.returncode == 0, rendered.stderr
    diff = sh(["git", "diff", "--exit-code"], repo, env)
    assert diff.returncode == 0, diff.stdout
    check = sh(["krmfn", "prepare-all", "--check", "."], repo, env)
    assert check.returncode == 0, check.stdout + check.stderr

    # A commit that forgets to prepare a new site fails the check, naming the package.
    child = repo / "oran-cu/upf-lab-1/deployment.yaml"
    child.write_text(child.read_text().replace('prepared: "true"', 'prepared: "false"'))
    check = sh(["krmfn", "prepare-all", "--check", "."], repo, env)
    assert check.returncode == 1
    assert "oran-cu/upf-lab-1" in check.stderr
