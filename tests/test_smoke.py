"""The console scripts exist and answer."""

import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def test_umbrella_help() -> None:
    done = subprocess.run([str(BIN / "krmfn"), "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "prepare-all" in done.stdout
