"""docs/durability.md states each promise once, as a bullet, and names the tests that hold it:
every bullet of its numbered sections names a test, and every test it names exists (in the file
it names, or in tests/test_durability*.py). A test renamed or removed fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "durability.md"
NAMED = re.compile(r"`(?:(tests/[\w/]+\.py)::)?(test_\w+)`")


def _defined(path: Path) -> set[str]:
    """The test functions of a file (its module's and its classes')."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


def missing(text: str, root: Path = ROOT) -> list[str]:
    """The tests ``text`` names that do not exist."""
    default = sorted((root / "tests").glob("test_durability*.py"))
    found: dict[Path, set[str]] = {}
    out = []
    for file, name in NAMED.findall(text):
        places = [root / file] if file else default
        for place in places:
            if place not in found:
                found[place] = _defined(place) if place.is_file() else set()
        if not any(name in found[place] for place in places):
            out.append(f"{file}::{name}" if file else name)
    return out


def promises(text: str) -> dict[str, list[str]]:
    """The bullets (a ``- `` line and its indented continuation) of each numbered section."""
    out: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:] if re.match(r"## \d+\. ", line) else ""
            if section:
                out[section] = []
        elif section and line.startswith("- "):
            out[section].append(line[2:])
        elif section and line.startswith("  ") and out[section]:
            out[section][-1] += " " + line.strip()
    return out


def test_every_test_the_doc_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert len(NAMED.findall(text)) > 30
    assert missing(text) == []


def test_every_promise_names_a_test() -> None:
    sections = promises(DOC.read_text(encoding="utf-8"))
    assert len(sections) == 7, list(sections)
    for section, bullets in sections.items():
        assert bullets, section
        for bullet in bullets:
            assert NAMED.search(bullet), f"{section}: names no test: {bullet[:80]}"


def test_the_checks_fail_on_a_test_that_does_not_exist() -> None:
    assert missing("`test_a_kill_during_approve_leaves_old_or_new`") == []
    assert missing("`test_no_such_promise_is_held`") == ["test_no_such_promise_is_held"]
    assert missing("`tests/test_durability.py::test_two_runs_at_once_never_both_write`") == [
        "tests/test_durability.py::test_two_runs_at_once_never_both_write"  # in another file
    ]
    doc = "## 1. A\n\n- **held** by `test_x`.\n- **not held**, a\n  promise alone.\n"
    assert [NAMED.search(b) is not None for b in promises(doc)["1. A"]] == [True, False]


def test_the_cost_section_survives_the_bench_rewrite(tmp_path: Path) -> None:
    """docs/durability.md states prepare-all's CPU across versions from bench/RESULTS.md's
    section written by scripts/durability/ab_cpu.py: bench/run.py keeps it."""
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench import run

    section = "<!-- durability: begin (x) -->\n| main | 8.18 |\n<!-- durability: end -->\n"
    results = tmp_path / "RESULTS.md"
    results.write_text("# old report\n\n" + section)
    run.write_report(results, "# new report\n")
    assert results.read_text().startswith("# new report\n")
    assert section in results.read_text()
    assert "<!-- durability: begin" in (ROOT / "bench" / "RESULTS.md").read_text()
