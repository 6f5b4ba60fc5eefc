"""Rules of krmfn-preparer that goldens do not show well."""

from __future__ import annotations

from pathlib import Path

import pytest
from krmfn.preparer import Config, process
from krmfn.preparer.catalog import CatalogEntry
from krmfn.preparer.topology import slug

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


def never_done(ctx: object) -> bool:
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
    entry = CatalogEntry("x", {"Site.region": ["bangalore"]}, list)
    assert entry.matches({"Site.region": "bangalore"})
    assert entry.matches({"Site.region": "bang*"})
    assert entry.matches({"Site.region": "*lore"})
    assert not entry.matches({"Site.region": "bang"})
    assert not entry.matches({"Site.region": "b.ngalore"})
    assert not entry.matches({"Site.cloud": "*"})


def test_child_folder_names_are_slugs() -> None:
    assert slug("in/bangalore/1") == "in-bangalore-1"
    assert slug("Lab_1") == "lab-1"


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
