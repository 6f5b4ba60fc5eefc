"""No import cycle among krmlib's and krmfn's modules, lazy imports (inside functions) included.

import-linter checks the floors (make lint); this checks the modules of one floor do not import
each other in a circle, which a lazy import would otherwise hide until run time.
"""

from __future__ import annotations

import re

import grimp


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle() -> None:
    built = grimp.build_graph("krmlib", "krmfn", exclude_type_checking_imports=True)
    graph = {m: set(built.find_modules_directly_imported_by(m)) for m in built.modules}
    assert _cycles(graph) == []


def test_krmlibs_public_surface_is_listed_and_documented() -> None:
    import re
    from pathlib import Path

    import krmlib

    readme = (Path(krmlib.__file__).resolve().parent / "README.md").read_text()
    undocumented = [n for n in krmlib.__all__ if not re.search(rf"`[^`]*\b{n}\b[^`]*`", readme)]
    assert undocumented == []
    assert all(getattr(krmlib, name) is not None for name in krmlib.__all__)  # every name loads
    assert sorted(krmlib.__all__) == sorted(krmlib._WHERE)


def test_the_import_contract_forbids_every_private_krmlib_module() -> None:
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    contracts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]
    forbidden = next(c for c in contracts["contracts"] if c["type"] == "forbidden")
    # One privacy convention: a `_` starts every private name at krmlib's top level (the
    # sub-packages; tests/test_public_surface.py holds the rest of the convention).
    private = {
        f"krmlib.{p.stem}"
        for p in (root / "krmlib").iterdir()
        if p.name.startswith("_") and not p.name.startswith("__")
    }
    assert set(forbidden["forbidden_modules"]) == private
    layers = next(c for c in contracts["contracts"] if c["type"] == "layers")["layers"]
    from krmfn.registry import FUNCTIONS

    assert layers[1].split(" | ") == sorted(f.package for f in FUNCTIONS)
    inside = next(c for c in contracts["contracts"] if c.get("containers") == ["krmlib"])
    floors = {m.strip() for layer in inside["layers"] for m in re.split("[|:]", layer)}
    assert {f"krmlib.{m}" for m in floors if m.startswith("_")} == private
