"""What Porch refuses or stalls on, transcribed as rules of krmfn-topology-to-pvs.

Sources (nephio-project/porch 74d82d569e3745235ce34a7db71fa7e958c508ff):
- controllers/packagevariantsets/pkg/controllers/packagevariantset/packagevariantset_controller.go
  (``unrollDownstreamTargets``: the selector goes through ``metav1.LabelSelectorAsSelector``, an
  error stalls the set; one PackageVariant per target object, downstream repository = its name);
- .../packagevariantset/render.go (``renderPackageVariantSpec``: downstream package =
  ``template.downstream.package`` or the upstream's; "repository %q could not be loaded");
- pkg/engine/engine.go (``validateCloneTask``: no clone into a repository that has the package);
- pkg/util/util.go (``ValidateK8SName``, ``ValidateDirectoryName``: DNS-1123 labels).
Kubernetes' name rules as Porch pins them (k8s.io/apimachinery v0.34.1,
pkg/util/validation/validation_test.go ``TestIsQualifiedName``, ``TestIsValidLabelValue``,
``TestIsDNS1123Label``): the good and bad values below are that test's.
The golden cases error-clone-collision, error-selector-label-rules,
object-selector-no-repository and error-downstream-package-names show the results whole.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from krmfn.topology_to_pvs import Config, process
from krmfn.topology_to_pvs.downstream import package_problem
from krmfn.topology_to_pvs.labelselector import check_selector, may_overlap
from krmfn.topology_to_pvs.naming import name_problem
from krmlib import ResourceList
from krmlib.testing import kpt_source, run_resource_list

TESTDATA = Path(__file__).resolve().parent.parent / "testdata" / "topology-to-pvs"

GOOD_KEYS = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "1234",
    "simple/simple",
    "now-with-dashes/simple",
    "now-with-dashes/now-with-dashes",
    "now.with.dots/simple",
    "now-with.dashes-and.dots/simple",
    "1-num.2-num/3-num",
    "1234/5678",
    "1.2.3.4/5678",
    "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123",
    "requests.storage-foo",
    "a" * 63,
    "a" * 253 + "/" + "b" * 63,
]
BAD_KEYS = [
    "nospecialchars%^=@",
    "cantendwithadash-",
    "-cantstartwithadash-",
    "only/one/slash",
    "Example.com/abc",
    "example_com/abc",
    "example.com/",
    "/simple",
    "a" * 64,
    "a" * 254 + "/abc",
]
GOOD_VALUES = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "end-with-num-1",
    "1234",
    "a" * 63,
    "",
]
BAD_VALUES = [
    "nospecialchars%^=@",
    "Tama-nui-te-rā.is.Māori.sun",
    "\\backslashes\\are\\bad",
    "-starts-with-dash",
    "ends-with-dash-",
    ".starts.with.dot",
    "ends.with.dot.",
    "a" * 64,
    "edge site",
]
GOOD_LABELS = ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "a" * 63]
BAD_LABELS = ["", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a",
              "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a",
              "a b", "1 ", " 1", "1 2", "a" * 64, "UPF_Lab1"]  # fmt: skip


@pytest.mark.parametrize("key", GOOD_KEYS)
def test_good_label_keys(key: str) -> None:
    assert name_problem("label-key", key) is None


@pytest.mark.parametrize("key", BAD_KEYS)
def test_bad_label_keys(key: str) -> None:
    problem = name_problem("label-key", key)
    assert problem is not None and "is not a label key" in problem


@pytest.mark.parametrize("value", GOOD_VALUES)
def test_good_label_values(value: str) -> None:
    assert name_problem("label-value", value) is None


@pytest.mark.parametrize("value", BAD_VALUES)
def test_bad_label_values(value: str) -> None:
    assert name_problem("label-value", value) is not None


@pytest.mark.parametrize("name", GOOD_LABELS)
def test_good_dns_labels_are_package_names(name: str) -> None:
    assert name_problem("dns-label", name) is None
    assert package_problem(name) is None


@pytest.mark.parametrize("name", BAD_LABELS)
def test_bad_dns_labels_are_refused_package_names(name: str) -> None:
    assert name_problem("dns-label", name) is not None
    assert package_problem(name) is not None


def test_package_names_may_have_a_path() -> None:
    """ValidateDirectoryName: '/' allowed, '//' not, 63 characters without the '/'."""
    assert package_problem("nfs/upf-1") is None
    assert package_problem("nfs//upf-1") is not None
    assert package_problem("a" * 32 + "/" + "b" * 31) is None
    assert package_problem("a" * 32 + "/" + "b" * 32) is not None


def test_selector_problems_name_the_field() -> None:
    problems = check_selector(
        {
            "matchLabels": {"nephio.org/site-type": "edge site", "site code": "lab1"},
            "matchExpressions": [{"key": "r", "operator": "NotIn", "values": ["ok", "not ok"]}],
        },
        "spec.nfInstances[0].clusterSelector",
    )
    fields = [field for field, _ in problems]
    assert fields == [
        'spec.nfInstances[0].clusterSelector.matchLabels["nephio.org/site-type"]',
        'spec.nfInstances[0].clusterSelector.matchLabels["site code"]',
        "spec.nfInstances[0].clusterSelector.matchExpressions[0].values[1]",
    ]
    assert all("Porch cannot parse this selector" in message for _, message in problems)


def _labels(**labels: str) -> dict[str, dict[str, str]]:
    return {"matchLabels": labels}


def _expr(key: str, operator: str, *values: str) -> dict[str, list[dict[str, object]]]:
    expr: dict[str, object] = {"key": key, "operator": operator}
    if values:
        expr["values"] = list(values)
    return {"matchExpressions": [expr]}


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        (_labels(cluster="edge-1"), _labels(cluster="edge-2"), False),
        (_labels(cluster="edge-1"), _labels(region="west"), True),
        (_labels(cluster="edge-1"), _expr("cluster", "In", "edge-1", "edge-2"), True),
        (_labels(cluster="edge-1"), _expr("cluster", "In", "edge-2"), False),
        (_labels(cluster="edge-1"), _expr("cluster", "NotIn", "edge-1"), False),
        (_labels(cluster="edge-1"), _expr("cluster", "NotIn", "edge-2"), True),
        (_labels(cluster="edge-1"), _expr("cluster", "DoesNotExist"), False),
        (_expr("cluster", "Exists"), _expr("cluster", "DoesNotExist"), False),
        (_expr("cluster", "In", "a", "b"), _expr("cluster", "In", "b", "c"), True),
        (_expr("cluster", "In", "a"), _expr("cluster", "In", "b"), False),
        (_expr("cluster", "NotIn", "a"), _expr("cluster", "DoesNotExist"), True),
    ],
)
def test_selectors_that_may_overlap(
    a: dict[str, object], b: dict[str, object], overlap: bool
) -> None:
    assert may_overlap(a, b) is overlap
    assert may_overlap(b, a) is overlap


# --- whole runs on the golden inputs ------------------------------------------------------------


def _run(package: Path, config: str = "") -> tuple[ResourceList, int]:
    config_path = None
    if config:
        config_path = package.parent / "config.yaml"
        config_path.write_text(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: function-input}}\ndata: {config}\n"
        )
    rl = run_resource_list(process, Config, kpt_source(package, config_path))
    return rl, (1 if rl.results.has_errors else 0)


def _copy(tmp_path: Path) -> Path:
    package = tmp_path / "package"
    shutil.copytree(TESTDATA / "error-clone-collision" / "package", package)
    return package


def _names(rl: ResourceList, severity: str) -> set[str]:
    """Objects with results of ``severity`` (not the classes' revision-pin warning, issue 38)."""
    return {
        (r.resource_ref or {}).get("name", "")
        for r in rl.results
        if r.severity.value == severity and "ignores upstream.revision" not in r.message
    }


def test_distinct_downstream_packages_resolve_the_collision(tmp_path: Path) -> None:
    """The error-clone-collision inputs with downstreamPackage {topology}-{instance}: one package
    name per instance, so every clone is accepted and every set is written."""
    rl, code = _run(_copy(tmp_path), '{downstream-package: "{topology}-{instance}"}')
    assert code == 0, [r.message for r in rl.results]
    packages = sorted(
        str(o.get("spec.targets[0].template.downstream.package"))
        for o in rl.items
        if o.kind == "PackageVariantSet"
    )
    assert packages == ["core-smf", "east-upf", "lab-upf", "west-upf-edge", "west-upf-west"]


def test_without_repositories_equal_selectors_are_an_error_and_overlaps_a_warning(
    tmp_path: Path,
) -> None:
    """No Repository inputs: selectors that may overlap get a warning (east and lab; west's
    two); lab's selector written as east's is an error on both."""
    package = _copy(tmp_path)
    (package / "repositories.yaml").unlink()
    rl, code = _run(package)
    assert code == 0, [r.message for r in rl.results if r.severity.value == "error"]
    assert _names(rl, "warning") == {"west", "east", "lab"}
    topologies = package / "topologies.yaml"
    text = topologies.read_text()
    lab = "matchLabels: {nephio.org/site-type: edge, nephio.org/region: us-east1}"
    assert lab in text
    topologies.write_text(text.replace(lab, "matchLabels: {nephio.org/region: us-east1}"))
    rl, code = _run(package)
    assert code == 1
    errors = [r for r in rl.results if r.severity.value == "error"]
    assert _names(rl, "error") == {"east", "lab"}
    assert all("every repository their (equal) selectors match" in r.message for r in errors)


def test_other_namespaces_never_collide(tmp_path: Path) -> None:
    """A Repository, and so a package name, belongs to one namespace (Porch lists them in the
    set's namespace only): lab moved to another namespace no longer collides with east."""
    package = _copy(tmp_path)
    topologies = package / "topologies.yaml"
    text = topologies.read_text()
    topologies.write_text(
        text.replace("  name: lab\n  namespace: default", "  name: lab\n  namespace: other")
    )
    rl, _ = _run(package)
    assert _names(rl, "error") == {"west"}


@pytest.mark.parametrize("rule", ["dns-label", "dns-subdomain", "label-key", "label-value"])
def test_a_trailing_newline_is_refused(rule: str) -> None:
    """Go's ``$`` (no multi-line flag) matches only at the end of the text: ``abc\\n`` is no
    label, key or value for Kubernetes, so not for us either."""
    problem = name_problem(rule, "abc\n")
    assert problem is not None and problem.startswith("'abc\\n'")
