"""Private state stays private: only krmlib/object.py (KubeObject, the public face) and
krmlib/_storage.py (the storage behind it) touch a KubeObject's private attributes.

Every other module of krmlib, the functions, the benchmark and the tests reach an object's
storage through ``krmlib._storage.of(obj)`` and its documented methods. The scan reads every
Python file and refuses ``x._name`` where ``_name`` is a private attribute of KubeObject (its
slots and methods, found by introspection, and the names of the storage's fields and methods
with a leading underscore, as they were when they lived on KubeObject) and ``x`` is not ``self``
or ``cls`` (e.g. ``obj._store``, ``KubeObject._span``, ``obj._node``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from krmlib.object import KubeObject

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("krmlib", "krmfn", "bench", "tests", "examples", "scripts")
# The modules allowed to touch KubeObject's private state (paths from the repository's root).
ALLOWED = frozenset({"krmlib/object.py", "krmlib/_storage.py"})


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
