"""The release: the two wheels (krmlib from sdk/pyproject.toml, krmfn from pyproject.toml) built
with `pip wheel` install into a fresh venv, krmlib first and alone, and their commands run there,
on their own, outside this checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from krmfn import __version__
from krmlib.testing import run_kpt

ROOT = Path(__file__).resolve().parent.parent
KRMLIB_VERSION = tomllib.loads((ROOT / "sdk" / "pyproject.toml").read_text())["project"]["version"]
PACKAGE = ROOT / "testdata" / "applyset-labeler" / "configmap-parent-configmap-form"


def _run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, cwd=cwd, check=False
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done


def build_wheels(out: Path, *projects: Path) -> None:
    """``pip wheel`` of the given projects (no dependencies) into ``out``."""
    _run(
        sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
        "-c", ROOT / "constraints.txt", "-w", out, *projects, cwd=out.parent,
    )  # fmt: skip


def fresh_venv(where: Path) -> Path:
    """A new venv with pip (its bin folder)."""
    venv.create(where, with_pip=True)
    return where / "bin"


def pip_install(bin_dir: Path, *args: str | Path) -> None:
    """Install with this checkout's pins; the dependencies from the index (or its cache)."""
    _run(
        bin_dir / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check",
        "-c", ROOT / "constraints.txt", *args, cwd=bin_dir.parent,
    )  # fmt: skip


@pytest.mark.kpt
def test_the_wheels_install_into_a_fresh_venv_and_run(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    build_wheels(wheels, ROOT / "sdk", ROOT)
    # krmlib's wheel is tagged for this interpreter and machine when its C input check
    # (krmlib._yaml.ccheck) was built, pure (py3-none-any) when it was not (sdk/setup.py).
    found = sorted(wheels.glob(f"krmlib-{KRMLIB_VERSION}-*.whl"))
    assert len(found) == 1, sorted(p.name for p in wheels.iterdir())
    krmlib_wheel = found[0]
    wheel = wheels / f"krmfn-{__version__}-py3-none-any.whl"
    assert wheel.exists(), sorted(p.name for p in wheels.iterdir())
    bin_dir = fresh_venv(tmp_path / "venv")
    python = bin_dir / "python"
    before = {p.name for p in bin_dir.iterdir()}
    # The library alone: its command, its two dependencies, no function.
    pip_install(bin_dir, krmlib_wheel)
    assert {p.name for p in bin_dir.iterdir()} - before == {"krmlib"}
    assert _run(bin_dir / "krmlib", "--version", cwd=tmp_path).stdout == (
        f"krmlib {KRMLIB_VERSION}\n"
    )
    listed = _run(python, "-m", "pip", "list", "--format=freeze", cwd=tmp_path).stdout
    names = {line.split("==")[0].lower() for line in listed.split()}
    assert names - {"pip", "setuptools"} == {"krmlib", "ruamel.yaml", "pyyaml"}, names
    probe = "import importlib.util as u, krmlib; print(krmlib.__file__, u.find_spec('krmfn'))"
    where, krmfn_spec = _run(python, "-c", probe, cwd=tmp_path).stdout.split()
    assert where.startswith(str(tmp_path / "venv")) and krmfn_spec == "None"
    # Then the functions, which take krmlib from the wheel already installed.
    pip_install(bin_dir, "--find-links", wheels, wheel)
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
