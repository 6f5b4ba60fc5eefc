"""The commands of the registry exist and explain themselves: --help (usage, flags, then the
function's README), --version, `krmfn help`, suggestions for a mistyped command or flag; the
console scripts and catalog metadata match the registry."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from krmfn import __version__
from krmfn.registry import BY_NAME, FUNCTIONS, Function

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
NAMES = [f.name for f in FUNCTIONS]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False)


def test_umbrella_help_lists_every_function_and_command() -> None:
    done = _run(str(BIN / "krmfn"), "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: krmfn ")
    assert all(f"  {name} " in done.stdout for name in NAMES)
    assert "prepare-all" in done.stdout and "deployment create" in done.stdout


def test_version_is_the_projects() -> None:
    assert __version__ == PYPROJECT["project"]["version"]
    done = _run(str(BIN / "krmfn"), "--version")
    assert (done.returncode, done.stdout) == (0, f"krmfn {__version__}\n")


@pytest.mark.parametrize("name", NAMES)
def test_function_version(name: str) -> None:
    done = _run(str(BIN / f"krmfn-{name}"), "--version")
    assert (done.returncode, done.stdout) == (0, f"krmfn-{name} {__version__}\n")
    assert _run(str(BIN / "krmfn"), name, "--version").stdout == done.stdout


@pytest.mark.parametrize("name", NAMES)
def test_help_is_usage_then_the_readme(name: str) -> None:
    readme = BY_NAME[name].docs()
    done = _run(str(BIN / f"krmfn-{name}"), "--help")
    assert done.returncode == 0, done.stderr
    head, sep, docs = done.stdout.partition("\n\n# ")
    assert sep, done.stdout[:400]
    assert head.startswith(f"usage: krmfn-{name} [-h] [--version] [--fn-config FILE]")
    assert all(flag in head for flag in ("--fn-config FILE", "--output FORMAT", "--version"))
    assert "# " + docs == readme  # the README as `kpt fn doc` would show it, whole
    for umbrella in (["krmfn", name, "--help"], ["krmfn", "help", name]):
        assert _run(str(BIN / umbrella[0]), *umbrella[1:]).stdout == done.stdout


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (["krmfn", "aplyset-labeler"], "did you mean 'applyset-labeler'?"),
        (["krmfn", "prepare-al"], "did you mean 'prepare-all'?"),
        (["krmfn-merger", "--fn-confg", "x.yaml"], "did you mean '--fn-config'?"),
        (["krmfn-merger", "--verison"], "did you mean '--version'?"),
    ],
)
def test_a_mistyped_command_suggests_the_right_one(args: list[str], suggestion: str) -> None:
    done = _run(str(BIN / args[0]), *args[1:])
    assert done.returncode == 2 and done.stdout == ""
    assert suggestion in done.stderr


def test_console_scripts_and_packages_follow_the_registry() -> None:
    scripts = PYPROJECT["project"]["scripts"]
    assert scripts == {
        "krmfn": "krmfn.cli:main",
        # krmfn.start turns the collector off before the function's modules load (issue 37)
        **{f.script: f"krmfn.start:{f.name.replace('-', '_')}" for f in FUNCTIONS},
    }
    packages = PYPROJECT["tool"]["setuptools"]["packages"]
    assert all(f.package in packages for f in FUNCTIONS)


@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
def test_catalog_metadata(function: Function) -> None:
    """The kpt catalog's metadata.yaml shape: absolute URLs into this version's tree."""
    meta = yaml.safe_load((function.folder / "metadata.yaml").read_text())
    assert meta["image"] == f"ghcr.io/krmfn/{function.name}:v{__version__}"  # never latest
    assert meta["license"] == PYPROJECT["project"]["license"]["text"] == "Apache-2.0"
    assert meta["description"] and "mutator" in meta["tags"]
    tree = f"{PYPROJECT['project']['urls']['Source']}/tree/v{__version__}/"
    assert meta["sourceURL"] == tree + str(function.folder.relative_to(ROOT))
    assert meta["examplePackageURLs"]
    for url in meta["examplePackageURLs"]:
        assert url.startswith(tree) and (ROOT / url.removeprefix(tree) / "Kptfile").exists(), url
