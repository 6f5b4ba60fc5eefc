"""Session-wide pytest hooks."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say how many bad inputs the corpus test tried (works under xdist: counts reports)."""
    runs = [
        report
        for key in ("passed", "failed")
        for report in terminalreporter.stats.get(key, [])
        if getattr(report, "when", "") == "call" and "test_bad_input[" in report.nodeid
    ]
    if runs:
        from tests.test_bad_inputs import CASES, FUNCTIONS

        terminalreporter.write_line(
            f"bad-input corpus: {len(CASES)} inputs x {len(FUNCTIONS)} functions, "
            f"{len(runs)} runs ({sum(r.passed for r in runs)} passed)"
        )
