"""`make dist` ships krmlib twice (issue 37.3): the pure wheel (the Python input check) and the
wheel with the C check (krmlib._yaml.ccheck) for this machine, beside krmfn's. `make wheels` is
the wheel part of `make dist`, here into a folder of its own."""

from __future__ import annotations

import subprocess
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_TAG = (
    "import sys, sysconfig; print(f'cp{sys.version_info[0]}{sys.version_info[1]}',"
    " sysconfig.get_platform().replace('-', '_').replace('.', '_'))"
)
KRMLIB_VERSION = tomllib.loads((ROOT / "sdk" / "pyproject.toml").read_text())["project"]["version"]


@pytest.mark.slow
def test_make_dist_builds_the_pure_and_the_platform_krmlib_wheels(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    done = subprocess.run(
        ["make", "-s", "wheels", f"DIST_DIR={out}"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    # the platform wheel is the project venv's interpreter's (make's $(PY)), whichever Python
    # runs this test (make test-pythons runs it under 3.12 and 3.13 too)
    tag, platform = subprocess.run(
        [ROOT / ".venv" / "bin" / "python", "-c", _TAG],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    pure = out / f"krmlib-{KRMLIB_VERSION}-py3-none-any.whl"
    compiled = out / f"krmlib-{KRMLIB_VERSION}-{tag}-{tag}-{platform}.whl"
    names = sorted(p.name for p in out.iterdir())
    assert pure.name in names and compiled.name in names, names
    assert len([n for n in names if n.startswith("krmlib-")]) == 2, names
    assert len([n for n in names if n.startswith("krmfn-")]) == 1, names

    def compiled_files(wheel: Path) -> list[str]:
        return [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".so")]

    assert compiled_files(pure) == []
    assert [n.rsplit("/", 1)[0] for n in compiled_files(compiled)] == ["krmlib/_yaml"]
    assert compiled_files(compiled)[0].startswith("krmlib/_yaml/ccheck.")

    # Otherwise the same files: the wheels differ in the extension alone.
    def files(wheel: Path) -> set[str]:
        return {n for n in zipfile.ZipFile(wheel).namelist() if ".dist-info/" not in n}

    assert files(compiled) - files(pure) == set(compiled_files(compiled))
    assert files(pure) - files(compiled) == set()
