"""krmfn-merger as a function: kpt fn render (package-path), --help, the config forms."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from krmfn.merger.config import Config
from krmfn.merger.process import process
from krmlib import ResourceList, parse_config
from krmlib.testing import run_kpt

from .kpt_packages import assert_render_changes_nothing, render

SCRIPT = str(Path(sys.executable).parent / "krmfn-merger")

KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: child
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
  - exec: krmfn-merger
    configPath: merge.yaml
"""

CONFIG = """\
apiVersion: krmfn.dev/v1alpha1
kind: Merge
metadata:
  name: merge
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  fromPackage: true
  files: [../inputs/topology.yaml]
"""

RESOURCES = """\
apiVersion: workload.plugin.nephio.org/v1alpha1
kind: Namespace
metadata:
  name: smf
spec:
  labels:
    team: core # kept
"""

INPUTS = """\
apiVersion: workload.plugin.nephio.org/v1alpha1
kind: Namespace
metadata:
  name: smf1
  annotations:
    nephio.org/rename: smf
    nephio.org/prepare: Postpone
spec:
  labels:
    site: edge1
---
apiVersion: free5gc.plugin.nephio.org/v1alpha1
kind: SMF
metadata:
  name: free5gc-smf
  annotations:
    nephio.org/prepare: Here
    nephio.org/prepared: "true"
spec:
  dnn: internet
"""


@pytest.mark.kpt
def test_render_resolves_files_against_the_package_folder(tmp_path: Path) -> None:
    pkg = tmp_path / "child"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE)
    (pkg / "merge.yaml").write_text(CONFIG)
    (pkg / "namespace.yaml").write_text(RESOURCES)
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "topology.yaml").write_text(INPUTS)
    # the parent is a package too: ../inputs lies inside the package tree, where reads may go
    (tmp_path / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: tree\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()  # kpt runs exec functions in its own working folder, not the package's
    render(pkg, cwd=elsewhere)
    assert (pkg / "namespace.yaml").read_text() == (
        "apiVersion: workload.plugin.nephio.org/v1alpha1\nkind: Namespace\nmetadata:\n"
        "  name: smf\n  annotations:\n    nephio.org/prepare: Here\nspec:\n  labels:\n"
        "    team: core # kept\n    site: edge1\n"
    )
    assert (pkg / "smf_free5gc-smf.yaml").read_text() == (
        "apiVersion: free5gc.plugin.nephio.org/v1alpha1\nkind: SMF\nmetadata:\n"
        "  name: free5gc-smf\n  annotations:\n    nephio.org/prepare: Never\n"
        '    nephio.org/prepared: "true"\nspec:\n  dnn: internet\n'
    )
    assert_render_changes_nothing(pkg, cwd=elsewhere)


@pytest.mark.kpt
def test_render_fails_on_a_missing_file_and_changes_nothing(tmp_path: Path) -> None:
    pkg = tmp_path / "child"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE)
    (pkg / "merge.yaml").write_text(CONFIG)
    (pkg / "namespace.yaml").write_text(RESOURCES)
    done = run_kpt(["fn", "render", "--allow-exec", str(pkg)], cwd=tmp_path)
    assert done.returncode != 0
    assert "merge file '../inputs/topology.yaml' not found in the package folder" in (
        done.stdout + done.stderr
    )
    assert (pkg / "namespace.yaml").read_text() == RESOURCES


def test_configmap_form_coerces_from_package() -> None:
    rl = ResourceList.parse(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\n"
        'data:\n  files: a.yaml, b.yaml\n  from-package: "true"\n'
    )
    config = parse_config(Config, rl.items[0])
    assert config.files == ["a.yaml", "b.yaml"]
    assert config.from_package is True
    assert config.resources == []


def test_no_inputs_is_a_warning_and_changes_nothing() -> None:
    rl = ResourceList.parse(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
    )
    process(rl, Config())
    assert [r.message for r in rl.results] == [
        "nothing to merge: spec.resources and spec.files are empty"
    ]
    assert not rl.items[0].changed
