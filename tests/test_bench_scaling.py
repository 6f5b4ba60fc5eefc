"""bench/scaling.py's report (issue 37, item 5): the verdict per row and its block in
RESULTS.md, kept when bench/run.py rewrites the file. Nothing here measures anything."""

from __future__ import annotations

from pathlib import Path

import yaml

from bench import run, scaling


def _results(small: float, large: float) -> dict[int, scaling.Result]:
    return {
        scaling.SMALL: scaling.Result(small, 30_000_000, 6_000_000),
        scaling.LARGE: scaling.Result(large, 150_000_000, 60_000_000),
    }


def test_a_ratio_above_the_limit_is_flagged() -> None:
    text = scaling.render({"merger": _results(0.4, 3.6), "preparer": _results(0.5, 40.0)}, 3)
    assert "| merger | 0.40 | 3.60 | 9.0 | 5.00x | 2.50x | linear |" in text
    assert "| preparer | 0.50 | 40.00 | 80.0 | 5.00x | 2.50x | SUPERLINEAR |" in text
    assert text.startswith("<!-- scaling: begin") and text.endswith("<!-- scaling: end -->\n")


def test_the_block_is_replaced_in_place_and_kept_by_bench_run(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# report\n")
    first = scaling.render({"merger": _results(0.4, 3.6)}, 3)
    scaling.write_block(results, first)
    assert results.read_text() == "# report\n\n" + first
    second = scaling.render({"merger": _results(0.4, 4.0)}, 3)
    scaling.write_block(results, second)
    assert results.read_text() == "# report\n\n" + second
    run.write_report(results, "# new report\n")
    assert results.read_text() == "# new report\n\n" + second


def test_the_waiting_sites_workload_is_a_resource_list_of_sites() -> None:
    rl = yaml.safe_load(scaling._waiting_sites(3))
    assert rl["kind"] == "ResourceList"
    assert [i["metadata"]["name"] for i in rl["items"]] == [
        "site-000000",
        "site-000001",
        "site-000002",
    ]
    assert {i["kind"] for i in rl["items"]} == {"Site"}
