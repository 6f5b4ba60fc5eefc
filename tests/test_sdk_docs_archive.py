"""`make dist` ships krmlib's HTML docs as a release artifact (issue 34): the archive
dist/krmlib-<version>-docs.tar.gz (`make docs-archive`) holds the start page and the API reference
with every public name of ``krmlib.__all__``, and is reproducible: the same HTML and
SOURCE_DATE_EPOCH give the same bytes (entries sorted, owner 0:0, every mtime the epoch)."""

from __future__ import annotations

import gzip
import io
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

import krmlib

ROOT = Path(__file__).resolve().parent.parent
VERSION = re.search(r'^version = "(.*)"$', (ROOT / "sdk" / "pyproject.toml").read_text(), re.M)
TOP = f"krmlib-{VERSION.group(1) if VERSION else '?'}-docs"

pytestmark = pytest.mark.slow  # builds the docs when they are not built yet (about 20 s)


def _archive(tmp_path: Path, epoch: int, name: str) -> Path:
    if not (ROOT / "build" / "docs" / "html" / "index.html").exists():
        subprocess.run(["make", "-s", "docs"], cwd=ROOT, check=True, capture_output=True)
    out = tmp_path / name
    done = subprocess.run(
        ["make", "-s", "docs-archive", f"DOCS_ARCHIVE={out}", f"SOURCE_DATE_EPOCH={epoch}"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_the_archive_holds_the_start_page_and_every_public_name(tmp_path: Path) -> None:
    archive = _archive(tmp_path, 1_700_000_000, "docs.tar.gz")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        assert f"{TOP}/index.html" in names and f"{TOP}/api.html" in names, names
        assert f"{TOP}/core.html" in names and f"{TOP}/tutorial.html" in names
        api = tar.extractfile(f"{TOP}/api.html")
        assert api is not None
        page = api.read().decode()
    missing = [name for name in krmlib.__all__ if f'id="krmlib.{name}"' not in page]
    assert missing == []


def test_the_archive_is_reproducible(tmp_path: Path) -> None:
    first = _archive(tmp_path, 1_700_000_000, "a.tar.gz").read_bytes()
    again = _archive(tmp_path, 1_700_000_000, "b.tar.gz").read_bytes()
    other = _archive(tmp_path, 1_600_000_000, "c.tar.gz").read_bytes()
    assert first == again
    assert first != other  # the epoch is the archive's only date
    assert first[4:8] == b"\0\0\0\0"  # gzip header: no time
    with tarfile.open(fileobj=gzip.GzipFile(fileobj=io.BytesIO(first))) as tar:
        members = tar.getmembers()
    assert {(m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, "", "")}
    assert {m.mtime for m in members} == {1_700_000_000}
    assert all(m.name == TOP or m.name.startswith(f"{TOP}/") for m in members)
    assert not any(m.name.endswith(".buildinfo") for m in members)
    paths = [m.name.split("/") for m in members]
    assert paths == sorted(paths)  # each folder's entries by name, a folder before its contents


def test_make_docs_packs_the_archive_so_ci_builds_it() -> None:
    """.ci/run calls `make docs`: the archive is made there too (a dry run lists the commands)."""
    assert "make docs " in (ROOT / ".ci" / "run").read_text()
    done = subprocess.run(["make", "-n", "-s", "docs"], cwd=ROOT, capture_output=True, text=True,
                          check=True)  # fmt: skip
    lines = done.stdout.splitlines()
    built = next(i for i, line in enumerate(lines) if "sphinx-build" in line)
    packed = next(i for i, line in enumerate(lines) if f"gzip -9n > dist/{TOP}.tar.gz" in line)
    assert built < packed, done.stdout
