"""Placements that nest without end through two or more templates (issue 35, item 3): nf/a's
package places nf/b, whose package places nf/a. Before, each ``prepare-all`` run wrote 16 more
nested deployment packages and stopped with "still changing after 16 passes"; now the first pass
refuses it, naming the cycle, and writes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent

KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: {name}
  annotations:
    config.kubernetes.io/local-config: "true"
    {catalog_id}
pipeline:
  mutators:
  - image: krmfn-preparer
    configPath: preparer.yaml
"""
PREPARER = """\
apiVersion: krmfn.dev/v1alpha1
kind: Preparer
metadata:
  name: preparer
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  catalog: {catalog}
"""
TOPOLOGY = """\
apiVersion: topology.nephio.org/v1alpha1
kind: Template
metadata:
  name: t
spec:
  templateId: {places}
---
apiVersion: topology.nephio.org/v1alpha1
kind: Site
metadata:
  name: s
spec:
  siteId: edge
---
apiVersion: topology.nephio.org/v1alpha1
kind: Placement
metadata:
  name: p
spec:
  templates:
  - template: t
    sites: [s]
"""
DEPLOYMENT = """\
apiVersion: deployment.nephio.org/v1alpha1
kind: Deployment
metadata:
  name: deployment
spec:
  templateId: {template}
"""


def _package(folder: Path, name: str, catalog: str, places: str, catalog_id: str = "") -> None:
    folder.mkdir(parents=True)
    annotation = f"catalog.nephio.org/id: {catalog_id}" if catalog_id else ""
    (folder / "Kptfile").write_text(KPTFILE.format(name=name, catalog_id=annotation))
    (folder / "preparer.yaml").write_text(PREPARER.format(catalog=catalog))
    (folder / "topology.yaml").write_text(TOPOLOGY.format(places=places))


def tree(tmp_path: Path, cycle: list[str], top: str) -> Path:
    """A catalog whose templates place each other along ``cycle`` (the last places the first),
    a site ``edge``, and a deployment package of template ``top`` placing ``cycle[0]``."""
    root = tmp_path / "tree"
    for index, template in enumerate(cycle):
        following = cycle[(index + 1) % len(cycle)]
        name = template.split("/")[-1]
        _package(root / f"catalog/templates/{name}", name, "../..", following, template)
    site = root / "catalog/sites/edge"
    site.mkdir(parents=True)
    (site / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: edge\n  annotations:\n"
        '    config.kubernetes.io/local-config: "true"\n    catalog.nephio.org/id: edge\n'
    )
    _package(root / "deployments/top", "top", "../../catalog", cycle[0])
    (root / "deployments/top/deployment.yaml").write_text(DEPLOYMENT.format(template=top))
    return root


@pytest.mark.parametrize(
    ("cycle", "top", "named"),
    [
        (["nf/a", "nf/b"], "nf/b", "nf/b -> nf/a -> nf/b"),
        (["nf/a", "nf/b"], "nf/top", "nf/a -> nf/b -> nf/a"),
        (["nf/a", "nf/b", "nf/c"], "nf/top", "nf/a -> nf/b -> nf/c -> nf/a"),
    ],
    ids=["through-its-own-template", "two-templates", "three-templates"],
)
def test_a_placement_cycle_is_named_and_nothing_is_written(
    tmp_path: Path, cycle: list[str], top: str, named: str
) -> None:
    root = tree(tmp_path, cycle, top)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    done = subprocess.run(
        [str(BIN / "krmfn"), "prepare-all", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert f"templates place each other in a cycle: {named}" in done.stdout
    assert "Traceback" not in done.stderr
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before  # no child written
