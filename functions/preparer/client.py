"""The data client a plugin gets: the catalog (read) and child deployment creation."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from krmlib import (
    ANN_INDEX,
    ANN_LEGACY_INDEX,
    ANN_PACKAGE_PATH,
    Items,
    KubeObject,
    Results,
    default_file_name,
    is_kptfile,
    without_kpt_internal,
)

from .catalog import ANN_CATALOG_ID, Catalog, CatalogEntry
from .package import (
    ANN_PREPARED,
    DEPLOYMENT_FILE,
    PackageView,
    find_deployment,
    new_deployment,
)


def detached_copy(obj: KubeObject) -> KubeObject:
    """A copy without kpt's location and id annotations (for use in another package)."""
    return without_kpt_internal(obj)


class DataClient:
    """TKO's API, for plugins: read templates and sites, create child deployments."""

    def __init__(self, catalog: Catalog, items: Items, results: Results) -> None:
        self.catalog = catalog
        self.items = items
        self.results = results

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

    # --- deployments --------------------------------------------------------------------------

    def deployment_id(self) -> str:
        """This package's deployment id: the parent's id (if any) and the Kptfile's name."""
        view = PackageView.of(self.items)
        own = view.own(self.items)
        kptfile = next((o for o in own if is_kptfile(o)), None)
        name = kptfile.name if kptfile is not None else "deployment"
        deployment = find_deployment(own)
        parent = str(deployment.get("spec.parentDeploymentId") or "") if deployment else ""
        return f"{parent}/{name}" if parent else name

    def has_deployment(self, folder: str) -> bool:
        return PackageView.of(self.items).has_subpackage(folder)

    def create_deployment(
        self,
        folder: str,
        template: CatalogEntry,
        *,
        site_id: str = "",
        merge: Sequence[KubeObject] = (),
    ) -> bool:
        """A child deployment as the subpackage ``folder``: the template's resources, merged
        with ``merge`` (their ``nephio.org/prepare`` moved on), and a Deployment resource.
        False (and nothing done) when the subpackage exists already."""
        if self.has_deployment(folder):
            return False
        from krmfn.merger import merge_resources

        parent_id = self.deployment_id()
        objects = template.load()
        inputs = [detached_copy(obj) for obj in merge]
        target = Items(objects)
        merge_resources(target, inputs, from_package=True, results=self.results, file_dir="")
        merged = list(target)
        deployment = find_deployment(merged)
        if deployment is None:
            deployment = new_deployment()
            deployment.set_path(DEPLOYMENT_FILE)
            merged.append(deployment)
        if ANN_PREPARED in deployment.annotations:
            del deployment.annotations[ANN_PREPARED]
        spec = {"templateId": template.id, "siteId": site_id, "parentDeploymentId": parent_id}
        deployment.merge("spec", {k: v for k, v in spec.items() if v})
        for obj in merged:
            if is_kptfile(obj) and obj.path in (None, "Kptfile"):
                obj.set("metadata.name", posixpath.basename(folder))
                if ANN_CATALOG_ID in obj.annotations:
                    del obj.annotations[ANN_CATALOG_ID]
            rel = obj.path or default_file_name(obj.kind, obj.name)
            if ANN_PACKAGE_PATH in obj.annotations:
                del obj.annotations[ANN_PACKAGE_PATH]
            obj.set_path(posixpath.join(folder, rel))
        _number_documents(merged)
        for obj in merged:
            self.items.append(obj)
        return True


def _number_documents(objects: Sequence[KubeObject]) -> None:
    """Index annotations in order of appearance, per file (kpt needs them to tell documents of
    one file apart)."""
    counts: dict[str, int] = {}
    for obj in objects:
        path = obj.path or ""
        index = str(counts.get(path, 0))
        counts[path] = int(index) + 1
        if obj.annotations.get(ANN_INDEX) != index:
            obj.annotations[ANN_INDEX] = index
            obj.annotations[ANN_LEGACY_INDEX] = index


__all__ = ["DataClient", "detached_copy"]
