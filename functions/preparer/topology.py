"""Built-in topology preparers (``topology.nephio.org/v1alpha1``): Template, Site(s), Placement."""

from __future__ import annotations

import re
from typing import Any

from krmlib import KrmError, KubeObject

from .config import TOPOLOGY
from .package import prepare_mode
from .plugins import PluginContext

_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-") or "x"


def _select(target: KubeObject) -> dict[str, Any] | None:
    select = target.get("spec.select")
    if select is None:
        return None
    metadata = select.get("metadata") if isinstance(select, dict) else None
    if not isinstance(metadata, dict):
        raise KrmError(
            "spec.select must be {metadata: {key: pattern}}", obj=target, field="spec.select"
        )
    return metadata


def _describe(select: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in select.items())


def prepare_template(ctx: PluginContext) -> bool:
    """``spec.templateId`` (in the catalog) or the first template ``spec.select`` matches."""
    target = ctx.target
    explicit = target.get("spec.templateId")
    if explicit:
        if ctx.client.template(str(explicit)) is None:
            return ctx.wait(f"waiting: template {explicit} is not in the catalog")
        target.set("status.templateId", str(explicit))
        return True
    select = _select(target)
    if select is None:
        raise KrmError("a Template needs spec.templateId or spec.select", obj=target, field="spec")
    found = ctx.client.select_templates(select)
    if not found:
        return ctx.wait(f"waiting: no catalog template matches {_describe(select)}")
    target.set("status.templateId", found[0].id)
    return True


def prepare_site(ctx: PluginContext) -> bool:
    """``spec.siteId`` as is, or the first catalog site ``spec.select`` matches."""
    target = ctx.target
    explicit = target.get("spec.siteId")
    if explicit:
        target.set("status.siteId", str(explicit))
        return True
    select = _select(target)
    if select is None:
        raise KrmError("a Site needs spec.siteId or spec.select", obj=target, field="spec")
    found = ctx.client.select_sites(select)
    if not found:
        return ctx.wait(f"waiting: no catalog site matches {_describe(select)}")
    target.set("status.siteId", found[0].id)
    return True


def prepare_sites(ctx: PluginContext) -> bool:
    """Every catalog site ``spec.select`` matches (in id order); none yet: wait."""
    target = ctx.target
    select = _select(target)
    if select is None:
        raise KrmError("a Sites needs spec.select", obj=target, field="spec.select")
    found = ctx.client.select_sites(select)
    if not found:
        return ctx.wait(f"waiting: no catalog site matches {_describe(select)}")
    target.set("status.siteIds", [entry.id for entry in found])
    return True


def _own(ctx: PluginContext, kind: str, name: str) -> KubeObject | None:
    return next(
        (o for o in ctx.own() if o.is_kind(TOPOLOGY, kind) and o.name == name),
        None,
    )


def _site_ids(ctx: PluginContext, name: str, field: str) -> list[str] | None:
    """The ids a Site or Sites named ``name`` resolved to; None while it is unresolved."""
    site = _own(ctx, "Site", name)
    if site is not None:
        site_id = site.get("status.siteId")
        return [str(site_id)] if site_id and not ctx.is_preparable(site) else None
    sites = _own(ctx, "Sites", name)
    if sites is not None:
        ids = sites.get("status.siteIds")
        resolved = isinstance(ids, list) and not ctx.is_preparable(sites)
        return [str(i) for i in ids] if resolved and isinstance(ids, list) else None
    raise KrmError(f"no Site or Sites named {name!r} in this package", obj=ctx.target, field=field)


def prepare_placement(ctx: PluginContext) -> bool:
    """One child deployment per (template, site); waits while an input is unresolved."""
    target = ctx.target
    entries = target.get("spec.templates", []) or []
    if not isinstance(entries, list):
        raise KrmError("spec.templates must be a list", obj=target, field="spec.templates")
    plan: list[tuple[str, str, str, list[KubeObject]]] = []
    waiting: list[str] = []
    for index, entry in enumerate(entries):
        where = f"spec.templates[{index}]"
        if not isinstance(entry, dict) or not entry.get("template"):
            raise KrmError("each entry needs a template name", obj=target, field=where)
        name = str(entry["template"])
        template = _own(ctx, "Template", name)
        if template is None:
            raise KrmError(
                f"no Template named {name!r} in this package", obj=target, field=f"{where}.template"
            )
        template_id = template.get("status.templateId")
        if not template_id or ctx.is_preparable(template):
            waiting.append(f"Template {name}")
            template_id = ""
        inputs = _merge_inputs(ctx, entry.get("merge") or [], f"{where}.merge", waiting)
        for site_index, site_name in enumerate(entry.get("sites") or []):
            ids = _site_ids(ctx, str(site_name), f"{where}.sites[{site_index}]")
            if ids is None:
                waiting.append(f"Site {site_name}")
                continue
            plan.extend((name, str(template_id), site_id, inputs) for site_id in ids)
    if waiting:
        unique = list(dict.fromkeys(waiting))
        return ctx.wait(f"waiting for {', '.join(unique)}")
    records: list[dict[str, str]] = []
    for name, template_id, site_id, inputs in plan:
        folder = f"{slug(name)}-{slug(site_id)}"
        if any(r["folder"] == folder for r in records):
            continue
        entry_ = ctx.client.template(template_id)
        if entry_ is None:
            return ctx.wait(f"waiting: template {template_id} is not in the catalog")
        ctx.client.create_deployment(folder, entry_, site_id=site_id, merge=inputs)
        records.append(
            {
                "id": f"{ctx.client.deployment_id()}/{folder}",
                "folder": folder,
                "template": name,
                "templateId": template_id,
                "siteId": site_id,
            }
        )
    target.set("status.deployments", records)
    return True


def _merge_inputs(
    ctx: PluginContext, refs: Any, field: str, waiting: list[str]
) -> list[KubeObject]:
    if not isinstance(refs, list):
        raise KrmError("merge must be a list of object references", obj=ctx.target, field=field)
    out = []
    for index, ref in enumerate(refs):
        where = f"{field}[{index}]"
        if not isinstance(ref, dict) or not ref.get("kind") or not ref.get("name"):
            raise KrmError("a merge reference needs kind and name", obj=ctx.target, field=where)
        found = next(
            (
                o
                for o in ctx.own()
                if o.is_kind(ref.get("apiVersion"), str(ref["kind"])) and o.name == ref["name"]
            ),
            None,
        )
        if found is None:
            raise KrmError(
                f"merge input {ref['kind']}/{ref['name']} is not in this package",
                obj=ctx.target,
                field=where,
            )
        if ctx.is_preparable(found):
            waiting.append(f"{found.kind} {found.name}")
        out.append(found)
    return out


BUILTINS = {
    "template": prepare_template,
    "site": prepare_site,
    "sites": prepare_sites,
    "placement": prepare_placement,
}
DEFAULT_REGISTRATIONS = {
    (TOPOLOGY, "Template"): "template",
    (TOPOLOGY, "Site"): "site",
    (TOPOLOGY, "Sites"): "sites",
    (TOPOLOGY, "Placement"): "placement",
}

__all__ = ["BUILTINS", "DEFAULT_REGISTRATIONS", "prepare_mode", "slug"]
