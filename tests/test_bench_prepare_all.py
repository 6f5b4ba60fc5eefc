"""bench/prepare_all.py: the generated tree, the report's verdicts and its RESULTS.md section
(nothing benchmarked here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import prepare_all as bench  # noqa: E402


def test_the_tree_adds_selected_sites(tmp_path: Path) -> None:
    tree = bench.make_tree(tmp_path / "t", 3)
    sites = sorted(p.name for p in (tree / "catalog/sites").iterdir() if p.name.startswith("gen"))
    assert sites == ["gen-0000", "gen-0001", "gen-0002"]
    site = (tree / "catalog/sites/gen-0001/site.yaml").read_text()
    assert "region: bangalore" in site and "cloud: GDC-E" in site


def test_report_verdicts() -> None:
    runs = [bench.Run(200, 200, 20.0, 1.0, 0, 2), bench.Run(1000, 1000, 120.0, 30.0, 0, 2)]
    text = bench.report(0.25, runs, full=True)
    assert "| T(1000) <= 0.5 x 1000 x B = 125.0 s | 120.0 s | met |" in text
    assert "| T(1000) / T(200) <= 5.5 (linear) | 6.00 | **not met** |" in text
    assert "rerun <= 15% of the first run | 25.0% at N=1000 | **not met** |" in text


def test_the_rerun_is_judged_at_the_biggest_size() -> None:
    """At 50 sites both runs are mostly start-up: the share is shown, the target is at 1000."""
    runs = [bench.Run(50, 50, 2.0, 0.6, 0, 2), bench.Run(1000, 1000, 20.0, 2.0, 0, 2)]
    text = bench.report(0.1, runs, full=True)
    assert "| 50 | 51 | 2.00 | 40 | 0.40 | 0.60 | 30.0% | 0 |" in text
    assert "| rerun <= 15% of the first run | 10.0% at N=1000 | met |" in text


def test_section_replaced_between_markers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# bench\n\nother\n")
    monkeypatch.setattr(bench, "RESULTS", results)
    bench.write_section(f"{bench.BEGIN}\none\n{bench.END}\n")
    bench.write_section(f"{bench.BEGIN}\ntwo\n{bench.END}\n")
    text = results.read_text()
    assert text.count(bench.BEGIN) == 1 and "two" in text and "one" not in text
    assert text.startswith("# bench\n\nother\n")
