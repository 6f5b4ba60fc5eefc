"""process(): a NetworkAttachmentDefinition for every NAD condition whose claims are ready.

Read from the top: the package is indexed once (:class:`Package`), the cluster is read once, then
each NAD condition of the Kptfile (written by interface-expander, or Nephio's interface-fn) is an
instance: removed when its Interface is gone and its NAD with it, left alone while its claims'
conditions are not all ``"True"``, else its NAD is written and its condition set ``"True"`` (or
``"False"`` with the reason it cannot be written).
"""

from __future__ import annotations

from typing import Any

from krmfn.nephio import (
    DEFAULT_NETWORK,
    DELETE_ANNOTATION,
    DELETE_RESOURCE,
    INFRA_API_VERSION,
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
    NAD_API_VERSION,
    NAD_KIND,
    NETWORK_KIND,
    spec_text,
)
from krmlib import (
    Condition,
    Conditions,
    KrmError,
    KubeObject,
    ResourceList,
    check_names,
)
from krmlib.children import default_child_path

from .cni import CniError
from .config import Config
from .dialects import Claims, Cluster, Dialect, Inputs, choose
from .routes import RoutingTables

_INTERFACE = (INTERFACE_API_VERSION, INTERFACE_KIND)
_NAD = (NAD_API_VERSION, NAD_KIND)
_NETWORK = (INFRA_API_VERSION, NETWORK_KIND)


def process(rl: ResourceList, config: Config) -> None:
    if not len(rl.items):
        rl.results.info("no resources present in the resourcelist")
        return
    kptfile = rl.package().kptfile  # the rendered package's, not a subpackage's
    conditions = Conditions(kptfile)  # read once: thousands of conditions in a big package
    listed = [c for t in conditions.types() if (c := conditions.get(t)) is not None]
    dialect = choose(rl, config, listed)
    if kptfile is None:
        if dialect.requires_kptfile:
            rl.results.error(
                "mandatory Kptfile is missing from the package: the NAD conditions that "
                "nad-generator reads live in its status.conditions; nothing was changed"
            )
        else:
            rl.results.warning(
                "the package has no Kptfile: no NAD condition to read, nothing was changed"
            )
        return
    package = Package.read(rl, dialect)
    instances = [
        (condition, itf)
        for condition in listed
        if (itf := dialect.nad_interface(condition)) is not None
    ]
    claim_conditions: dict[str, list[str]] = {}
    for condition in listed:
        if owner := dialect.claim_condition_interface(condition):
            claim_conditions.setdefault(owner, []).append(condition.type)
    cluster, failure = read_cluster(rl, dialect, package.clusters)
    if failure:
        fail_generated(rl, dialect, conditions, package, instances, failure)
        conditions.flush()
        return
    run = Run(rl, dialect, conditions, package, cluster, claim_conditions)
    for condition, itf in instances:
        run.instance(condition, itf)
    run.remove_orphans()
    run.report()
    conditions.flush()


class Package:
    """The items nad-generator reads, indexed in one pass."""

    __slots__ = ("claims", "clusters", "interfaces", "nads", "nads_by_owner", "networks")

    def __init__(self) -> None:
        self.interfaces: dict[str, KubeObject] = {}
        self.claims: dict[str, Claims] = {}  # Interface name -> its claims
        self.nads: dict[tuple[str, str], KubeObject] = {}  # (namespace, name) -> NAD
        self.nads_by_owner: dict[str, list[KubeObject]] = {}  # Interface name -> its NADs
        self.clusters: list[KubeObject] = []
        self.networks: list[KubeObject] = []

    @classmethod
    def read(cls, rl: ResourceList, dialect: Dialect) -> Package:
        package = cls()
        for obj in rl.items:
            shape = (obj.api_version, obj.kind)
            if shape == _INTERFACE:
                if obj.name in package.interfaces:
                    rl.results.warning(
                        f"duplicate Interface name {obj.name!r}: the first one is used for the "
                        "NAD; Interface names must be unique in the package",
                        obj,
                        "metadata.name",
                    )
                    continue
                package.interfaces[obj.name] = obj
            elif shape in (dialect.ip_kind, dialect.vlan_kind):
                owner = dialect.owner_interface(obj)
                obj.release()  # its annotations are read: thousands of claims hold no copy
                if owner:
                    claims = package.claims.setdefault(owner, Claims([], []))
                    (claims.ip if shape == dialect.ip_kind else claims.vlan).append(obj)
            elif shape == _NAD:
                package.nads.setdefault((obj.namespace, obj.name), obj)
                owner = dialect.owner_interface(obj)
                if owner:
                    package.nads_by_owner.setdefault(owner, []).append(obj)
            elif shape == dialect.cluster_kind:
                package.clusters.append(obj)
            elif shape == _NETWORK:
                package.networks.append(obj)
        return package


def read_cluster(
    rl: ResourceList, dialect: Dialect, found: list[KubeObject]
) -> tuple[Cluster | None, str]:
    """(the cluster, '') or (None, why the whole package fails): a cluster object that is not
    valid (or a second WorkloadCluster) fails every NAD, as Nephio's condkptsdk does."""
    if not found:
        return None, ""
    if len(found) > 1:
        if dialect.single_cluster:
            return None, f"multiple {found[0].kind} objects found in the kpt package"
        rl.results.warning(
            f"{len(found)} {found[0].kind}s in the package: the first one, {found[0].name}, "
            "is used",
            found[1],
        )
    try:
        return dialect.read_cluster(found[0]), ""
    except KrmError as exc:
        rl.results.warning(
            f"{exc.message}: no NAD is written until the {found[0].kind} is filled in; the NADs "
            "already in the package are kept",
            found[0],
            exc.field,
        )
        return None, exc.message


def fail_generated(
    rl: ResourceList,
    dialect: Dialect,
    conditions: Conditions,
    package: Package,
    instances: list[tuple[Condition, str]],
    failure: str,
) -> None:
    """The cluster is unusable: the condition of every NAD in the package says so (Nephio's
    condkptsdk), and the NADs stay (nad-fn removes them: see the README)."""
    for condition, itf in instances:
        if package.nads_by_owner.get(itf):
            conditions.set(Condition(condition.type, "False", condition.reason, failure))


def _text(obj: KubeObject, spec: dict[str, Any], *keys: str) -> str:
    """``spec.<keys>`` of an Interface as text ('' when absent); KrmError naming the field when
    it is not a scalar."""
    node: Any = spec
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    if node is None:
        return ""
    if isinstance(node, bool) or not isinstance(node, str | int | float):
        return spec_text(obj, "spec." + ".".join(keys))  # its error
    return str(node)


class Run:
    """One run over the NAD instances, and what it did (for the results)."""

    __slots__ = (
        "claim_conditions",
        "cluster",
        "conditions",
        "counts",
        "dialect",
        "handled",
        "package",
        "rl",
        "tables",
    )

    def __init__(
        self,
        rl: ResourceList,
        dialect: Dialect,
        conditions: Conditions,
        package: Package,
        cluster: Cluster | None,
        claim_conditions: dict[str, list[str]],
    ) -> None:
        self.rl = rl
        self.dialect = dialect
        self.conditions = conditions
        self.package = package
        self.cluster = cluster
        self.claim_conditions = claim_conditions
        self.tables: RoutingTables | None = None
        self.handled: set[str] = set()  # Interfaces whose NAD conditions were seen
        self.counts = {"created": 0, "updated": 0, "unchanged": 0, "waiting": 0}

    def instance(self, condition: Condition, itf: str) -> None:
        """One NAD condition (the Interface ``itf`` it names, '' for none)."""
        self.handled.add(itf)
        interface = self.package.interfaces.get(itf)
        if interface is None and itf and self.finish_deletion(condition, itf):
            return
        if not self.ready(itf):
            self.counts["waiting"] += 1
            return
        try:
            built = self.build(interface)
        except (CniError, KrmError) as exc:
            message = exc.message if isinstance(exc, KrmError) else str(exc)
            self.fail(condition, message, interface, exc)
            return
        if built is None:
            return  # the default (pod) network: no NAD, the condition is left as it is
        name, namespace, text, owner = built
        nad = self.package.nads.get((namespace, name))
        if nad is not None and self.dialect.owner_interface(nad) != itf:
            where = f"{namespace}/{name}" if namespace else name
            self.fail(
                condition,
                f"{NAD_KIND} {where} already exists and is not owned by Interface {itf}: "
                "rename or remove it",
                nad,
                None,
            )
            return
        if nad is None:
            self.create(owner, name, namespace, text)
        elif nad.get("spec.config") != text:
            nad.set("spec.config", text)
            self.counts["updated"] += 1
            self.rl.results.info(f"updated for Interface {itf}", nad, "spec.config")
        else:
            self.counts["unchanged"] += 1
        self.conditions.set(self.dialect.done(condition, name))
        owner.release()

    def finish_deletion(self, condition: Condition, itf: str) -> bool:
        """The Interface is gone: its NADs go, with the NAD condition (see the README's
        differences from nad-fn). False when there is nothing to finish (nad-fn's error then)."""
        owned = self.package.nads_by_owner.pop(itf, [])
        marked = condition.status == "False" and condition.message == DELETE_RESOURCE
        if not owned and not marked:
            return False
        for nad in owned:
            self.remove(nad, itf)
        self.conditions.remove(condition.type)
        return True

    def remove(self, nad: KubeObject, itf: str) -> None:
        how = " (marked for deletion)" if nad.annotations.get(DELETE_ANNOTATION) == "true" else ""
        self.rl.items.remove(nad)
        self.package.nads.pop((nad.namespace, nad.name), None)
        self.rl.results.info(f"removed{how}: its Interface {itf} is gone from the package", nad)

    def remove_orphans(self) -> None:
        """NADs owned by an Interface that is gone and that no NAD condition names."""
        for itf, nads in list(self.package.nads_by_owner.items()):
            if itf in self.package.interfaces or itf in self.handled:
                continue
            for nad in nads:
                self.remove(nad, itf)

    def ready(self, itf: str) -> bool:
        """Every claim of the Interface (an object it owns, or a condition whose reason names
        it) has a ``"True"`` condition (condkptsdk's readiness; the Interface's own condition is
        not read)."""
        status = self.conditions.status
        claims = self.package.claims.get(itf) if itf else None
        if claims is not None:
            claim_type = self.dialect.claim_type
            for obj in (*claims.ip, *claims.vlan):
                if status(claim_type(obj)) != "True":
                    return False
        return all(status(t) == "True" for t in self.claim_conditions.get(itf, ()) if itf)

    def build(self, interface: KubeObject | None) -> tuple[str, str, str, KubeObject] | None:
        """(name, namespace, spec.config, Interface) of the NAD; None for the default network;
        CniError (or KrmError naming a field) when it cannot be written, in nad-fn's order."""
        dialect = self.dialect
        if self.cluster is None:
            raise CniError(dialect.missing_cluster)
        if interface is None:
            raise CniError(dialect.no_interface)
        name, namespace = dialect.identity(interface)
        check_names(
            name,
            namespace,
            kind=NAD_KIND,
            source=interface,
            field=dialect.name_field,
            namespace_field=dialect.namespace_field,
        )
        spec = interface.get("spec")
        if not isinstance(spec, dict):
            raise KrmError("Interface has no spec", obj=interface, field="spec")
        if _text(interface, spec, "networkInstance", "name") == DEFAULT_NETWORK:
            return None
        claims = self.package.claims.get(interface.name, Claims([], []))
        if not claims.ip and not claims.vlan:
            raise CniError(dialect.no_claims())
        if self.tables is None:
            self.tables = RoutingTables(self.package.networks)
        inputs = Inputs(
            interface,
            _text(interface, spec, "cniType"),
            self.cluster,
            claims,
            self.package.networks,
            [],
        )
        text = dialect.config(inputs, self.tables.routes)
        for note in inputs.notes:
            self.rl.results.warning(note.message, note.obj, note.field)
        for claim in (*claims.ip, *claims.vlan):
            claim.release()  # read once: its values go (memory)
        return name, namespace, text, interface

    def create(self, interface: KubeObject, name: str, namespace: str, text: str) -> None:
        """A new NAD in its own file next to the Interface (kpt's ``<lower kind>_<name>.yaml``),
        written whole (no edit after it is made: thousands of them in a big package)."""
        metadata: dict[str, object] = {"name": name}
        if namespace:
            metadata["namespace"] = namespace
        owner = self.dialect.owner_annotation(interface)
        if owner:
            metadata["annotations"] = owner
        nad = KubeObject.from_dict(
            {
                "apiVersion": NAD_API_VERSION,
                "kind": NAD_KIND,
                "metadata": metadata,
                "spec": {"config": text},
            }
        )
        if not owner:
            self.dialect.ownership.mark(nad, interface)
        nad.set_path(default_child_path(interface, nad))
        self.rl.items.append(nad)
        self.package.nads[(namespace, name)] = nad
        self.counts["created"] += 1

    def fail(
        self,
        condition: Condition,
        message: str,
        obj: KubeObject | None,
        exc: Exception | None,
    ) -> None:
        """The NAD cannot be written: its condition says why (reason kept), and a warning."""
        self.conditions.set(Condition(condition.type, "False", condition.reason, message))
        field = exc.field if isinstance(exc, KrmError) else None
        if isinstance(exc, KrmError) and exc.obj is not None:
            obj = exc.obj  # the item the field is on (a claim's status.vlanID)
        where = obj or self.rl.package().kptfile
        self.rl.results.warning(f"no {NAD_KIND} for {condition.type}: {message}", where, field)

    def report(self) -> None:
        counts = self.counts
        written = counts["created"] + counts["updated"] + counts["unchanged"]
        if written:
            self.rl.results.info(
                f"{written} {NAD_KIND}{'s' if written > 1 else ''} ready ({counts['created']} "
                f"created, {counts['updated']} updated, {counts['unchanged']} unchanged); their "
                'conditions are "True"'
            )
        if counts["waiting"]:
            self.rl.results.info(
                f"{counts['waiting']} NAD condition{'s' if counts['waiting'] > 1 else ''} wait "
                'for claims whose conditions are not "True" yet (left as they are)'
            )
