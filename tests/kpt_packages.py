"""Real kpt on a package in a test: a copy of a package rendered, a render that must succeed, a
second render that must change nothing, and the conditions the Kptfile ends with. One place for
what the kpt tests of every function do (exec functions allowed, kpt's output never cut)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from krmlib import Condition, KubeObject, get_conditions
from krmlib.testing import read_tree, run_kpt


def render(pkg: Path, *, cwd: Path | None = None) -> str:
    """``kpt fn render PKG --allow-exec --truncate-output=false`` (from ``cwd``); it must
    succeed. kpt's output (stdout, then stderr: its results and the functions' stderr)."""
    done = run_kpt(["fn", "render", str(pkg), "--allow-exec", "--truncate-output=false"], cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def rendered_copy(source: Path, dest: Path, *, ignore: tuple[str, ...] = ()) -> str:
    """The package ``source`` copied to ``dest`` (without the files matching ``ignore``), then
    rendered: kpt's output."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(*ignore) if ignore else None)
    return render(dest)


def assert_render_changes_nothing(pkg: Path, *, cwd: Path | None = None) -> None:
    """One more render (from ``cwd``) leaves every file of ``pkg`` byte for byte as it was."""
    before = read_tree(pkg)
    render(pkg, cwd=cwd)
    after = read_tree(pkg)
    changed = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
    assert not changed, f"a second render changed {changed}"


def kptfile_conditions(pkg: Path) -> dict[str, Condition]:
    """The conditions of ``pkg``'s Kptfile, by type."""
    kptfile = KubeObject.from_yaml((pkg / "Kptfile").read_text())
    return {c.type: c for c in get_conditions(kptfile)}


KPT_ANNOTATIONS = ("config.kubernetes.io/", "internal.config.kubernetes.io/")


def without_kpt_bookkeeping(item: dict[str, Any]) -> dict[str, Any]:
    """The item without kpt's bookkeeping annotations (local-config kept), its Kptfile
    conditions in type order: what an upstream golden and our output are compared as."""
    metadata = item.get("metadata") or {}
    annotations = {
        k: v
        for k, v in (metadata.get("annotations") or {}).items()
        if k == "config.kubernetes.io/local-config" or not k.startswith(KPT_ANNOTATIONS)
    }
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)
    if item.get("kind") == "Kptfile":
        conditions = (item.get("status") or {}).get("conditions")
        if conditions:
            item["status"]["conditions"] = sorted(conditions, key=lambda c: c["type"])
    return item
