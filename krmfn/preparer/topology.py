"""Built-in topology preparers (``topology.nephio.org/v1alpha1``): Template, Site(s), Placement."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from krmfn.tko import TOPOLOGY, cap_label, find_deployment, object_reference, short_hash, slug
from krmlib import KrmError, KubeObject, Results, text_of

from .catalog import Catalog
from .plugins import Outcome, PluginContext


def child_folders(pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The child folder of every (template name, site id) pair: ``<template>-<site>`` slugs;
    pairs whose slugs clash get ``-<hash of template name and site id>`` (all of them, so the
    name does not depend on the order); the result capped by :func:`cap_label`."""
    base = {pair: slug(pair[0], pair[1]) for pair in dict.fromkeys(pairs)}
    count: dict[str, int] = {}
    for name in base.values():
        count[name] = count.get(name, 0) + 1
    return {
        pair: cap_label(
            name if count[name] == 1 else f"{name}-{short_hash(pair[0] + chr(0) + pair[1])}"
        )
        for pair, name in base.items()
    }


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


def prepare_template(ctx: PluginContext) -> Outcome:
    """``spec.templateId`` (in the catalog) or the first template ``spec.select`` matches."""
    target = ctx.target
    explicit = text_of(target, "spec.templateId")  # as written: 0123 stays 0123
    if explicit:
        entry = ctx.client.template(explicit)  # also TKO's escaped form of an id
        if entry is None:
            return ctx.wait(f"waiting: template {explicit} is not in the catalog")
        target.set("status.templateId", entry.id)
        return Outcome.done()
    select = _select(target)
    if select is None:
        raise KrmError("a Template needs spec.templateId or spec.select", obj=target, field="spec")
    found = ctx.client.select_templates(select)
    if not found:
        return ctx.wait(f"waiting: no catalog template matches {_describe(select)}")
    target.set("status.templateId", found[0].id)
    return Outcome.done()


def prepare_site(ctx: PluginContext) -> Outcome:
    """``spec.siteId``, or the first catalog site ``spec.select`` matches, or
    with ``spec.provisionIfNotFound`` a site provisioned from ``spec.provisionTemplateId``
    merged with the ``spec.merge`` resources (TKO's site provisioning). A Site with none of
    them waits quietly, as in TKO."""
    target = ctx.target
    explicit = text_of(target, "spec.siteId")  # as written: 1.10 stays 1.10
    if explicit:  # taken as is (TKO); the Placement refuses a site not in the catalog
        entry = ctx.client.site(explicit)  # TKO's escaped form gives the catalog's id
        target.set("status.siteId", entry.id if entry is not None else explicit)
        return Outcome.done()
    select = _select(target)
    if select is not None:
        found = ctx.client.select_sites(select)
        if not found:
            return ctx.wait(f"waiting: no catalog site matches {_describe(select)}")
        target.set("status.siteId", found[0].id)
        return Outcome.done()
    if target.get("spec.provisionIfNotFound") is True:
        if target.get("status.siteId"):
            return Outcome.done()
        waiting: list[str] = []
        inputs = _merge_inputs(ctx, target.get("spec.merge") or [], "spec.merge", waiting)
        if waiting:
            return ctx.wait(f"waiting for {', '.join(dict.fromkeys(waiting))}")
        template_id = str(target.get("spec.provisionTemplateId") or "")
        try:
            entry = ctx.client.provision_site(target.name, template_id, inputs)
        except KrmError as exc:
            raise KrmError(exc.message, obj=target, field="spec.provisionIfNotFound") from None
        ctx.results.info(f"provisioned site {entry.id} for Site {target.name}", target)
        target.set("status.siteId", entry.id)
        return Outcome.done()
    return ctx.wait("waiting: the Site has no spec.siteId, spec.select or spec.provisionIfNotFound")


def prepare_sites(ctx: PluginContext) -> Outcome:
    """Every catalog site ``spec.select`` matches (in id order); none yet: wait."""
    target = ctx.target
    select = _select(target)
    if select is None:
        raise KrmError("a Sites needs spec.select", obj=target, field="spec.select")
    found = ctx.client.select_sites(select)
    if not found:
        return ctx.wait(f"waiting: no catalog site matches {_describe(select)}")
    target.set("status.siteIds", [entry.id for entry in found])
    return Outcome.done()


def _folders_of_other_placements(ctx: PluginContext, target: KubeObject) -> dict[str, str]:
    """Child folders that the package's other Placements recorded: folder -> Placement name."""
    taken: dict[str, str] = {}
    for other in ctx.own():
        if other is target or not other.is_kind(TOPOLOGY, "Placement"):
            continue
        for record in other.get("status.deployments", []) or []:
            if isinstance(record, dict) and record.get("folder"):
                taken[str(record["folder"])] = other.name
    return taken


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


def prepare_placement(ctx: PluginContext) -> Outcome:
    """One child deployment per (template, site); waits while an input is unresolved."""
    target = ctx.target
    entries = target.get("spec.templates", []) or []
    if not isinstance(entries, list):
        raise KrmError("spec.templates must be a list", obj=target, field="spec.templates")
    plan: list[tuple[str, str, str, list[KubeObject]]] = []
    placed: dict[int, str] = {}  # entry index -> template id
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
        placed[index] = str(template_id)
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
    folders = child_folders([(name, site_id) for name, _id, site_id, _in in plan])
    owners: dict[str, tuple[str, str]] = {}
    for name, _template_id, site_id, _inputs in plan:
        folder = folders[name, site_id]
        owner = owners.setdefault(folder, (name, site_id))
        if owner != (name, site_id):
            raise KrmError(
                f"Template {owner[0]} at site {owner[1]!r} and Template {name} at site "
                f"{site_id!r} give the same child deployment folder {folder}",
                obj=target,
                field="spec.templates",
            )
    taken = _folders_of_other_placements(ctx, target)
    for (name, site_id), folder in sorted(folders.items()):
        if folder in taken:
            raise KrmError(
                f"Template {name} at site {site_id!r} gives the child deployment folder {folder}, "
                f"which Placement {taken[folder]} already created: two Placements of one package "
                "cannot place the same child",
                obj=target,
                field="spec.templates",
            )
    for index, template_id in placed.items():
        problem = self_placement(ctx.client.catalog, template_id, ctx.own())
        if problem:
            raise KrmError(problem, obj=target, field=f"spec.templates[{index}].template")
    records: list[dict[str, str]] = []
    done: set[str] = set()
    with ctx.client.creating_children():  # the package's id stays as it is
        for name, template_id, site_id, inputs in plan:
            folder = folders[name, site_id]
            if folder in done:
                continue  # the same pair twice
            entry_ = ctx.client.template(template_id)
            if entry_ is None:
                return ctx.wait(f"waiting: template {template_id} is not in the catalog")
            if ctx.client.site(site_id) is None:
                raise KrmError(
                    f"site {site_id} is not in the catalog: no child deployment for an unknown "
                    "site (register the site, or correct the Site's spec.siteId)",
                    obj=target,
                    field="spec.templates",
                )
            if ctx.client.create_deployment(folder, entry_, site_id=site_id, merge=inputs):
                ctx.results.info(
                    f"created child deployment {folder} (template {template_id}, site {site_id})",
                    target,
                )
            records.append(
                {
                    "id": f"{ctx.client.deployment_id()}/{folder}",
                    "folder": folder,
                    "template": name,
                    "templateId": template_id,
                    "siteId": site_id,
                }
            )
            done.add(folder)
    target.set("status.deployments", records)
    return Outcome.done()


def _merge_inputs(
    ctx: PluginContext, refs: Any, field: str, waiting: list[str]
) -> list[KubeObject]:
    if not isinstance(refs, list):
        raise KrmError("merge must be a list of object references", obj=ctx.target, field=field)
    own = ctx.own()
    out = []
    for index, ref in enumerate(refs):
        where = f"{field}[{index}]"
        api_version, kind, name = object_reference(ref, ctx.target, where)
        found = next(
            (o for o in own if (o.api_version, o.kind, o.name) == (api_version, kind, name)),
            None,
        )
        if found is None:
            raise KrmError(
                f"merge input {api_version} {kind}/{name} is not in this package",
                obj=ctx.target,
                field=where,
            )
        if found is ctx.target or _same(found, ctx.target):
            raise KrmError(
                f"a Placement cannot merge itself ({found.kind} {found.name})",
                obj=ctx.target,
                field=where,
            )
        if ctx.is_preparable(found):
            waiting.append(f"{found.kind} {found.name}")
        out.append(found)
    return out


def _same(a: KubeObject, b: KubeObject) -> bool:
    return (a.api_version, a.kind, a.namespace, a.name) == (
        b.api_version,
        b.kind,
        b.namespace,
        b.name,
    )


def _places(objects: Iterable[KubeObject], template_id: str) -> KubeObject | None:
    """The Placement among ``objects`` that places a Template resolving to ``template_id``."""
    objects = list(objects)
    names = {
        o.name
        for o in objects
        if o.is_kind(TOPOLOGY, "Template")
        and template_id in (o.get("spec.templateId"), o.get("status.templateId"))
    }
    for obj in objects:
        if not obj.is_kind(TOPOLOGY, "Placement"):
            continue
        entries = obj.get("spec.templates") or []
        if isinstance(entries, list) and any(
            isinstance(e, dict) and str(e.get("template")) in names for e in entries
        ):
            return obj
    return None


def self_placement(catalog: Catalog, template_id: str, own: Sequence[KubeObject]) -> str:
    """Why placing ``template_id`` here would nest without end ('' when it would not): the
    template's package places that template id again, or this package is a deployment of it."""
    deployment = find_deployment(own)
    if deployment is not None and deployment.get("spec.templateId") == template_id:
        return (
            f"template {template_id} places itself: this package is a deployment of "
            f"{template_id} (its Deployment's spec.templateId), so every child would place it "
            "again"
        )
    entry = catalog.find("templates", template_id)
    placement = _places(entry.load(), template_id) if entry is not None else None
    if placement is not None:
        return (
            f"template {template_id} places itself: its package holds Placement "
            f"{placement.name}, which places template {template_id} again (every render would "
            "nest one level deeper)"
        )
    own_id = deployment.get("spec.templateId") if deployment is not None else None
    cycle = placement_cycle(catalog, template_id, str(own_id) if own_id else "")
    if cycle:
        return (
            f"templates place each other in a cycle: {' -> '.join(cycle)} (each template's "
            "package holds a Placement of the next; every render would nest one level deeper)"
        )
    return ""


def _placed_ids(objects: Sequence[KubeObject]) -> list[str]:
    """The template ids the Placements among ``objects`` place, in order (a Template's
    ``spec.templateId``, else its ``status.templateId``)."""
    ids: dict[str, str] = {}
    for obj in objects:
        if obj.is_kind(TOPOLOGY, "Template"):
            found = obj.get("spec.templateId") or obj.get("status.templateId")
            if isinstance(found, str | int) and not isinstance(found, bool) and found != "":
                ids.setdefault(obj.name, str(found))
    placed: list[str] = []
    for obj in objects:
        entries = obj.get("spec.templates") if obj.is_kind(TOPOLOGY, "Placement") else None
        for entry in entries if isinstance(entries, list) else []:
            name = str(entry.get("template")) if isinstance(entry, dict) else ""
            if name in ids and ids[name] not in placed:
                placed.append(ids[name])
    return placed


def placement_cycle(catalog: Catalog, template_id: str, own_id: str) -> list[str]:
    """The templates, in order, of a cycle that placing ``template_id`` enters (back to itself,
    to ``own_id``, the template this package is a deployment of, or to a template between),
    through the Placements of the catalog's template packages; [] when there is none. Each
    template package is read once."""
    path = [own_id, template_id] if own_id else [template_id]
    seen: set[str] = set()

    def search(current: str) -> list[str]:
        if current in seen:
            return []
        seen.add(current)
        entry = catalog.find("templates", current)
        for placed in _placed_ids(entry.load()) if entry is not None else []:
            if placed in path:
                return [*path[path.index(placed) :], placed]
            path.append(placed)
            found = search(placed)
            if found:
                return found
            path.pop()
        return []

    return search(template_id)


def check_placements(
    own: Sequence[KubeObject],
    catalog: Catalog,
    is_placement: Callable[[KubeObject], bool],
    results: Results,
) -> bool:
    """Before any pass: the errors that need nothing prepared to be seen (a Placement merging
    itself, a Placement of a template that places itself, by explicit ``spec.templateId``).
    False (and error results) when there is one: the package is then left as it came."""
    ok = True
    for placement in own:
        if not is_placement(placement):
            continue
        entries = placement.get("spec.templates") or []
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            where = f"spec.templates[{index}]"
            for ref_index, ref in enumerate(entry.get("merge") or []):
                if (
                    isinstance(ref, dict)
                    and placement.is_kind(ref.get("apiVersion"), str(ref.get("kind")))
                    and ref.get("name") == placement.name
                ):
                    results.error(
                        f"a Placement cannot merge itself ({placement.kind} {placement.name})",
                        placement,
                        f"{where}.merge[{ref_index}]",
                    )
                    ok = False
            template = next(
                (
                    o
                    for o in own
                    if o.is_kind(TOPOLOGY, "Template") and o.name == str(entry.get("template"))
                ),
                None,
            )
            template_id = template.get("spec.templateId") if template is not None else None
            problem = self_placement(catalog, str(template_id), own) if template_id else ""
            if problem:
                results.error(problem, placement, f"{where}.template")
                ok = False
    return ok


def prepare_tosca(ctx: PluginContext) -> Outcome:
    """TKO turns a TOSCA topology (a CSAR at ``spec.url``) into Templates, Sites and a
    Placement with its TOSCA parser; krmfn has none. Never marked prepared silently: an error
    on the resource, and the deployment stays unprepared."""
    url = ctx.target.get("spec.url")
    raise KrmError(
        "TOSCA topologies are not supported by krmfn"
        + (f" ({url})" if url else "")
        + ": write the topology as topology.nephio.org/v1alpha1 Template, Site(s) and "
        "Placement resources",
        obj=ctx.target,
        field="spec.url" if url else None,
    )


BUILTINS = {
    "template": prepare_template,
    "site": prepare_site,
    "sites": prepare_sites,
    "placement": prepare_placement,
    "tosca": prepare_tosca,
}
DEFAULT_REGISTRATIONS = {
    (TOPOLOGY, "Template"): "template",
    (TOPOLOGY, "Site"): "site",
    (TOPOLOGY, "Sites"): "sites",
    (TOPOLOGY, "Placement"): "placement",
    (TOPOLOGY, "TOSCA"): "tosca",
}

__all__ = [
    "BUILTINS",
    "DEFAULT_REGISTRATIONS",
    "check_placements",
    "child_folders",
    "placement_cycle",
    "self_placement",
]
