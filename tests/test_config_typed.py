"""Config records as the type checker sees them: ``mypy --strict`` rejects an unknown field, a
missing required one and a value of the wrong type in a record's constructor
(``typing.dataclass_transform`` on :class:`krmlib.Record`), and accepts correct ones.

mypy runs on small files of our own, with the real krmlib and a real function's config.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy is a dev dependency")

ROOT = Path(__file__).resolve().parent.parent

GOOD = """\
from krmfn.topology_to_pvs.config import Config, WaitRule
from krmlib import Field, Record


class Port(Record):
    name: str
    number: int = Field(default=80, ge=1)
    tags: list[str] = []
    labels: dict[str, str] = Field(default_factory=dict, alias="matchLabels")


port = Port(name="http", number=8080, tags=["a"], matchLabels={"a": "b"})
number: int = port.number
rule = WaitRule(waiter="smf", waitsFor="upf")
config = Config(waitRules=(rule,))
"""

BAD = """\
from krmfn.topology_to_pvs.config import WaitRule
from krmlib import Field, Record


class Port(Record):
    name: str
    number: int = Field(default=80, ge=1)
    tags: list[str] = []


Port(nmae="http")  # line 11: unknown field
Port(name=80)  # line 12: wrong type
Port(name="http", tags="a")  # line 13: a string is not a list
WaitRule(waiter="smf", waitsFor="dns")  # line 14: not one of the literals
port = Port(name="http")
port.number = 2  # line 16: frozen
"""


def _mypy(tmp_path: Path, files: dict[str, str]) -> dict[str, list[tuple[int, str]]]:
    """Errors per file, as (line, message), from one run of ``mypy --strict`` over ``files``."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cache = str(tmp_path / "cache")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", cache]
        + [str(tmp_path / name) for name in files],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode in (0, 1), run.stderr
    found: dict[str, list[tuple[int, str]]] = {name: [] for name in files}
    for line in run.stdout.splitlines():
        match = re.fullmatch(r".*/([^/]+\.py):(\d+): error: (.*)", line)
        if match:
            found[match[1]].append((int(match[2]), match[3]))
    return found


def test_mypy_accepts_correct_records_and_rejects_wrong_fields(tmp_path: Path) -> None:
    found = _mypy(tmp_path, {"good.py": GOOD, "bad.py": BAD})
    assert found["good.py"] == []
    bad = found["bad.py"]
    assert (11, 'Unexpected keyword argument "nmae" for "Port"  [call-arg]') in bad, bad
    assert any(line == 12 and "incompatible type" in msg for line, msg in bad), bad
    assert any(line == 13 and '"list[str]"' in msg for line, msg in bad), bad
    assert any(line == 14 and "Literal" in msg for line, msg in bad), bad
    assert any(line == 16 and "read-only" in msg for line, msg in bad), bad
    assert {line for line, _ in bad} == {11, 12, 13, 14, 16}, bad
