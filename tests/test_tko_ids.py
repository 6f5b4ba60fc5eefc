"""TKO's escaped ids: what its Kubernetes API writes, read wherever the preparer reads an id.

Sources (nephio-experimental/tko 5973960c0cd3038aa27f68e8719cc57e375a6950): the escape is
``util/kubernetes-names.go`` (ToKubernetesName, FromKubernetesName), used by
``api/kubernetes-server/templates.go``, ``sites.go`` and ``deployments.go`` for object names and
labels; the pairs below are KRM.md's examples, and the inline catalog items are
``examples/kubernetes/templates.yaml`` and ``sites.yaml`` (their package trimmed to the Namespace).
"""

from __future__ import annotations

import pytest

from krmfn.preparer import Config, process
from krmfn.tko import from_kubernetes_name, id_forms, to_kubernetes_name
from krmlib.testing import run_resource_list

PAIRS = [
    ("demo/hello-world:v1.0.0", "demo-002fhello-002dworld-003av1.0.0"),  # KRM.md
    ("validate|free5gc/smf", "validate-007cfree5gc-002fsmf"),  # KRM.md, a plugin id
    ("site/gdce:v1.0.0", "site-002fgdce-003av1.0.0"),  # KRM.md
    ("GDC-E", "GDC-002dE"),  # KRM.md, a label value
    ("k8s/hello:v1.0.0", "k8s-002fhello-003av1.0.0"),  # examples/kubernetes/templates.yaml
    ("k8s/lab1", "k8s-002flab1"),  # examples/kubernetes/sites.yaml
    ("Site.region", "Site.region"),  # letters, digits and '.' are kept
]


@pytest.mark.parametrize(("text", "name"), PAIRS)
def test_ids_escape_and_unescape_as_tko_does(text: str, name: str) -> None:
    assert to_kubernetes_name(text) == name
    assert from_kubernetes_name(name) == text


@pytest.mark.parametrize("name", ["k8s-00", "k8s-zzzz", "trailing-"])
def test_a_malformed_escape_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="malformed"):
        from_kubernetes_name(name)


def test_too_long_names_are_refused() -> None:
    with pytest.raises(ValueError, match="too long"):
        to_kubernetes_name("/" * 51)  # 51 x 5 = 255 characters


def test_names_tko_could_not_have_written_stay_as_written() -> None:
    """An escape of a letter, digit, '.' or a control character is never TKO's."""
    assert id_forms("edge-0001") == ("edge-0001",)
    assert id_forms("lab-0041") == ("lab-0041",)
    assert id_forms("GDC-E") == ("GDC-E",)
    assert id_forms("k8s-002flab1") == ("k8s-002flab1", "k8s/lab1")


PACKAGE = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata: {name: topology}
- apiVersion: tko.nephio.org/v1alpha1
  kind: Template
  metadata:
    name: k8s-002fhello-003av1.0.0 # k8s/hello:v1.0.0
    labels: {m1: hello, m2: world, Site.cloud: GDC-002dE}
    annotations: {config.kubernetes.io/local-config: "true"}
  spec:
    package:
      resources:
      - apiVersion: v1
        kind: Namespace
        metadata: {name: hello-world}
- apiVersion: tko.nephio.org/v1alpha1
  kind: Site
  metadata:
    name: k8s-002flab1 # k8s/lab1
    labels: {m1: hello, m2: world}
    annotations: {config.kubernetes.io/local-config: "true"}
- apiVersion: topology.nephio.org/v1alpha1
  kind: Template
  metadata: {name: by-name}
  spec: {templateId: k8s-002fhello-003av1.0.0}
- apiVersion: topology.nephio.org/v1alpha1
  kind: Template
  metadata: {name: by-label}
  spec: {select: {metadata: {Site.cloud: GDC-E}}}
- apiVersion: topology.nephio.org/v1alpha1
  kind: Site
  metadata: {name: lab}
  spec: {siteId: k8s-002flab1}
- apiVersion: topology.nephio.org/v1alpha1
  kind: Placement
  metadata: {name: hello}
  spec:
    templates:
    - {template: by-name, sites: [lab]}
"""


def test_escaped_ids_and_labels_resolve_to_the_catalog_ids() -> None:
    rl = run_resource_list(process, Config, PACKAGE)
    assert not rl.results.has_errors, [r.message for r in rl.results]
    by_name = {(o.kind, o.name): o for o in rl.items if o.api_version.startswith("topology.")}
    assert by_name["Template", "by-name"].get("status.templateId") == "k8s/hello:v1.0.0"
    assert by_name["Template", "by-label"].get("status.templateId") == "k8s/hello:v1.0.0"
    assert by_name["Site", "lab"].get("status.siteId") == "k8s/lab1"
    children = [
        o
        for o in rl.items
        if o.kind == "Deployment" and o.api_version.startswith("deployment.nephio.org")
    ]
    specs = [(c.get("spec.templateId"), c.get("spec.siteId")) for c in children]
    assert ("k8s/hello:v1.0.0", "k8s/lab1") in specs
