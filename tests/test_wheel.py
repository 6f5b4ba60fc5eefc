"""The release: a wheel built with `pip wheel` installs into a fresh venv (no index: only the
wheels just built) and its commands run there, on their own, outside this checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from krmfn import __version__

from krmlib.testing import run_kpt

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "testdata" / "applyset-labeler" / "configmap-parent-configmap-form"


def _run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, cwd=cwd, check=False
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done


@pytest.mark.kpt
def test_the_wheel_installs_into_a_fresh_venv_and_runs(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    _run(
        sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check",
        "-c", ROOT / "constraints.txt", "-w", wheels, ROOT, cwd=tmp_path,
    )  # fmt: skip
    wheel = wheels / f"krmfn-{__version__}-py3-none-any.whl"
    assert wheel.exists(), sorted(p.name for p in wheels.iterdir())
    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=True)
    python, bin_dir = fresh / "bin" / "python", fresh / "bin"
    _run(
        python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
        "--find-links", wheels, wheel, cwd=tmp_path,
    )  # fmt: skip
    # Outside the checkout, the commands find nothing of it: only the installed wheel.
    assert _run(bin_dir / "krmfn", "--version", cwd=tmp_path).stdout == f"krmfn {__version__}\n"
    name = "krmfn-applyset-labeler"
    assert _run(bin_dir / name, "--version", cwd=tmp_path).stdout == f"{name} {__version__}\n"
    assert "\n# krmfn-applyset-labeler\n" in _run(bin_dir / name, "--help", cwd=tmp_path).stdout
    work = tmp_path / "pkg"
    shutil.copytree(PACKAGE / "package", work)
    done = run_kpt(
        ["fn", "eval", str(work), "--exec", str(bin_dir / name), "--fn-config",
         str(PACKAGE / "config.yaml")],
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = PACKAGE / "expected" / "package"
    assert {p.name: p.read_bytes() for p in work.iterdir()} == {
        p.name: p.read_bytes() for p in expected.iterdir()
    }
