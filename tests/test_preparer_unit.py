"""Rules of krmfn-preparer that goldens do not show well."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from krmfn.preparer import Config, process
from krmfn.preparer.catalog import CatalogEntry
from krmfn.preparer.topology import child_folders
from krmfn.tko import cap_label, slug
from krmlib import KrmError, KubeObject, ResourceList, parse_config_value

WIDGET = """apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: example.com/v1
  kind: Widget
  metadata:
    name: w1
"""


def run_with(plugin: dict[str, object], text: str = WIDGET) -> ResourceList:
    config = parse_config_value(
        Config, {"plugins": [{"apiVersion": "example.com/v1", "kind": "Widget", **plugin}]}
    )
    rl = ResourceList.parse(text)
    process(rl, config)
    return rl


def messages(rl: ResourceList) -> list[str]:
    return [r.message for r in rl.results]


def test_timeout_is_an_error_naming_plugin_and_target() -> None:
    rl = run_with({"exec": "sleep 5", "timeout": 0.3})
    assert rl.results.has_errors
    assert any("timed out after 0.3s" in m and "Widget/w1" in m for m in messages(rl))


def test_output_that_is_not_a_resourcelist_is_an_error() -> None:
    rl = run_with({"exec": "echo hello"})
    assert rl.results.has_errors
    assert any("bad output" in m for m in messages(rl))


def test_missing_program_is_an_error() -> None:
    rl = run_with({"exec": "./no/such/plugin.py"})
    assert any("not found" in m for m in messages(rl))


def test_python_plugin_unknown_entry_point() -> None:
    rl = run_with({"python": "no-such-preparer"})
    assert any("no entry point 'no-such-preparer'" in m for m in messages(rl))


def test_python_plugin_that_waits_keeps_package_unprepared() -> None:
    rl = run_with({"python": "tests.test_preparer_unit:never_done"})
    widget = rl.items.first(kind="Widget")
    deployment = rl.items.first(kind="Deployment")
    assert widget is not None and deployment is not None
    assert "nephio.org/prepared" not in widget.annotations
    assert "nephio.org/prepared" not in deployment.annotations
    assert messages(rl) == ["not yet"]


def never_done(ctx: object) -> object:
    from krmfn.preparer import PluginContext

    assert isinstance(ctx, PluginContext)
    return ctx.wait("not yet")


def test_plugin_needs_exactly_one_runner() -> None:
    with pytest.raises(KrmError, match="exactly one"):
        parse_config_value(
            Config,
            {"plugins": [{"apiVersion": "a/v1", "kind": "K", "exec": "x", "python": "m:f"}]},
        )
    with pytest.raises(KrmError):
        parse_config_value(Config, {"maxIterations": 0})


def test_catalog_package_is_left_alone(tmp_path: Path) -> None:
    pkg = tmp_path / "catalog" / "templates" / "t"
    pkg.mkdir(parents=True)
    text = WIDGET.replace(
        "    name: w1\n",
        f"    name: w1\n    annotations:\n"
        f"      internal.config.kubernetes.io/package-path: '{pkg}'\n",
    )
    rl = ResourceList.parse(text)
    process(rl, parse_config_value(Config, {"catalog": "catalog"}))
    assert len(rl.items) == 1
    assert any("a catalog package" in m for m in messages(rl))


def test_metadata_patterns_match_whole_values() -> None:
    entry = CatalogEntry("x", {"Site.region": "bangalore"}, list)
    assert entry.matches({"Site.region": "bangalore"})
    assert entry.matches({"Site.region": "bang*"})
    assert entry.matches({"Site.region": "*lore"})
    assert not entry.matches({"Site.region": "bang"})
    assert not entry.matches({"Site.region": "b.ngalore"})
    assert not entry.matches({"Site.cloud": "*"})


def test_child_folder_names_are_slugs() -> None:
    assert slug("in/bangalore/1") == "in-bangalore-1"
    assert slug("Lab_1") == "lab-1"


def test_long_child_names_are_cut_with_a_hash() -> None:
    assert cap_label("a" * 63) == "a" * 63
    long = "a-" + "region-site-" * 22
    capped = cap_label(long)
    assert len(capped) == 63
    assert capped == long[:54] + "-" + hashlib.sha1(long.encode()).hexdigest()[:8]
    assert cap_label(long + "x") != capped


def test_clashing_child_names_get_a_hash_of_the_site() -> None:
    folders = child_folders([("a", "lab/1"), ("a", "lab-1"), ("a", "edge"), ("a", "lab/1")])
    assert folders[("a", "edge")] == "a-edge"  # no clash: the plain name
    first, second = folders[("a", "lab/1")], folders[("a", "lab-1")]
    assert first != second
    assert first.startswith("a-lab-1-") and second.startswith("a-lab-1-")
    assert len(first) == len(second) == len("a-lab-1-") + 8
    # order-independent: the same names whichever pair comes first
    assert child_folders([("a", "lab-1"), ("a", "lab/1")])[("a", "lab/1")] == first
    # a clash across the template/site boundary
    across = child_folders([("a-b", "c"), ("a", "b-c")])
    assert len(set(across.values())) == 2


def test_untouched_items_keep_their_text() -> None:
    text = WIDGET + (
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c   # keep me\n"
        "  data:\n    on: 'yes'\n"
    )
    rl = ResourceList.parse(text)
    process(rl, Config())
    config_map = rl.items.first(kind="ConfigMap")
    assert isinstance(config_map, KubeObject)
    assert not config_map.changed
    assert "name: c   # keep me" in rl.to_yaml()


CHAIN = """apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: tko.nephio.org/v1alpha1
  kind: Template
  metadata:
    name: smf-template
    labels: {nf: smf}
    annotations:
      config.kubernetes.io/local-config: "true"
  spec:
    templateId: nf/smf
    package:
      resources:
      - {apiVersion: kpt.dev/v1, kind: Kptfile, metadata: {name: smf}}
- apiVersion: deployment.nephio.org/v1alpha1
  kind: Deployment
  metadata:
    name: deployment
  spec: {templateId: nf/smf, siteId: lab}
- apiVersion: topology.nephio.org/v1alpha1
  kind: Template
  metadata: {name: t}
  spec: {TEMPLATE}
- apiVersion: topology.nephio.org/v1alpha1
  kind: Site
  metadata: {name: s}
  spec: {siteId: edge}
- apiVersion: topology.nephio.org/v1alpha1
  kind: Placement
  metadata: {name: cu}
  spec:
    templates:
    - {template: t, sites: [s]}
"""


@pytest.mark.parametrize(
    "template", ["{templateId: nf/smf}", "{select: {metadata: {nf: smf}}}"], ids=["id", "select"]
)
def test_a_deployment_that_places_its_own_template_is_an_error(template: str) -> None:
    rl = ResourceList.parse(CHAIN.replace("{TEMPLATE}", template))
    process(rl, Config())
    errors = [r for r in rl.results if r.severity.value == "error"]
    (error,) = errors
    assert "template nf/smf places itself" in error.message
    assert error.resource_ref is not None and error.resource_ref["name"] == "cu"
    assert error.field_path == "spec.templates[0].template"
    assert not any("/" in (o.path or "") for o in rl.items), "no child written"
