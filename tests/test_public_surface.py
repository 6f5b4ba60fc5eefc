"""krmlib's two public surfaces and its floors (issue 41 items 3 and 4).

- ``krmlib`` is what writing a function takes, ``krmlib.packages`` the disk and process tooling;
  each public name is written once, in the module's ``_WHERE`` table: ``__all__`` is its keys
  and the imports for type checkers are generated from it (``python
  tests/test_public_surface.py --write`` rewrites them; this test checks they agree).
- Names that left ``krmlib`` still load, with a DeprecationWarning, until krmlib 0.3.
- The floors: at most 12 entries at krmlib's top level, no module over 600 lines, one privacy
  convention (a name starting with ``_`` anywhere in a module's path is private; the modules
  inside a private sub-package have plain names), and no function imports a private module even
  for type checking (import-linter reads run-time imports only).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import krmlib
import krmlib.packages

ROOT = Path(__file__).resolve().parent.parent
KRMLIB = ROOT / "krmlib"
SURFACES = {"krmlib": KRMLIB / "__init__.py", "krmlib.packages": KRMLIB / "packages.py"}
BLOCK_HEAD = "if TYPE_CHECKING:  # generated from _WHERE: tests/test_public_surface.py --write"


def _table(path: Path) -> dict[str, str]:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if isinstance(target, ast.Name) and target.id == "_WHERE":
                assert node.value is not None
                table: dict[str, str] = ast.literal_eval(node.value)
                return table
    raise AssertionError(f"{path}: no _WHERE table")


def _block(path: Path) -> ast.If:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            return node
    raise AssertionError(f"{path}: no `if TYPE_CHECKING:` block")


def _generated(table: dict[str, str]) -> str:
    by_module: dict[str, list[str]] = {}
    for name, module in table.items():
        by_module.setdefault(module, []).append(name)
    lines = [BLOCK_HEAD]
    for module in sorted(by_module):
        names = ", ".join(f"{n} as {n}" for n in sorted(by_module[module]))
        lines.append(f"    from .{module} import {names}")
    return "\n".join(lines) + "\n"


def write() -> None:
    """Rewrite each surface's type-checking imports from its table (then `ruff format`)."""
    for path in SURFACES.values():
        node = _block(path)
        lines = path.read_text().splitlines(keepends=True)
        lines[node.lineno - 1 : node.end_lineno] = [_generated(_table(path))]
        path.write_text("".join(lines))
    subprocess.run([sys.executable, "-m", "ruff", "format", *map(str, SURFACES.values())])


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_the_type_checking_imports_are_the_table(surface: str) -> None:
    path = SURFACES[surface]
    table = _table(path)
    imported = {}
    for node in _block(path).body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.unparse(node)
        for alias in node.names:
            assert alias.asname == alias.name, f"{alias.name}: `X as X` re-exports it"
            imported[alias.name] = node.module
    assert imported == table, "run: python tests/test_public_surface.py --write"


def test_the_tables_are_the_surfaces() -> None:
    assert krmlib.__all__ == list(krmlib._WHERE)
    assert krmlib.packages.__all__ == list(krmlib.packages._WHERE)
    assert len(krmlib.__all__) <= 60
    assert set(krmlib.__all__).isdisjoint(krmlib.packages.__all__)
    for module in (krmlib, krmlib.packages):
        for name in module.__all__:
            assert getattr(module, name) is not None  # every name loads
        assert set(module.__all__) <= set(dir(module))
        missing = "nope"
        with pytest.raises(AttributeError, match="no attribute 'nope'"):
            getattr(module, missing)


def test_every_packages_name_is_documented() -> None:
    readme = (KRMLIB / "README.md").read_text()
    undocumented = [
        n for n in krmlib.packages.__all__ if not re.search(rf"`[^`]*\b{n}\b[^`]*`", readme)
    ]
    assert undocumented == []


@pytest.mark.parametrize("name", sorted({*krmlib._MOVED, *krmlib.packages.__all__}))
def test_a_name_that_left_krmlib_loads_with_a_warning(name: str) -> None:
    where, advice = krmlib._MOVED.get(name, ("packages", "import it from krmlib.packages"))
    assert name not in krmlib.__all__
    with pytest.warns(
        DeprecationWarning, match=rf"krmlib\.{name} is deprecated \({re.escape(advice)}\)"
    ):
        value = getattr(krmlib, name)
    home = __import__(f"krmlib.{where}", fromlist=[name])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(home, name) is value
    assert f"`{name}`" in (ROOT / "CHANGELOG.md").read_text()
    exec_globals: dict[str, object] = {}
    with pytest.warns(DeprecationWarning):
        exec(f"from krmlib import {name}", exec_globals)
    assert exec_globals[name] is value


def test_the_top_level_is_small_and_every_module_short() -> None:
    entries = sorted(
        p.name
        for p in KRMLIB.iterdir()
        if p.name != "__pycache__" and p.suffix not in (".so", ".pyd")  # built, not sources
    )
    assert len(entries) <= 12, entries
    sizes = {
        str(p.relative_to(ROOT)): len(p.read_text().splitlines())
        for p in KRMLIB.rglob("*.py")
        if "templates" not in p.parts
    }
    assert {p: n for p, n in sizes.items() if n > 600} == {}


def test_one_privacy_convention() -> None:
    """Private is a `_` in the path: `krmlib._model.object`; inside a private sub-package the
    modules have plain names, and krmlib's top level holds public modules and private
    sub-packages only."""
    for path in KRMLIB.iterdir():
        if path.suffix in (".so", ".pyd"):
            continue  # a built extension (its source is under sdk/)
        if path.suffix == ".py" and path.name != "__init__.py":
            assert not path.name.startswith("_"), (
                f"{path.name}: private modules go in a sub-package"
            )
        if path.is_dir() and path.name != "__pycache__":
            assert path.name.startswith("_"), f"{path.name}: a sub-package is private"
            for module in path.glob("*.py"):
                assert module.name == "__init__.py" or not module.name.startswith("_"), module


def test_no_function_imports_a_private_module_even_for_type_checking() -> None:
    import grimp

    graph = grimp.build_graph("krmfn", "krmlib", exclude_type_checking_imports=False)
    found = sorted(
        (module, imported)
        for module in graph.find_children("krmfn") | graph.find_descendants("krmfn")
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.startswith("krmlib._")
    )
    assert found == []


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        sys.exit("usage: python tests/test_public_surface.py --write")
