"""Session-wide pytest hooks."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

# Property tests are reproducible in CI (a fixed seed per test); explore with
# HYPOTHESIS_PROFILE=explore for fresh random examples on every run; HYPOTHESIS_PROFILE=full
# for fresh examples and the long runs of tests that read it (the corruption property).
# No deadline: our machines are noisy (a loaded CI core made a 40 ms example take 310 ms), and
# a test's speed is measured as ratios in the bench, never as a time limit.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.register_profile("full", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True, scope="session")
def _reproducible_time() -> Iterator[None]:
    """Deletion timestamps and the like come from SOURCE_DATE_EPOCH in every test."""
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
    yield
    if saved is None:
        os.environ.pop("SOURCE_DATE_EPOCH", None)
    else:
        os.environ["SOURCE_DATE_EPOCH"] = saved


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
