"""Round-trip fidelity on nasty input, through stdin/stdout and through the real kpt binary."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from krmlib import ResourceList
from krmlib._model.storage import of
from krmlib.testing import kpt_source, read_tree

from .kpt_packages import render

ROOT = Path(__file__).resolve().parent.parent
NASTY = ROOT / "testdata" / "krmlib" / "nasty"
HERE = Path(__file__).resolve().parent


def _with_pipeline(src: Path, dest: Path, exec_line: str) -> Path:
    shutil.copytree(src, dest)
    kptfile = dest / "Kptfile"
    text = kptfile.read_text().replace(
        "mutators: [] # filled in by the tests", f"mutators:\n  - exec: '{exec_line}'"
    )
    kptfile.write_text(text)
    return dest


def test_stdin_stdout_items_come_back_byte_identical() -> None:
    source = kpt_source(NASTY)
    done = subprocess.run(
        [sys.executable, str(HERE / "fn_noop.py")], input=source.encode(), capture_output=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == source


def test_parse_and_emit_are_exact_for_every_item() -> None:
    source = kpt_source(NASTY)
    rl = ResourceList.parse(source)
    assert len(rl.items) == 5
    assert all(of(obj).src is not None for obj in rl.items)  # the fast path split them
    assert rl.to_yaml() == source
    for obj in rl.items:  # reading an item never changes its text
        obj.to_dict()
        assert not obj.changed
    assert rl.to_yaml() == source


@pytest.mark.kpt
def test_render_with_noop_function_equals_render_with_cat(tmp_path: Path) -> None:
    with_cat = _with_pipeline(NASTY, tmp_path / "cat", "cat")
    noop = f"{sys.executable} {HERE / 'fn_noop.py'}"
    with_fn = _with_pipeline(NASTY, tmp_path / "fn", noop)
    for pkg in (with_cat, with_fn):
        render(pkg)
    cat_files, fn_files = read_tree(with_cat), read_tree(with_fn)
    cat_files.pop("Kptfile"), fn_files.pop("Kptfile")
    assert fn_files == cat_files


EDITS = {
    "quoting": ("quoting.yaml", ['    krmfn.dev/touched: "yes"']),
    "scalars": ("quoting.yaml", ['    krmfn.dev/touched: "yes"']),
    "lists": ("lists.yaml", ["  labels:", '    krmfn.dev/touched: "yes"']),
    "compact": ("compact.yaml", ["  labels:", '    krmfn.dev/touched: "yes"']),
}


@pytest.mark.kpt
@pytest.mark.parametrize("target", sorted(EDITS))
def test_render_with_an_edit_changes_only_the_intended_lines(tmp_path: Path, target: str) -> None:
    with_cat = _with_pipeline(NASTY, tmp_path / "cat", "cat")
    label = f"{sys.executable} {HERE / 'fn_label.py'} {target}"
    with_fn = _with_pipeline(NASTY, tmp_path / "fn", label)
    for pkg in (with_cat, with_fn):
        render(pkg)
    edited, wanted = EDITS[target]
    for name in ("quoting.yaml", "compact.yaml", "lists.yaml"):
        if name != edited:
            assert (with_fn / name).read_bytes() == (with_cat / name).read_bytes()
    before = (with_cat / edited).read_text().splitlines()
    after = (with_fn / edited).read_text().splitlines()
    added = [line for line in after if line not in before]
    removed = [line for line in before if line not in after]
    assert removed == []
    assert added == wanted
