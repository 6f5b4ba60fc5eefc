"""`make demo` renders every example with real kpt and shows what changed (the main job)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.kpt
def test_demo_renders_every_example() -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", str(ROOT / "examples" / "demo.sh")], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    examples = sorted(p.name for p in (ROOT / "examples").iterdir() if (p / "Kptfile").exists())
    assert examples
    for name in examples:
        assert f"=== examples/{name}:" in done.stdout
    assert done.stdout.count("files changed") >= len(examples)
