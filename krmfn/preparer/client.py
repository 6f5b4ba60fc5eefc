"""The data client a plugin gets: the catalog (read, and sites provisioned) and child
deployment creation."""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from krmfn.tko import (
    ANN_CATALOG_ID,
    ANN_CATALOG_TEMPLATE,
    deployment_id,
    dns_label,
    find_deployment,
    new_child,
)
from krmlib import Items, KrmError, KubeObject, Results, is_kptfile
from krmlib.packages import read_package, write_package

from .catalog import Catalog, CatalogEntry, entry_metadata, with_template
from .package import PackageView

if TYPE_CHECKING:  # pathlib (urllib, ipaddress) where a path is made: not a start-up cost
    from pathlib import Path

PROVISIONED = "provisioned"

_catalog_read_only: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "catalog_read_only", default=False
)


@contextlib.contextmanager
def catalog_read_only() -> Iterator[None]:
    """Within this block a provisioned site is registered in memory only, never written to the
    catalog folder (``prepare-all --check`` changes nothing)."""
    token = _catalog_read_only.set(True)
    try:
        yield
    finally:
        _catalog_read_only.reset(token)


class DataClient:
    """TKO's API, for plugins: read templates and sites, register provisioned sites, create
    child deployments."""

    def __init__(
        self,
        catalog: Catalog,
        items: Items,
        results: Results,
        view: PackageView,
        catalog_folder: Path | None = None,
    ) -> None:
        self.catalog = catalog
        self.items = items
        self.results = results
        self.view = view
        self.catalog_folder = catalog_folder
        self._fixed_id: str | None = None

    # --- catalog ------------------------------------------------------------------------------

    def templates(self) -> list[CatalogEntry]:
        return list(self.catalog.templates)

    def sites(self) -> list[CatalogEntry]:
        return list(self.catalog.sites)

    def template(self, template_id: str) -> CatalogEntry | None:
        return self.catalog.find("templates", template_id)

    def site(self, site_id: str) -> CatalogEntry | None:
        return self.catalog.find("sites", site_id)

    def select_templates(self, select: Mapping[str, Any]) -> list[CatalogEntry]:
        return self.catalog.select("templates", select)

    def select_sites(self, select: Mapping[str, Any]) -> list[CatalogEntry]:
        return self.catalog.select("sites", select)

    def provision_site(
        self, name: str, template_id: str, merge: Sequence[KubeObject]
    ) -> CatalogEntry:
        """Register a new site ``provisioned/<deployment>-<name>`` (TKO's provisioning, with a
        deterministic id) in the catalog folder: a site package of the site template (if any)
        merged with ``merge`` (annotations moved on), labelled ``type: provisioned``. A site
        already provisioned under that id is taken as it is."""
        site_id = f"{PROVISIONED}/{dns_label(self.deployment_id(), name)}"
        found = self.site(site_id)
        if found is not None:
            return found
        if self.catalog_folder is None:
            raise KrmError(
                "site provisioning registers a site package in the catalog folder "
                "(spec.catalog, exec mode): no catalog folder is configured"
            )
        base = self.template(template_id) if template_id else None
        if template_id and base is None:
            raise KrmError(f"provisionTemplateId {template_id} is not in the catalog")
        objects = new_child([], merge, folder="", spec={})
        objects = [o for o in objects if find_deployment([o]) is None]
        folder = self.catalog_folder / "sites" / site_id
        kptfile = KubeObject.from_dict(
            {
                "apiVersion": "kpt.dev/v1",
                "kind": "Kptfile",
                "metadata": {
                    "name": folder.name,
                    "labels": {"type": PROVISIONED},
                    "annotations": {
                        "config.kubernetes.io/local-config": "true",
                        ANN_CATALOG_ID: site_id,
                        **({ANN_CATALOG_TEMPLATE: template_id} if template_id else {}),
                    },
                },
                "info": {"description": f"site provisioned for {self.deployment_id()}/{name}"},
            }
        )
        if _catalog_read_only.get():
            own = [kptfile, *objects]
        else:
            _write_package(folder, [kptfile, *objects])
            own = read_package(folder, tree=True)
        metadata = entry_metadata(own, {"type": PROVISIONED})
        if base is not None:
            entry = with_template(site_id, base, own, metadata)
        else:
            entry = CatalogEntry(site_id, metadata, lambda: [o.copy() for o in own])
        self.catalog.add("sites", entry)
        return entry

    # --- deployments --------------------------------------------------------------------------

    def deployment_id(self) -> str:
        """This package's deployment id: the parent's id (if any) and the Kptfile's name."""
        if self._fixed_id is not None:
            return self._fixed_id
        return deployment_id(self.view.own(self.items))

    @contextlib.contextmanager
    def creating_children(self) -> Iterator[None]:
        """A block that only adds child deployments (the package's own items stay as they are):
        the package's deployment id is worked out once for it, not from every item per child."""
        self._fixed_id = self.deployment_id()
        try:
            yield
        finally:
            self._fixed_id = None

    def has_deployment(self, folder: str) -> bool:
        return self.view.has_subpackage(folder)

    def create_deployment(
        self,
        folder: str,
        template: CatalogEntry,
        *,
        site_id: str = "",
        merge: Sequence[KubeObject] = (),
    ) -> bool:
        """A child deployment as the subpackage ``folder``: the template's resources, merged
        with ``merge`` (``nephio.org/prepare`` and ``nephio.org/metadata`` moved on), and a
        Deployment resource. False (and nothing done) when the subpackage exists already."""
        if self.has_deployment(folder):
            return False
        spec = {
            "templateId": template.id,
            "siteId": site_id,
            "parentDeploymentId": self.deployment_id(),
        }
        children = new_child(template.load(), merge, folder=folder, spec=spec, results=self.results)
        for obj in children:
            self.items.append(obj)
        self.view.add_subpackage(folder)
        return True


def _write_package(folder: Path, objects: Sequence[KubeObject]) -> None:
    """A new package folder, one file per path, documents joined by ``---``: built aside and put
    in place whole (``write_package`` of a folder that does not exist). A folder already there
    is not a site (the catalog found none in it): half made by an older version, it is moved
    aside and removed (a kill meanwhile: by the next run), and made anew."""
    placed = []
    for obj in objects:
        copy = obj.copy()
        copy.set_path("Kptfile" if is_kptfile(copy) else copy.path or "resources.yaml")
        placed.append(copy)
    try:
        if folder.is_dir() and not folder.is_symlink():
            aside = folder.with_name(f".{folder.name}.krmfn-tmp-half-made-{os.getpid()}")
            folder.rename(aside)  # out of the way at once; removed (a kill: by the next run)
            import shutil  # here: shutil pulls bz2, lzma and zlib, not needed at start-up

            shutil.rmtree(aside)
        write_package(folder, placed)  # paths checked, kpt's annotations left out
    except OSError as exc:
        raise KrmError(f"cannot register the site package {folder}: {exc}") from None


__all__ = ["DataClient", "catalog_read_only"]
