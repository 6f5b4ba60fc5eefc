"""The console scripts exist, answer --help with their README, and each has catalog metadata."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ["interface-expander", "preparer", "merger", "topology-to-pvs", "applyset-labeler"]


def test_umbrella_help() -> None:
    done = subprocess.run([str(BIN / "krmfn"), "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "prepare-all" in done.stdout


@pytest.mark.parametrize("function", FUNCTIONS)
def test_help_is_the_readme(function: str) -> None:
    readme = (ROOT / "functions" / function.replace("-", "_") / "README.md").read_text()
    done = subprocess.run(
        [str(BIN / f"krmfn-{function}"), "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == readme.strip()
    umbrella = subprocess.run(
        [str(BIN / "krmfn"), function, "--help"], capture_output=True, text=True
    )
    assert umbrella.stdout == done.stdout


@pytest.mark.parametrize("function", FUNCTIONS)
def test_catalog_metadata(function: str) -> None:
    meta = yaml.safe_load(
        (ROOT / "functions" / function.replace("-", "_") / "metadata.yaml").read_text()
    )
    assert meta["image"] == f"localhost/krmfn/{function}:v0.1.0"  # semver tag, never latest
    assert meta["license"] == "Apache-2.0" and meta["description"] and "mutator" in meta["tags"]
    assert all((ROOT / path).exists() for path in meta["examplePackageURLs"])
    assert (ROOT / meta["sourceURL"]).is_dir()
