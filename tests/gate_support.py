"""What the output-gate tests share: the line of the author's code a message must name, and the
results of a run whose output must read back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from krmlib import KubeObject, ResourceList


def marked_line(path: str | Path, marker: str) -> int:
    """The 1-based line of ``path`` that carries the comment ``# <marker>``."""
    lines = Path(path).read_text().splitlines()
    found = re.compile(rf"# {re.escape(marker)}(\s|$)")
    return next(i for i, line in enumerate(lines, 1) if found.search(line))


def results_of(out: str) -> list[dict[str, Any]]:
    """The results of a run's output, which krmlib's own reader must accept."""
    ResourceList.parse(out)  # what was written reads back
    return list(KubeObject.from_yaml(out).get("results") or [])
