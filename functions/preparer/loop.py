"""The preparation loop of one package: passes over the preparable resources to a fixpoint."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from krmlib import KrmError, KubeObject, ResourceList, read_roots

from .catalog import TKO_API, Catalog, load_catalog
from .client import DataClient
from .config import Config, PluginSpec
from .package import (
    ANN_PREPARED,
    DEPLOYMENT_FILE,
    PackageView,
    find_deployment,
    is_prepared,
    new_deployment,
    prepare_mode,
)
from .plugins import Plugin, PluginContext, load_python, properties_of, resolve_upward, run_exec
from .topology import BUILTINS, DEFAULT_REGISTRATIONS, check_placements

GVK = tuple[str, str]
Waits = dict[tuple[str, str, str], tuple[KubeObject, str]]


class Registry:
    """Plugins by (apiVersion, kind): built-in topology preparers, then the config's."""

    def __init__(self, config: Config) -> None:
        self.specs: dict[GVK, PluginSpec] = {
            gvk: PluginSpec.model_validate({"apiVersion": gvk[0], "kind": gvk[1], "builtin": b})
            for gvk, b in DEFAULT_REGISTRATIONS.items()
        }
        for spec in config.plugins:
            self.specs[spec.api_version, spec.kind] = spec
        self._loaded: dict[GVK, Plugin] = {}

    def spec_for(self, obj: KubeObject) -> PluginSpec | None:
        return self.specs.get((obj.api_version, obj.kind))

    def plugin(self, spec: PluginSpec) -> Plugin:
        key = (spec.api_version, spec.kind)
        if key not in self._loaded:
            if spec.builtin:
                self._loaded[key] = BUILTINS[spec.builtin]
            elif spec.python:
                self._loaded[key] = load_python(spec)
            else:
                self._loaded[key] = run_exec
        return self._loaded[key]

    def is_builtin_placement(self, obj: KubeObject) -> bool:
        """A preparable resource the built-in Placement preparer prepares."""
        spec = self.spec_for(obj)
        return spec is not None and spec.builtin == "placement" and self.is_preparable(obj)

    def is_preparable(self, obj: KubeObject) -> bool:
        return (
            self.spec_for(obj) is not None and not is_prepared(obj) and prepare_mode(obj) == "Here"
        )


def catalog_folder(config: Config, root: Path | None) -> Path | None:
    """The configured catalog folder: absolute as is; relative from the package folder upwards
    (without a package folder: from the working directory)."""
    if not config.catalog:
        return None
    if os.path.isabs(config.catalog):
        return Path(config.catalog)
    return resolve_upward(config.catalog, root)


def process(rl: ResourceList, config: Config) -> None:
    """Prepare the package: run plugins until nothing changes, then mark its Deployment."""
    view = PackageView.of(rl.items)
    own = view.own(rl.items)
    deployment = find_deployment(own)
    if deployment is not None and is_prepared(deployment):
        return
    folder = catalog_folder(config, view.root)
    if folder is not None and view.root is not None and view.root.is_relative_to(folder):
        rl.results.info(f"{view.root.name}: a catalog package, not prepared")
        return
    registry = Registry(config)
    inline = [o for o in own if o.group == TKO_API.split("/")[0]]
    catalog = load_catalog(folder, inline, rl.results, read_roots(view.root))
    if not check_placements(own, catalog, registry.is_builtin_placement, rl.results):
        return
    left = prepare(rl, config, registry, catalog)
    own = PackageView.of(rl.items).own(rl.items)
    deployment = find_deployment(own)
    if deployment is None:
        deployment = new_deployment()
        deployment.set_path(DEPLOYMENT_FILE)
        rl.items.append(deployment)
    if not left:
        deployment.annotations[ANN_PREPARED] = "true"


def prepare(
    rl: ResourceList, config: Config, registry: Registry, catalog: Catalog
) -> list[KubeObject]:
    """The passes; returns the resources left unprepared."""
    client = DataClient(catalog, rl.items, rl.results)
    waits: Waits = {}
    for _ in range(config.max_iterations):
        snapshot = _preparable(rl, registry)
        if not snapshot:
            return []
        before = _state(rl)
        failed = False
        waits.clear()
        for target in snapshot:
            current = _current(rl, target)
            if current is None or not registry.is_preparable(current):
                continue
            failed = not _run_one(rl, registry, client, current, waits) or failed
        if _state(rl) == before or failed:
            left = _preparable(rl, registry)
            _report_waits(rl, registry, waits)
            return left
    left = _preparable(rl, registry)
    if left:
        names = ", ".join(f"{o.kind}/{o.name}" for o in left)
        for obj in left:
            rl.results.error(
                f"not prepared after {config.max_iterations} passes (maxIterations): the "
                f"plugins keep changing the package; left: {names}",
                obj,
            )
    return left


def _preparable(rl: ResourceList, registry: Registry) -> list[KubeObject]:
    return [o for o in PackageView.of(rl.items).own(rl.items) if registry.is_preparable(o)]


def _state(rl: ResourceList) -> list[dict[str, Any]]:
    return [o.to_dict() for o in rl.items]


def _current(rl: ResourceList, target: KubeObject) -> KubeObject | None:
    """The target in the package now (a plugin may have replaced or removed it)."""
    for obj in rl.items:
        if obj is target:
            return obj
    view = PackageView.of(rl.items)
    file = None
    for obj in view.own(rl.items):
        if (obj.api_version, obj.kind, obj.name, obj.namespace) == (
            target.api_version,
            target.kind,
            target.name,
            target.namespace,
        ):
            file = obj
            break
    return file


def _report_waits(rl: ResourceList, registry: Registry, waits: Waits) -> None:
    """What the last pass waited for, on the resources still unprepared."""
    for obj, message in waits.values():
        current = _current(rl, obj)
        if current is not None and registry.is_preparable(current):
            rl.results.info(message, current)


def _run_one(
    rl: ResourceList, registry: Registry, client: DataClient, target: KubeObject, waits: Waits
) -> bool:
    """Run the target's plugin; mark it prepared unless it waits. False when the plugin failed."""
    spec = registry.spec_for(target)
    assert spec is not None
    if ANN_PREPARED in target.annotations:
        del target.annotations[ANN_PREPARED]
    ctx = PluginContext(
        items=rl.items,
        target=target,
        spec=spec,
        properties=properties_of(target, spec),
        results=rl.results,
        client=client,
        root=PackageView.of(rl.items).root,
        is_preparable=registry.is_preparable,
        waits=waits,
    )
    try:
        done = registry.plugin(spec)(ctx)
    except KrmError as exc:
        if exc.obj is None:
            exc.obj = target
        rl.results.from_error(exc)
        return False
    after = _current(rl, target)
    if after is None or done is False:
        return True
    if after.annotations.get(ANN_PREPARED) != "false":
        after.annotations[ANN_PREPARED] = "true"
    return True
