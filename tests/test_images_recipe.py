"""The image recipe without a container engine: tags, Dockerfile targets, the runner shim.

The images themselves are built and run by `make images` / `make e2e-images`
(scripts/images/); these tests check what those scripts rely on and what the
documentation promises, and run in `make test`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts" / "images"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


image_tags_mod = _load("image_tags")
sizes_md = _load("sizes_md")


def _pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


def _functions() -> list[str]:
    """Function names from the krmfn-<name> console scripts in pyproject.toml."""
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    return sorted(s[len("krmfn-") :] for s in project["scripts"] if s.startswith("krmfn-"))


@pytest.mark.parametrize(
    ("version", "tags"),
    [
        ("0.2.0", ["v0.2.0", "v0.2", "v0"]),
        ("1.14.3", ["v1.14.3", "v1.14", "v1"]),
        ("1.0.0-rc.1", ["v1.0.0-rc.1"]),
        ("1.0.0+build.7", ["v1.0.0_build.7"]),
    ],
)
def test_tags_of_a_version(version: str, tags: list[str]) -> None:
    assert image_tags_mod.image_tags(version) == tags


@pytest.mark.parametrize("version", ["0.2", "v0.2.0", "01.2.3", "0.2.0rc1", "latest", ""])
def test_a_version_that_is_not_semver_is_refused(version: str) -> None:
    with pytest.raises(ValueError, match="not semver"):
        image_tags_mod.image_tags(version)


def test_the_cli_prints_the_tags_of_the_project_version() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "image_tags.py"), str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        check=True,
    )
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    tags = done.stdout.split()
    assert tags == image_tags_mod.image_tags(project["version"])
    assert "latest" not in tags


def test_the_cli_names_the_file_and_value_of_a_bad_version(tmp_path: Path) -> None:
    bad = tmp_path / "pyproject.toml"
    bad.write_text('[project]\nname = "x"\nversion = "0.2"\n')
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "image_tags.py"), str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert str(bad) in done.stderr and "'0.2' is not semver" in done.stderr


def test_every_function_has_a_dockerfile_target_whose_entrypoint_is_its_script() -> None:
    text = (ROOT / "Dockerfiles" / "Dockerfile").read_text()
    targets = dict(
        re.findall(
            r"^FROM function-base AS (\S+)\n(?:.*\n)*?ENTRYPOINT \[\"([^\"]+)\"\]$",
            text,
            re.MULTILINE,
        )
    )
    assert sorted(targets) == _functions()
    for fn, entrypoint in targets.items():
        assert entrypoint == f"/opt/krmfn/bin/krmfn-{fn}"


def test_the_scripts_build_every_function_of_the_registry() -> None:
    """lib.sh's load_functions lists krmfn.registry's functions, with their summaries."""
    from krmfn.registry import FUNCTIONS

    done = subprocess.run(
        [
            "bash",
            "-c",
            'source scripts/images/lib.sh; load_functions; for f in "${KRMFN_FUNCTIONS[@]}"; do'
            ' printf "%s\\t%s\\n" "$f" "$(function_summary "$f")"; done',
        ],
        cwd=ROOT,
        env={**os.environ, "KRMFN_PY": sys.executable},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines() == [f"{f.name}\t{f.summary}" for f in FUNCTIONS]
    assert sorted(f.name for f in FUNCTIONS) == _functions()


def test_image_references_in_the_docs_use_the_tags_the_build_makes() -> None:
    """`localhost/krmfn/<fn>:<tag>` (a local build) or `ghcr.io/krmfn/<fn>:<tag>` (the
    default registry of `make push`) anywhere in the repository's docs and metadata names a
    function and a tag the build gives this version (not the old `:0.1.0`)."""
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    tags = set(image_tags_mod.image_tags(project["version"]))
    # An image of another architecture than the machine's is tagged <tag>-<arch> locally.
    tags |= {f"{tag}-arm64" for tag in tags}
    functions = set(_functions())
    files = subprocess.run(
        ["git", "ls-files", "*.md", "*.yaml", "*.yml", "*Kptfile", "*.sh", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # A record of the last build and the release history name the tags of their time.
    skip = {"Dockerfiles/SIZES.md", "CHANGELOG.md", "tests/test_images_recipe.py"}
    wrong = []
    for name in files:
        if name in skip or not (ROOT / name).is_file():
            continue
        text = (ROOT / name).read_text(errors="replace")
        for m in re.finditer(r"(?:localhost|ghcr\.io)/krmfn/([a-z0-9-]+):([A-Za-z0-9_.-]+)", text):
            fn, tag = m.groups()
            if fn not in functions or tag not in tags:
                line = text.count("\n", 0, m.start()) + 1
                wrong.append(f"{name}:{line}: {m.group(0)}")
    assert not wrong, f"image references not made by `make images` (tags {sorted(tags)}): {wrong}"


def test_a_sizes_section_is_replaced_and_the_rest_kept() -> None:
    text = "# Sizes\n\nby hand\n\n<!-- begin sizes -->\nold\n<!-- end sizes -->\n\ntail\n"
    new = sizes_md.replace_section(text, "sizes", "new table\n")
    assert (
        new == "# Sizes\n\nby hand\n\n<!-- begin sizes -->\nnew table\n<!-- end sizes -->\n\ntail\n"
    )
    appended = sizes_md.replace_section("# Sizes\n", "overhead", "rows")
    assert (
        appended
        == "# Sizes\n\n## overhead\n\n<!-- begin overhead -->\nrows\n<!-- end overhead -->\n"
    )


def test_the_runner_shim_puts_a_cluster_runners_flags_on_every_run(tmp_path: Path) -> None:
    fake = tmp_path / "podman"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do echo "$a"; done\n')
    fake.chmod(0o755)
    env = {**os.environ, "KRMFN_REAL_TOOL": str(fake)}
    shim = str(SCRIPTS / "runner-shim.sh")
    kpt_args = ["run", "--rm", "-i", "--network", "none", "--user", "nobody"]
    kpt_args += ["--security-opt=no-new-privileges", "--pull", "missing", "img:v1", "--help"]
    args = subprocess.run(
        [shim, *kpt_args], env=env, capture_output=True, text=True, check=True
    ).stdout.split("\n")[:-1]
    assert args[0] == "run"
    for flag in ["--read-only", "--read-only-tmpfs=false", "--network=none", "--cap-drop=ALL"]:
        assert flag in args
    assert "--user=65532:65532" in args
    assert "nobody" not in args and "--user" not in args and "--network" not in args
    assert args[-2:] == ["img:v1", "--help"]
    passthrough = subprocess.run(
        [shim, "image", "inspect", "img:v1"], env=env, capture_output=True, text=True, check=True
    )
    assert passthrough.stdout.split() == ["image", "inspect", "img:v1"]


@pytest.mark.skipif(shutil.which("podman") is None, reason="needs podman")
def test_the_registry_e2e_leaves_no_registry_name_in_podman(tmp_path: Path) -> None:
    """lib.sh's remove_registry_names (the registry e2e's exit): the registry's tags come off,
    an image named by the registry alone goes, one with a local name stays with that name."""
    registry = f"127.0.0.1:1/krmfn-test-{os.getpid()}-{os.urandom(3).hex()}"
    local = f"localhost/{registry.rsplit('/', 1)[1]}:built"
    (tmp_path / "f").write_text("x")

    def podman(*args: str) -> str:
        done = subprocess.run(["podman", *args], capture_output=True, text=True, check=True)
        return done.stdout

    built = []
    try:
        for name, kept in ((local, "/kept"), (f"{registry}/krmfn/pulled:v1", "/gone")):
            (tmp_path / "Containerfile").write_text(f"FROM scratch\nCOPY f {kept}\n")
            podman("build", "-q", "-t", name, str(tmp_path))
            built.append(podman("image", "inspect", "--format", "{{.Id}}", name).strip())
        podman("tag", local, f"{registry}/krmfn/built:v1", f"{registry}/krmfn/built:v0")
        podman("tag", f"{registry}/krmfn/pulled:v1", f"{registry}/krmfn/pulled:v0")
        subprocess.run(
            ["bash", "-c", f'source scripts/images/lib.sh; remove_registry_names "{registry}"'],
            cwd=ROOT,
            check=True,
        )
        names = podman("images", "--no-trunc", "--format", "{{.ID}} {{.Names}}")
        assert registry not in names
        assert f"sha256:{built[0]} [{local}]" in names.splitlines()
        assert built[1] not in names
    finally:
        for image in built:
            subprocess.run(["podman", "rmi", "--force", image], capture_output=True, check=False)


def test_the_c_check_probe_tells_which_check_a_function_ran(tmp_path: Path) -> None:
    """ccheck_probe.py's PROBE, which the image e2e runs in every image of both architectures,
    here in exec mode: the C check answers (this venv builds it), the Python check runs only
    with KRMLIB_PYTHON_CHECK=1, and the output is the function's either way."""
    probe = _load("ccheck_probe")
    picked = probe.pick_case("merger", tmp_path)
    assert picked is not None
    _case, rl, want = picked
    python = Path(sys.executable)
    code, out, err = probe.exec_probe(python, "merger", rl, tmp_path, {})
    assert (code, out, probe.probe_marks(err)) == (0, want, ["c answered"])
    forced = {"KRMLIB_PYTHON_CHECK": "1"}
    code, out, err = probe.exec_probe(python, "merger", rl, tmp_path, forced)
    assert (code, out, probe.probe_marks(err)) == (0, want, ["python"])
    # An input the C walk is unsure of (a tag): it says so, and the Python walk decides.
    tagged = rl.replace("kind: ResourceList", "kind: !!str ResourceList", 1)
    assert tagged != rl
    code, out, err = probe.exec_probe(python, "merger", tagged, tmp_path, {})
    assert probe.probe_marks(err) == ["c unsure", "python"]


def test_the_image_e2e_probes_the_c_check_in_both_architectures() -> None:
    local = (SCRIPTS / "e2e-images.sh").read_text()
    assert 'ccheck_probe.py --forced-python "localhost/krmfn/{fn}:$TAG"' in local
    registry = (SCRIPTS / "e2e-registry.sh").read_text()
    assert 'ccheck_probe.py "localhost/krmfn-e2e-$port/{fn}:arm64"' in registry
