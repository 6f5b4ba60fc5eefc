"""The preparation loop of one package: passes over the preparable resources to a fixpoint."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from krmfn.tko import (
    APPROVED,
    AUTO,
    HERE,
    MANUAL,
    PREPARED,
    TKO_API,
    TRUE,
    approve_mode,
    find_deployment,
    is_prepared,
    new_deployment,
    prepare_mode,
)
from krmlib import KrmError, KubeObject, ResourceList, read_roots

from .catalog import Catalog, load_catalog
from .client import DataClient
from .config import Config, PluginSpec
from .executors import run_image, run_krm, run_tko
from .package import PackageView
from .plugins import Outcome, Plugin, PluginContext, load_python, properties_of, resolve_upward
from .topology import BUILTINS, DEFAULT_REGISTRATIONS, check_placements
from .validation import validate_package

if TYPE_CHECKING:  # pathlib (urllib, ipaddress) where a path is made: not a start-up cost
    from pathlib import Path

GVK = tuple[str, str]
Identity = tuple[str, str, str, str]


class Registry:
    """Preparers by (apiVersion, kind), several per GVK, run in registration order: the
    built-in topology preparer first, then the config's in their order. A config entry naming
    the built-in (``builtin: placement``) puts it at that place instead."""

    def __init__(self, config: Config) -> None:
        self.specs: dict[GVK, list[PluginSpec]] = {}
        configured = {(s.api_version, s.kind) for s in config.plugins if s.builtin is not None}
        for gvk, builtin in DEFAULT_REGISTRATIONS.items():
            if gvk not in configured:
                spec = PluginSpec.model_validate(
                    {"apiVersion": gvk[0], "kind": gvk[1], "builtin": builtin}
                )
                self.specs[gvk] = [spec]
        for spec in config.plugins:
            if spec.plugin_type == "prepare":  # validate plugins run in .validation
                self.specs.setdefault((spec.api_version, spec.kind), []).append(spec)
        self._loaded: dict[int, Plugin] = {}

    def specs_for(self, obj: KubeObject) -> list[PluginSpec]:
        return self.specs.get((obj.api_version, obj.kind), [])

    def plugin(self, spec: PluginSpec) -> Plugin:
        key = id(spec)
        if key not in self._loaded:
            if spec.builtin:
                self._loaded[key] = BUILTINS[spec.builtin]
            elif spec.python:
                self._loaded[key] = load_python(spec)
            elif spec.image:
                self._loaded[key] = run_image
            elif spec.protocol == "tko":
                self._loaded[key] = run_tko
            else:
                self._loaded[key] = run_krm
        return self._loaded[key]

    def is_builtin_placement(self, obj: KubeObject) -> bool:
        """A preparable resource the built-in Placement preparer prepares."""
        return self.is_preparable(obj) and any(
            s.builtin == "placement" for s in self.specs_for(obj)
        )

    def is_preparable(self, obj: KubeObject) -> bool:
        """A preparer is registered, it is not prepared, and ``nephio.org/prepare`` is absent
        or ``Here`` (``""`` is not ``Here``, as in TKO)."""
        return bool(self.specs_for(obj)) and not is_prepared(obj) and prepare_mode(obj) == HERE


def catalog_folder(config: Config, root: Path | None) -> Path | None:
    """The configured catalog folder: absolute as is; relative from the package folder upwards
    (without a package folder: from the working directory)."""
    if not config.catalog:
        return None
    if os.path.isabs(config.catalog):
        from pathlib import Path  # a catalog named: not a start-up cost

        return Path(config.catalog)
    return resolve_upward(config.catalog, root)


def process(rl: ResourceList, config: Config) -> None:
    """Prepare the package: run plugins until nothing changes, then mark its Deployment
    prepared (and approved, unless it asks for manual approval)."""
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
    # the roots only check a catalog folder: without one, no path is made (pathlib, issue 37)
    roots = read_roots(view.root) if folder is not None else None
    catalog = load_catalog(folder, inline, rl.results, roots)
    if not check_placements(own, catalog, registry.is_builtin_placement, rl.results):
        return
    if any(plugin.python for plugin in config.plugins):
        rl.verify()  # a python plugin runs code here: never on input the whole-input check refuses
    # (exec and image plugins pass krmlib's gate in run_program, the built-in site preparer's
    # writes into the catalog in write_package)
    loop = Loop(rl, config, registry, catalog, folder)
    left = loop.run()
    view = PackageView.of(rl.items)
    own = view.own(rl.items)
    deployment = find_deployment(own)
    if deployment is None:
        deployment = new_deployment()
        rl.items.append(deployment)
    if left:
        return
    if not validate_package(rl, own, config):  # TKO validates a package becoming prepared
        return
    deployment.annotations[PREPARED] = TRUE
    if _approves(deployment, config):
        deployment.annotations[APPROVED] = TRUE
    if not loop.prepared:
        rl.results.info("nothing to prepare: the package is prepared", deployment)


def _approves(deployment: KubeObject, config: Config) -> bool:
    """TKO's approval of a prepared deployment: ``nephio.org/approve: Auto`` approves,
    ``Manual`` waits for ``krmfn deployment approve``, ``Default`` (or none) follows
    ``autoApprove`` (default true)."""
    mode = approve_mode(deployment)
    if mode == AUTO:
        return True
    if mode == MANUAL:
        return False
    return config.auto_approve


def identity(obj: KubeObject) -> Identity:
    return obj.api_version, obj.kind, obj.name, obj.namespace


class Loop:
    """The passes over one package; each resource prepares, waits or fails on its own."""

    __slots__ = (
        "catalog",
        "catalog_folder",
        "config",
        "failed",
        "members",
        "prepared",
        "reasons",
        "registry",
        "rl",
    )

    def __init__(
        self,
        rl: ResourceList,
        config: Config,
        registry: Registry,
        catalog: Catalog,
        catalog_folder: Path | None,
        failed: set[Identity] | None = None,
        reasons: dict[Identity, str] | None = None,
        prepared: int = 0,
    ) -> None:
        self.rl = rl
        self.config = config
        self.registry = registry
        self.catalog = catalog
        self.catalog_folder = catalog_folder
        self.failed: set[Identity] = set() if failed is None else failed
        self.reasons: dict[Identity, str] = {} if reasons is None else reasons
        self.prepared = prepared
        # the ids of the package's items at a version of the list (``_is_member``)
        self.members: tuple[int, set[int]] = (-1, set())

    def run(self) -> list[KubeObject]:
        """The passes; returns the resources left unprepared (waiting or failed)."""
        for _ in range(self.config.max_iterations):
            view = PackageView.of(self.rl.items)
            snapshot = self._todo(view)
            if not snapshot:
                return self._left(view)
            before = self._state()
            client = DataClient(
                self.catalog, self.rl.items, self.rl.results, view, self.catalog_folder
            )
            for target in snapshot:
                current = self._current(view, target)
                if current is not None and self.registry.is_preparable(current):
                    self._prepare(view, client, current)
            if self._state() == before:
                return self._report(view)
        view = PackageView.of(self.rl.items)
        left = self._todo(view)
        if left:
            names = ", ".join(f"{o.kind}/{o.name}" for o in left)
            for obj in left:
                self.rl.results.error(
                    f"not prepared after {self.config.max_iterations} passes (maxIterations): "
                    f"the plugins keep changing the package; left: {names}",
                    obj,
                )
        return self._left(view)

    def _todo(self, view: PackageView) -> list[KubeObject]:
        return [
            o
            for o in view.own(self.rl.items)
            if self.registry.is_preparable(o) and identity(o) not in self.failed
        ]

    def _left(self, view: PackageView) -> list[KubeObject]:
        return [o for o in view.own(self.rl.items) if self.registry.is_preparable(o)]

    def _state(self) -> list[dict[str, Any]]:
        return [o.to_dict() for o in self.rl.items]

    def _current(self, view: PackageView, target: KubeObject) -> KubeObject | None:
        """The target in the package now (a plugin may have replaced or removed it)."""
        if self._is_member(target):
            return target
        key = identity(target)
        return next((o for o in view.own(self.rl.items) if identity(o) == key), None)

    def _is_member(self, obj: KubeObject) -> bool:
        """``obj`` is one of the package's items: a lookup in their ids, taken again only when
        the list changed (a scan of the list per target made the passes quadratic). Every item
        is alive while the list holds it, so an id found is that object's."""
        version = self.rl.items.version
        if self.members[0] != version:
            self.members = (version, {id(o) for o in self.rl.items})
        return id(obj) in self.members[1]

    def _report(self, view: PackageView) -> list[KubeObject]:
        """What the resources still unprepared wait for, from their last attempt."""
        left = self._left(view)
        for obj in left:
            reason = self.reasons.get(identity(obj))
            if reason and identity(obj) not in self.failed:
                self.rl.results.info(reason, obj)
        return left

    def _prepare(self, view: PackageView, client: DataClient, target: KubeObject) -> None:
        """Run the target's preparers in order; it is prepared when all of them are done. A
        preparer that waits stops the run (the reason is kept); an error is a result on the
        target, which is then left alone for the rest of this run."""
        key = identity(target)
        if PREPARED in target.annotations:
            del target.annotations[PREPARED]
        outcome = Outcome.done()
        for spec in self.registry.specs_for(target):
            current = self._current(view, target)
            if current is None:
                break
            try:
                ctx = PluginContext(
                    items=self.rl.items,
                    target=current,
                    spec=spec,
                    properties=properties_of(current, spec),
                    results=self.rl.results,
                    client=client,
                    view=view,
                    is_preparable=self.registry.is_preparable,
                )
                outcome = Outcome.of(self.registry.plugin(spec)(ctx))
            except KrmError as exc:
                if exc.obj is None:
                    exc.obj = current
                self.rl.results.from_error(exc)
                self.failed.add(key)
                return
            if not outcome.prepared:
                break
        after = self._current(view, target)
        if after is None:
            return
        if not outcome.prepared:
            self.reasons[key] = outcome.reason
            return
        self.reasons.pop(key, None)
        if after.annotations.get(PREPARED) != "false":
            after.annotations[PREPARED] = TRUE
            self.prepared += 1
