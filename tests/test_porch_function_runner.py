"""examples/porch-function-runner: krmfn functions as binaries in Porch's function runner.

Follows nephio-project/porch 74d82d569e3745235ce34a7db71fa7e958c508ff:
api/porchconfig/v1alpha1/config.porch.kpt.dev_functionconfigs.yaml (the CRD, vendored as
testdata/crds/config.porch.kpt.dev_FunctionConfig_v1alpha1.json),
controllers/functionconfigs/reconciler/functionconfigreconciler.go (``UpdateBinaryCache``,
``generateRegexPattern``, ``GetBinaryFromCache``: image name, prefix, tag → path),
pkg/util/util.go (``GetImageName``, ``GetImageRepository``) and
func/internal/executableevaluator.go (the path run with no arguments, stdin → stdout).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from krmfn.registry import FUNCTIONS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "porch-function-runner" / "functionconfigs.yaml"
CRD = ROOT / "testdata" / "crds" / "config.porch.kpt.dev_FunctionConfig_v1alpha1.json"
VERSION = "v0.2.0"


def _configs() -> list[dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all(EXAMPLE.read_text(encoding="utf-8")) if d]
    assert all(isinstance(d, dict) for d in docs)
    return docs


def _binary_for(image: str, configs: list[dict[str, Any]]) -> str | None:
    """Porch's lookup: the image's name picks the FunctionConfig, its repository must match a
    prefix, its tag a binaryExecutor tag."""
    name_tag = image.rsplit(":", 1) if image.rfind(":") > image.rfind("/") else [image, ""]
    name, tag = name_tag[0], name_tag[1]
    short = name.rsplit("/", 1)[-1]
    repository = name.rsplit("/", 1)[0] if "/" in name else ""
    for config in configs:
        spec = config["spec"]
        if spec["image"] != short or "binaryExecutor" not in spec:
            continue
        pattern = "^(?:" + "|".join(re.escape(p) for p in spec.get("prefixes", [])) + ")"
        if re.match(pattern, repository) and tag in spec["binaryExecutor"]["tags"]:
            return str(spec["binaryExecutor"]["path"])
    return None


def test_every_function_config_is_valid_against_porchs_crd() -> None:
    validator = jsonschema.Draft7Validator(json.loads(CRD.read_text(encoding="utf-8")))
    configs = _configs()
    assert len(configs) == len(FUNCTIONS)
    for config in configs:
        assert config["apiVersion"] == "config.porch.kpt.dev/v1alpha1"
        assert config["kind"] == "FunctionConfig"
        errors = [e.message for e in validator.iter_errors(config)]
        assert not errors, (config["metadata"]["name"], errors)


def test_the_crd_rejects_what_porch_rejects() -> None:
    """The vendored schema is not vacuous: a binaryExecutor without tags is refused."""
    validator = jsonschema.Draft7Validator(json.loads(CRD.read_text(encoding="utf-8")))
    bad = {
        "apiVersion": "config.porch.kpt.dev/v1alpha1",
        "kind": "FunctionConfig",
        "metadata": {"name": "x"},
        "spec": {"image": "x", "binaryExecutor": {"path": "/x"}},
    }
    assert list(validator.iter_errors(bad))


@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
def test_each_image_resolves_to_its_console_script(function: Any) -> None:
    configs = _configs()
    path = _binary_for(f"ghcr.io/krmfn/{function.name}:{VERSION}", configs)
    assert path == f"/usr/local/bin/{function.script}"
    assert _binary_for(f"ghcr.io/krmfn/{function.name}:v9.9.9", configs) is None  # → pod
    assert _binary_for(f"ghcr.io/other/{function.name}:{VERSION}", configs) is None
    readme = (function.folder / "README.md").read_text(encoding="utf-8")
    assert f"ghcr.io/krmfn/{function.name}:{VERSION}" in readme


@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
def test_the_script_runs_as_porchs_executable_evaluator_runs_it(function: Any) -> None:
    """No arguments, the ResourceList on stdin, the ResourceList on stdout, exit 0."""
    script = Path(sys.executable).parent / function.script
    assert script.is_file()
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: pkg\n"
        "    annotations:\n      config.kubernetes.io/local-config: 'true'\n"
        "      config.kubernetes.io/path: Kptfile\n"
    )
    if function.name == "applyset-labeler":  # a namespaced parent needs a namespace
        text += (
            "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n"
            "  data:\n    parent-namespace: default\n"
        )
    done = subprocess.run(
        [str(script)],
        input=text,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000"},
    )
    assert done.returncode == 0, done.stderr
    out = yaml.safe_load(done.stdout)
    assert out["kind"] == "ResourceList"
