"""Downstream packages: the name each PackageVariant gives its clone, and clones Porch refuses.

Porch (nephio-project/porch 74d82d5) makes one PackageVariant per target object of a set; its
downstream repository is the target's name (a Repository, or a WorkloadCluster for an
``objectSelector``, controllers/packagevariantsets/.../packagevariantset_controller.go
``unrollDownstreamTargets``) and its downstream package is ``template.downstream.package``, else
the upstream package's name (``render.go`` ``renderPackageVariantSpec``). The engine refuses to
clone into a repository that already has a package of that name (``pkg/engine/engine.go``
``validateCloneTask``), and a package name must be a DNS-1123 label once its ``/`` are removed
(``pkg/util/util.go`` ``ValidateDirectoryName``, mandatory, from ``pkg/registry/porch/
strategy.go``).
"""

from __future__ import annotations

from .config import Config
from .naming import dns_label, name_problem
from .topology import Instance, Topology


def package_name(topology: Topology, instance: Instance, config: Config) -> str:
    """The downstream package of ``instance`` on every target.

    ``downstreamPackage`` with ``{topology}`` and ``{instance}`` replaced by the names cleaned to
    DNS labels (the cleaning of PackageVariantSet names: ``UPF_Lab1`` gives ``upf-lab1``); without
    ``downstreamPackage``, the upstream package's name, as Porch does.
    """
    if not config.downstream_package:
        return instance.nf_class.package
    name = config.downstream_package.replace("{topology}", dns_label(topology.name))
    return name.replace("{instance}", dns_label(instance.name))


def package_problem(name: str) -> str | None:
    """Why Porch would refuse ``name`` as a package name, or None (``ValidateDirectoryName``)."""
    if "//" in name:
        return f"{name!r} has consecutive '/'"
    return name_problem("dns-label", name.replace("/", ""))
