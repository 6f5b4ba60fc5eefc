"""The instruction-count check (bench/instructions.py): its arithmetic, and a real run under
callgrind at a small size against the committed counts (bench/instructions.json).

The real run takes about a minute of CPU (every function at 1 and 100 items under callgrind); it
skips where valgrind is missing (``make valgrind`` installs it) or where the counts were recorded
with another Python, libyaml or valgrind (they would not compare).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import instructions  # noqa: E402

# The preparer's regression since the last release, as this check counts it (bench/instructions.py
# --root on a worktree of each commit, this machine's environment): 0.2.0 (71ec0ca) and main
# before issue 37 (d56a5e0), at 1,000 items.
RELEASE_0_2_0 = 1_159_429_102
MAIN_BEFORE_ISSUE_37 = 1_441_083_162


def result(per_size: dict[str, int], bare: int = 39_000_000) -> dict[str, object]:
    return {"bare": bare, "functions": {"preparer": per_size}}


def test_scaled_is_linear_from_the_smallest_and_largest_size() -> None:
    assert instructions.scaled({"1": 100, "1000": 1099}) == 100 + 9999
    assert instructions.scaled({"1": 100, "100": 5, "1000": 1099}) == 100 + 9999
    assert instructions.scaled({"1": 100}) is None


def test_the_check_fails_above_five_percent_only() -> None:
    baseline = result({"1": 1000, "1000": 100_000})
    assert instructions.check(result({"1": 1050, "1000": 100_000}), baseline) == []
    assert instructions.check(result({"1": 900, "1000": 90_000}), baseline) == []
    failures = instructions.check(result({"1": 1000, "1000": 105_001}), baseline)
    assert failures[0].startswith("preparer at 1,000 items: 105,001 instructions, +5.0% over")
    assert failures[1].startswith("preparer per item (1 to 1,000 items): 104 instructions, +5.1%")
    [interpreter] = instructions.check(result({}, bare=41_000_000), baseline)
    assert interpreter.startswith("python -c pass: 41,000,000 instructions")


def test_the_check_catches_the_preparers_regression_since_the_release() -> None:
    failures = instructions.check(
        result({"1000": MAIN_BEFORE_ISSUE_37}), result({"1000": RELEASE_0_2_0})
    )
    assert failures == [
        "preparer at 1,000 items: 1,441,083,162 instructions, +24.3% over the baseline's "
        "1,159,429,102"
    ]


def test_a_costlier_item_fails_even_when_start_up_got_cheaper() -> None:
    # 0.2.0 started up heavier (pydantic): at 100 items the total hides a costlier item
    baseline = result({"1": 700_000_000, "100": 800_000_000})
    now = result({"1": 200_000_000, "100": 320_000_000})  # 1.21 M an item instead of 1.01 M
    failures = instructions.check(now, baseline)
    assert failures == [
        "preparer per item (1 to 100 items): 1,212,121 instructions, +20.0% over the "
        "baseline's 1,010,101"
    ]


def test_the_table_reports_start_up_per_item_and_the_scaled_count() -> None:
    lines = instructions.table(result({"1": 40_000_000, "1000": 1_039_000_000}), None)
    assert lines[2] == "| preparer | 1.0 M | 1000 k | 10.04 G | no baseline |"


def test_a_baseline_from_another_environment_is_not_compared() -> None:
    baseline = json.loads(instructions.BASELINE.read_text())
    other = {**baseline, "environment": {**baseline["environment"], "python": "2.7.18"}}
    assert "python '2.7.18' here" in instructions.comparable(other)


def test_the_committed_baseline_has_every_function_at_the_checked_sizes() -> None:
    baseline = json.loads(instructions.BASELINE.read_text())
    assert set(baseline["functions"]) == set(instructions.FUNCTIONS)
    for per_size in baseline["functions"].values():
        assert {"1", "100", "1000"} <= set(per_size)


@pytest.mark.kpt  # the benchmark's inputs are kpt fn source of the generated packages
def test_instruction_counts_are_within_five_percent_of_the_release(tmp_path: Path) -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (make valgrind)")
    why = instructions.comparable(json.loads(instructions.BASELINE.read_text()))
    if why:
        pytest.skip(f"bench/instructions.json was recorded elsewhere: {why}")
    out = tmp_path / "counts.json"
    code = instructions.main(["--sizes", "1,100", "--check", "--json", str(out)])
    counts = json.loads(out.read_text())
    assert code == 0, counts


def test_the_section_replaces_the_one_in_the_report(tmp_path: Path) -> None:
    report = tmp_path / "RESULTS.md"
    report.write_text("# krmfn benchmark\n\ntable\n")
    counts = result({"1": 40_000_000, "1000": 1_039_000_000})
    instructions.write_section(instructions.section(counts, None), report)
    instructions.write_section(instructions.section(counts, None), report)
    text = report.read_text()
    assert text.count(instructions.BEGIN) == 1
    assert text.startswith("# krmfn benchmark\n\ntable\n\n" + instructions.BEGIN)
    assert "| preparer | 1.0 M | 1000 k | 10.04 G | no baseline |" in text
