"""Private state stays private: only krmlib/_model/object.py (KubeObject, the public face) and
krmlib/_model/storage.py (the storage behind it) touch a KubeObject's private attributes.

Every other module of krmlib, the functions, the benchmark and the tests reach an object's
storage through ``krmlib._model.storage.of(obj)`` and its documented methods. The scan reads every
Python file and refuses ``x._name`` where ``_name`` is a private attribute of KubeObject (its
slots and methods, found by introspection, and the names of the storage's fields and methods
with a leading underscore, as they were when they lived on KubeObject) and ``x`` is not ``self``
or ``cls`` (e.g. ``obj._store``, ``KubeObject._span``, ``obj._node``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from krmlib._model.object import KubeObject

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("krmlib", "krmfn", "bench", "tests", "examples", "scripts")
# The modules allowed to touch KubeObject's private state (paths from the repository's root).
ALLOWED = frozenset({"krmlib/_model/object.py", "krmlib/_model/storage.py"})


def _private_names() -> frozenset[str]:
    names = {name for name in KubeObject.__slots__ if name.startswith("_")}
    names |= {n for n in vars(KubeObject) if n.startswith("_") and not n.startswith("__")}
    return frozenset(names | _FORMER)


# KubeObject's private fields and methods before they moved into the storage (krmlib 0.2.x).
_FORMER = frozenset(
    {
        "_dirty", "_header", "_node", "_patch", "_plain", "_scanned", "_spliced", "_src_form",
        "_start", "_stop", "_text", "_src", "_span", "_edit_src", "_span_of_input",
        "_patched_span", "_doc_text", "_is_new", "_tree", "_raw", "_add_path", "_splice_insert",
        "_spliced_at", "_forget_header",
    }
)  # fmt: skip


def _reaches(path: Path, private: frozenset[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in private:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_object_and_storage_touch_a_kube_objects_private_state() -> None:
    private = _private_names()
    assert {"_store", "_node", "_text", "_header", "_dirty", "_span"} <= private
    files = [
        path
        for folder in SCANNED
        if (ROOT / folder).is_dir()
        for path in sorted((ROOT / folder).rglob("*.py"))
        if str(path.relative_to(ROOT)) not in ALLOWED
    ]
    assert len(files) > 100
    found = [line for path in files for line in _reaches(path, private)]
    assert found == [], "\n".join(found)


def test_the_scan_finds_a_reach(tmp_path: Path) -> None:
    """The scan is not vacuous: a reach into another object's storage is reported."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f(obj, self):\n    return obj._store, self._store, obj._node\n")
    assert _reaches(sample, _private_names()) == [
        "sample.py:2: obj._store",
        "sample.py:2: obj._node",
    ]


# --- the storage's fields: written by the storage alone (issue 41) ----------------------------------


def _storage_writes(path: Path, fields: frozenset[str]) -> list[str]:
    """Assignments to a field of a :class:`krmlib._model.storage.Storage` reached from outside it
    (``of(obj).header = ...``, ``store.dirty = ...``, ``obj._store.spliced = ...``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if not isinstance(target, ast.Attribute) or target.attr not in fields:
                continue
            base = ast.unparse(target.value)
            if "store" in base or base.startswith(("of(", "_storage.of(")):
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
                found.append(f"{where}:{target.lineno}: {ast.unparse(target)}")
    return found


def test_only_the_storage_writes_its_fields() -> None:
    """The text, its span and patch, the tree, the caches and the flags of an object change
    through the storage's methods only (``new_item``, ``mark_read``, ``replace_text``,
    ``splice_insert``, ``set``...): no other module, KubeObject's face included, assigns them."""
    from krmlib._model.storage import Storage

    fields = frozenset(Storage.__slots__)
    assert {"dirty", "header", "spliced", "text", "patch"} <= fields
    files = [
        path
        for folder in SCANNED
        if (ROOT / folder).is_dir()
        for path in sorted((ROOT / folder).rglob("*.py"))
        if str(path.relative_to(ROOT)) != "krmlib/_model/storage.py"
    ]
    found = [line for path in files for line in _storage_writes(path, fields)]
    assert found == [], "\n".join(found)


def test_the_storage_scan_finds_a_write(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(obj, store):\n    of(obj).header = None\n    store.dirty = False\n"
        "    obj._store.spliced = True\n    obj.text = 'a styled scalar'\n"
    )
    assert _storage_writes(sample, frozenset({"header", "dirty", "spliced", "text"})) == [
        "sample.py:2: of(obj).header",
        "sample.py:3: store.dirty",
        "sample.py:4: obj._store.spliced",
    ]


def test_only_the_storage_imports_the_text_splicer() -> None:
    """Text edits are computed by the pure functions of ``krmlib/_yaml/splice.py`` and applied by the
    storage alone: no other module of krmlib or krmfn imports the splicer (4 did before)."""
    importers = []
    for folder in ("krmlib", "krmfn", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.ImportFrom):
                    names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                if any(re.search(r"(^|\.)_?splice(\.|$)", n) for n in names):
                    importers.append(path.relative_to(ROOT).as_posix())
    assert sorted(set(importers)) == ["krmlib/_model/storage.py"]
