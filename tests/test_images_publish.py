"""Publishing the images, without a registry: the CI recipe, `make push`'s arguments, the
registry form in the catalog metadata, the Kptfile rewrite to registry images.

The registry round trip itself (docker-registry on loopback, `make push`, kpt pulling
through podman, the arm64 images under emulation) is `make e2e-images`
(scripts/images/e2e-registry.sh); these tests run in `make test`.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from krmfn.registry import FUNCTIONS

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts" / "images"
WORKFLOW = ROOT / ".github" / "workflows" / "publish.yml"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _make_targets() -> set[str]:
    """The explicit targets of the Makefile and mk/*.mk (rules `name:`, not variables)."""
    targets: set[str] = set()
    for mk in [ROOT / "Makefile", *sorted((ROOT / "mk").glob("*.mk"))]:
        for m in re.finditer(r"^([A-Za-z0-9][A-Za-z0-9_. -]*):(?![=:])", mk.read_text(), re.M):
            targets.update(t for t in m.group(1).split() if not t.startswith("."))
    return targets


def _make_default(name: str) -> str:
    m = re.search(rf"^{name} \?= (\S+)$", (ROOT / "mk" / "images.mk").read_text(), re.M)
    assert m is not None, f"mk/images.mk sets no default for {name}"
    return m.group(1)


def test_the_publish_workflow_runs_only_make_targets_that_exist() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    targets = _make_targets()
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs, "the workflow runs nothing"
    used = []
    for run in runs:
        words = shlex.split(run)
        # As root, with the runner's environment and PATH (its Python, kpt from kpt-install).
        if words[:4] == ["sudo", "-E", "env", "PATH=$PATH"]:
            words = words[4:]
        assert "\n" not in run.strip() and words[0] == "make", f"not a make target: {run!r}"
        names = [w for w in words[1:] if "=" not in w and not w.startswith("-")]
        assert len(names) == 1, f"one target a step: {run!r}"
        assert names[0] in targets, f"{run!r}: no target {names[0]!r} in the Makefile"
        used.append(names[0])
    # The steps CI runs here, then the publication itself.
    for target in ["test", "e2e-images", "push", "qemu-setup"]:
        assert target in used
    assert used.index("test") < used.index("e2e-images") < used.index("push")
    # Nothing but the project's own steps and GitHub's checkout/python/artifact actions.
    for step in steps:
        if "uses" in step:
            assert step["uses"].split("@")[0] in {
                "actions/checkout",
                "actions/setup-python",
                "actions/upload-artifact",
            }, step["uses"]
    assert workflow["permissions"]["packages"] == "write"


def test_ci_runs_the_image_end_to_end_after_the_tests() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.index("make test") < ci.index("make e2e-images")
    # The image end-to-end covers the registry round trip and arm64.
    e2e = (ROOT / "mk" / "images.mk").read_text().split("\ne2e-images:")[1]
    assert "e2e-all.sh" in e2e
    stage = (SCRIPTS / "e2e-all.sh").read_text()
    assert stage.index("e2e-images.sh") < stage.index("e2e-registry.sh")


@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
def test_the_catalog_metadata_names_the_default_registry(function: object) -> None:
    """metadata.yaml's image is `<REGISTRY>/krmfn/<fn>:vX.Y.Z` with `make push`'s default
    registry, and the README shows that form and how to push elsewhere."""
    from krmfn import __version__

    name = str(function)
    folder = ROOT / "krmfn" / name.replace("-", "_")
    meta = yaml.safe_load((folder / "metadata.yaml").read_text())
    image = f"{_make_default('REGISTRY')}/krmfn/{name}:v{__version__}"
    assert meta["image"] == image
    readme = (folder / "README.md").read_text()
    assert f"`{image}`" in readme
    assert "make push REGISTRY=" in readme and f"<registry>/krmfn/{name}:v" in readme


def test_make_push_refuses_a_registry_with_a_scheme() -> None:
    done = subprocess.run(
        ["bash", str(SCRIPTS / "push-images.sh"), "https://ghcr.io", "/dev/null"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "REGISTRY must be host[:port][/path] without a scheme" in done.stderr


def test_make_push_needs_podman_for_manifest_lists() -> None:
    done = subprocess.run(
        ["bash", str(SCRIPTS / "push-images.sh"), "127.0.0.1:5000", "/dev/null"],
        env={"PATH": "/usr/bin:/bin", "KRMFN_CONTAINER_TOOL": "docker"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and "needs podman" in done.stderr


def test_pipelines_are_rewritten_to_registry_images(tmp_path: Path) -> None:
    to_image = _load("to_image")
    sub = tmp_path / "sub"
    sub.mkdir()
    (tmp_path / "Kptfile").write_text(
        "pipeline:\n  mutators:\n  - exec: krmfn-merger   # merge\n"
        '    configPath: m.yaml\n  - exec: "krmfn applyset-labeler"\n'
        "  - image: gcr.io/kpt-fn/set-labels:v0.2\n"
    )
    (sub / "Kptfile").write_text("pipeline:\n  validators:\n    - exec: krmfn-merger --x\n")
    bad = to_image.rewrite(
        tmp_path, "127.0.0.1:5000/krmfn", "v1.2.3", {"merger", "applyset-labeler"}
    )
    assert (tmp_path / "Kptfile").read_text() == (
        "pipeline:\n  mutators:\n  - image: 127.0.0.1:5000/krmfn/merger:v1.2.3   # merge\n"
        "    configPath: m.yaml\n  - image: 127.0.0.1:5000/krmfn/applyset-labeler:v1.2.3\n"
        "  - image: gcr.io/kpt-fn/set-labels:v0.2\n"
    )
    # A function with arguments cannot be an image: named, file and line, and left alone.
    assert bad == [f"{sub / 'Kptfile'}:3: cannot run as an image: - exec: krmfn-merger --x"]
    assert "exec: krmfn-merger --x" in (sub / "Kptfile").read_text()


def test_the_registry_check_names_what_is_missing(tmp_path: Path) -> None:
    """registry_check.py against a port where no registry answers: every reference is
    reported missing and it exits 1 (the passing case is the e2e's real registry)."""
    digests = tmp_path / "digests.txt"
    digests.write_text("# none\n")
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPTS / "registry_check.py"),
            "127.0.0.1:9",
            str(digests),
            "1.2.3",
            "abc",
            "amd64",
            "arm64",
            "--",
            "merger",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    for tag in ["v1.2.3", "v1.2", "v1"]:
        assert f"127.0.0.1:9/krmfn/merger:{tag}: not in the registry" in done.stderr
    assert "DIGESTS lists" in done.stderr


def test_every_image_gets_the_oci_labels_as_literal_values() -> None:
    """function-base sets source, version and licenses; build-images.sh gives each image its
    title, description and revision as literal LABEL text (podman's layer cache keys a LABEL
    step on its text as written: from a build argument or `--label`, a cached image would
    keep an older commit's revision), then the function's target lines (its ENTRYPOINT)."""
    dockerfile = (ROOT / "Dockerfiles" / "Dockerfile").read_text()
    base = dockerfile.split("AS function-base\n")[1].split("\nFROM ")[0]
    for key, arg in {"source": "SOURCE", "version": "VERSION"}.items():
        assert f'org.opencontainers.image.{key}="${{{arg}}}"' in base
    assert 'org.opencontainers.image.licenses="Apache-2.0"' in base
    build = (SCRIPTS / "build-images.sh").read_text()
    for key in ["title", "description", "revision"]:
        assert f"LABEL org.opencontainers.image.{key}=%s" in build or (
            f"      org.opencontainers.image.{key}=%s" in build
        )
        assert f'"org.opencontainers.image.{key}=' in build  # the manifest annotation
    assert '--label "' not in build and "--target function-base" in build
