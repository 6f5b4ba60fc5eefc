"""`make demo` renders every example with real kpt and shows what changed (the main job)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _demo(verbose: str) -> tuple[str, str]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "V": verbose,
    }
    done = subprocess.run(
        ["bash", str(ROOT / "examples" / "demo.sh")], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


@pytest.mark.kpt
@pytest.mark.parametrize("verbose", ["", "1"], ids=["short", "V=1"])
def test_demo_renders_every_example(verbose: str) -> None:
    out, err = _demo(verbose)
    examples = sorted(p.name for p in (ROOT / "examples").iterdir() if (p / "Kptfile").exists())
    assert examples
    for name in examples:
        assert f"=== examples/{name}:" in out
    assert out.count("files changed") >= len(examples)
    if verbose:  # kpt's own output and the whole diffs
        assert "diff --git" in out and "Successfully executed" in err
    else:  # a summary per example: no diff, no kpt chatter, a pointer to V=1
        assert "diff --git" not in out and "Successfully executed" not in out + err
        assert "make demo V=1" in out
        assert len(out.splitlines()) < 120
