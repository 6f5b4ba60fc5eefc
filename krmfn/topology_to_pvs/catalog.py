"""Porch as it behaves now: the upstream pin and the target that already holds the package.

Since nephio-project/porch 3499eaf7 (2025-05-01) the PackageVariant controller finds the upstream
by ``upstream.workspaceName``, or else takes the ``main`` (latest published) revision: the integer
``upstream.revision`` is reset and never read (controllers/packagevariants/pkg/controllers/
packagevariant/packagevariant_controller.go, ``isValidUpstream`` and ``getUpstreamPR``, porch
74d82d5). A clone into a repository that already holds a package of the downstream name is refused
unless ``adoptionPolicy: adoptExisting`` (the same file, ``adoptionPolicy`` defaults to
``adoptNone``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from krmlib import KubeObject, Results

from .config import Config
from .downstream import package_name
from .pvs import LABEL_DEPLOYMENT, LABEL_INSTANCE, template_labels
from .topology import Instance, NFClass, Topology

_NUMBER = r"^v?(\d+)\Z"  # for re.match, compiled on first use (issue 37)


PackageIndex = dict[tuple[str, str], list[KubeObject]]


def index_revisions(revisions: Iterable[KubeObject]) -> PackageIndex:
    """PackageRevisions by (repository, package name): read once, looked up per instance."""
    index: PackageIndex = {}
    for pr in revisions:
        key = (str(pr.get("spec.repository", "")), str(pr.get("spec.packageName", "")))
        index.setdefault(key, []).append(pr)
    return index


def _number(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = re.match(_NUMBER, str(value))
    return int(match.group(1)) if match else None


def pin_workspace(
    cls: NFClass, revisions: PackageIndex, config: Config, results: Results, warned: set[int]
) -> tuple[bool, str | None]:
    """(ok, the workspaceName that pins the class's revision, or None).

    The catalog's Published revision of that number gives its workspaceName; a number the catalog
    lacks is an error; without the catalog among the inputs, a warning (once per class) says the
    pin does nothing in current Porch.
    """
    if cls.workspace or cls.revision is None or config.revision_type == "string":
        return True, None  # a workspaceName already, or Porch v4.0.0 and older (reads revision)
    wanted = _number(cls.revision)
    if wanted is None and config.revision_type == "integer":
        return True, None  # no number to pin: the revision's own error says so (pvs.revision)
    catalog = revisions.get((cls.repository, cls.package), [])
    field = "spec.packageRef.revision"
    if not catalog:
        if id(cls.obj) not in warned:
            warned.add(id(cls.obj))
            results.warning(
                f"the class pins {cls.repository}/{cls.package} to revision {cls.revision}, but "
                "current Porch ignores upstream.revision (porch 3499eaf7): without the "
                "catalog's PackageRevisions among the inputs, or packageRef.workspaceName in "
                "the class, every downstream gets the latest published revision",
                cls.obj,
                field,
            )
        return True, None
    published = [
        pr
        for pr in catalog
        if pr.get("spec.lifecycle") == "Published" and _number(pr.get("spec.revision")) == wanted
    ]
    workspaces = sorted({str(pr.get("spec.workspaceName", "")) for pr in published} - {""})
    if len(workspaces) == 1:
        return True, workspaces[0]
    have = sorted(
        {
            n
            for pr in catalog
            if pr.get("spec.lifecycle") == "Published"
            and (n := _number(pr.get("spec.revision"))) is not None
        }
    )
    if len(workspaces) > 1:
        reason = f"several of its Published PackageRevisions have it ({', '.join(workspaces)})"
    elif published:
        reason = "its PackageRevision has no spec.workspaceName"
    else:
        shown = ", ".join(str(n) for n in have) or "none"
        reason = f"the catalog's published revisions are {shown}"
    if id(cls.obj) not in warned:
        warned.add(id(cls.obj))
        results.error(
            f"the class pins {cls.repository}/{cls.package} to revision {cls.revision}, which "
            f"the catalog's PackageRevisions do not name one workspace for: {reason}; Porch "
            "would stall the variants or deploy another revision",
            cls.obj,
            field,
        )
    return False, None


def held_elsewhere(
    topology: Topology,
    instance: Instance,
    matched: list[str],
    revisions: PackageIndex,
    config: Config,
) -> list[str]:
    """The matched target repositories that already hold the downstream package, not ours."""
    name = package_name(topology, instance, config)
    ours = template_labels(topology, instance)
    found = set()
    for repo in matched:
        for pr in revisions.get((repo, name), []):
            if _not_ours(pr, ours, topology):
                found.add(repo)
    return sorted(found)


def _not_ours(pr: KubeObject, ours: dict[str, str], topology: Topology) -> bool:
    """A PackageRevision in the topology's namespace that this instance's set did not make."""
    if topology.namespace and pr.namespace and pr.namespace != topology.namespace:
        return False
    labels = pr.labels
    return not (
        labels.get(LABEL_DEPLOYMENT) == ours[LABEL_DEPLOYMENT]
        and labels.get(LABEL_INSTANCE) == ours[LABEL_INSTANCE]
    )
