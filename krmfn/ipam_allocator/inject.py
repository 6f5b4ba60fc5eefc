"""Dependency injection from the tree: what configinject-fn does through Porch, done offline.

For each ``req.nephio.org/v1alpha1 Dependency`` of a package: the deployment packages of the
tree whose folder is named ``spec.packageName`` (Porch's ``spec.packageName``; every cluster's
copy, as configinject-fn takes every deployment repository's); each must hold, for each
``spec.injectors[]`` kind, objects of that kind whose Kptfile condition
``<group>/<version>.<Kind>.<name>`` is ``"True"``. Each such object becomes a
``ref.nephio.org/v1alpha1 Config`` named ``<forName>-<object name>`` in the Dependency's
``specializer.nephio.org/namespace`` (file ``config_<name>.yaml``, under ``<namespace>/`` when
namespaced), condition ``"True"``; ``Dependency.status.injected`` lists them, sorted by name,
and its condition becomes ``"True"`` ``update done``. Not ready: the Dependency's condition is
``"False"`` with configinject-fn's message, and nothing else changes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from krmfn.nephio import (
    FOR_ANNOTATION,
    NAMESPACE_ANNOTATION,
    OWNER_ANNOTATION,
    UPDATE_DONE,
    condition_type,
    last_segment,
)
from krmlib import Condition, Conditions, KubeObject, get_conditions
from krmlib.packages import content_of

DEPENDENCY = ("req.nephio.org/v1alpha1", "Dependency")
CONFIG_API_VERSION = "ref.nephio.org/v1alpha1"
CONFIG_KIND = "Config"
LOCAL_DONE = "create initial resource"


class Sibling(NamedTuple):
    """A deployment package of the tree, as the injection reads it."""

    path: str  # relative to the tree root
    name: str  # its folder's name (Porch's packageName)
    repo: str  # the folder it lies in (Porch's repository)
    items: list[KubeObject]


def _conditions_true(kptfile: KubeObject | None) -> dict[str, str]:
    if kptfile is None:
        return {}
    return {c.type: c.status for c in get_conditions(kptfile)}


def inject(
    own: list[KubeObject],
    conditions: Conditions,
    siblings: dict[str, list[Sibling]],
    self_path: str,
) -> tuple[list[KubeObject], list[str]]:
    """The package's items with every Dependency answered, and a message per Dependency not
    ready. Configs of a Dependency are replaced whole; other items are kept as they are."""
    problems: list[str] = []
    items = list(own)
    for dep in [o for o in own if (o.api_version, o.kind) == DEPENDENCY]:
        dep_type = condition_type(dep.api_version, dep.kind, dep.name)
        configs, problem = _configs(dep, siblings, self_path)
        before = conditions.get(dep_type)
        if problem:
            message = f"stage1: cannot populate new resource err: {problem}"
            conditions.set(Condition(dep_type, "False", "", message))
            problems.append(f"Dependency {dep.name}: {problem}")
            continue
        old = [
            o
            for o in items
            if (o.api_version, o.kind) == (CONFIG_API_VERSION, CONFIG_KIND)
            and o.annotations.get(OWNER_ANNOTATION) == dep_type
        ]
        wanted = {c.name: c for c in configs}
        for o in old:
            if o.name not in wanted:
                items.remove(o)
                conditions.remove(condition_type(CONFIG_API_VERSION, CONFIG_KIND, o.name))
            elif content_of(o).get("spec") == wanted[o.name].get("spec"):
                wanted[o.name] = o  # unchanged: keep its text
            else:
                items.remove(o)
        for c in wanted.values():
            if c not in items:
                items.append(c)
            conditions.set(
                Condition(
                    condition_type(CONFIG_API_VERSION, CONFIG_KIND, c.name),
                    "True",
                    dep_type,
                    LOCAL_DONE,
                )
            )
        injected = [
            {
                "apiVersion": CONFIG_API_VERSION,
                "kind": CONFIG_KIND,
                "name": c.name,
                **({"namespace": c.namespace} if c.namespace else {}),
            }
            for c in sorted(wanted.values(), key=lambda c: c.name)
        ]
        if dep.get("status.injected") != injected:
            dep.set("status.injected", injected)
        reason = before.reason if before is not None else ""
        conditions.set(Condition(dep_type, "True", reason, UPDATE_DONE))
    return items, problems


def _configs(
    dep: KubeObject, siblings: dict[str, list[Sibling]], self_path: str
) -> tuple[list[KubeObject], str]:
    name = dep.get("spec.packageName")
    if not isinstance(name, str) or not name:
        return [], "spec.packageName is missing"
    found = [s for s in siblings.get(name, []) if s.path != self_path]
    if not found:
        return (
            [],
            f"dependency not ready: expecting at least 1 package {name} with the "
            "corresponding reference",
        )
    injectors = dep.get("spec.injectors") or []
    if not isinstance(injectors, list):
        return [], "spec.injectors must be a list"
    annotations = dep.annotations
    for_name = last_segment(
        annotations.get(FOR_ANNOTATION) or annotations.get(OWNER_ANNOTATION) or ""
    )
    namespace = annotations.get(NAMESPACE_ANNOTATION, "")
    owner = condition_type(dep.api_version, dep.kind, dep.name)
    out: list[KubeObject] = []
    for sibling in sorted(found, key=lambda s: s.path):
        kptfile = next(
            (o for o in sibling.items if o.kind == "Kptfile" and o.path in ("", "Kptfile")), None
        )
        if kptfile is None:
            return [], f"the package {sibling.name} in repo {sibling.repo} has no Kptfile"
        status = _conditions_true(kptfile)
        for injector in injectors:
            if not isinstance(injector, dict):
                continue
            api, kind = injector.get("apiVersion"), injector.get("kind")
            gvk = f"{api}, Kind={kind}"
            objects = [o for o in sibling.items if o.api_version == api and o.kind == kind]
            if not objects:
                return (
                    [],
                    f"dependency not ready: the package {sibling.name} in repo "
                    f"{sibling.repo} does not contain a resource with {gvk}",
                )
            for obj in objects:
                ctype = condition_type(obj.api_version, obj.kind, obj.name)
                if ctype not in status:
                    return (
                        [],
                        f"dependency not ready: the package {sibling.name} in repo "
                        f"{sibling.repo} does not contain a condition for {ctype}",
                    )
                if status[ctype] != "True":
                    return (
                        [],
                        f"dependency not ready: the package {sibling.name} in repo "
                        f"{sibling.repo} has a condition which is False for: {ctype}",
                    )
                out.append(_config(f"{for_name}-{obj.name}", namespace, owner, obj))
    return out, ""


def _config(name: str, namespace: str, owner: str, obj: KubeObject) -> KubeObject:
    content: dict[str, Any] = content_of(obj)
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    metadata["annotations"] = {OWNER_ANNOTATION: owner}
    config = KubeObject.from_dict(
        {
            "apiVersion": CONFIG_API_VERSION,
            "kind": CONFIG_KIND,
            "metadata": metadata,
            "spec": {"config": content},
        }
    )
    path = f"{namespace}/config_{name}.yaml" if namespace else f"config_{name}.yaml"
    config.set_path(path)
    return config
