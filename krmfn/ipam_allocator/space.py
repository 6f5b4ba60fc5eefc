"""The address space declared in git: Nephio's Network objects, IPPrefix objects, the inventory.

A ``Network`` (``infra.nephio.org/v1alpha1``, the catalog's ``distros/sandbox/network/vpc-*.yaml``)
gives each routing table (one network instance, named as the table) its prefixes, each with
labels. Nephio's network controller turns them into the IPAM's prefixes and carves one prefix per
workload cluster out of each (the catalog's README: "allocates per cluster a new prefix from the
aggregate prefixes assigned"). Offline, the clusters come from an ``IpamInventory``
(``krmfn.dev/v1alpha1``): cluster number *i* of ``spec.clusters`` gets the *i*-th sub-prefix
of each routing-table prefix, of the length the inventory gives for that network and prefix kind
(defaults: a network prefix /24 or /64, a pool prefix /16 or /48), labelled with the table
prefix's labels plus ``nephio.org/cluster-name``, ``nephio.org/address-family`` and
``nephio.org/prefix-kind``; a network prefix's gateway is its first address. Appending a cluster
moves nothing. ``IPPrefix`` objects (``ipam.resource.nephio.org/v1alpha1``: ``spec.prefix``,
``spec.kind``, ``spec.networkInstance.name``, labels from ``metadata.labels``) add prefixes as
they are.
"""

from __future__ import annotations

import ipaddress
from typing import Any, NamedTuple

from krmlib import KrmError, KubeObject

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

INVENTORY_API_VERSION = "krmfn.dev/v1alpha1"
INVENTORY_KIND = "IpamInventory"
NETWORK = ("infra.nephio.org/v1alpha1", "Network")
IPPREFIX = ("ipam.resource.nephio.org/v1alpha1", "IPPrefix")

CLUSTER_LABEL = "nephio.org/cluster-name"
FAMILY_LABEL = "nephio.org/address-family"
KIND_LABEL = "nephio.org/prefix-kind"
KINDS = ("network", "loopback", "pool", "aggregate")
DEFAULT_LENGTHS = {"network": {"ipv4": 24, "ipv6": 64}, "pool": {"ipv4": 16, "ipv6": 48}}


class Prefix(NamedTuple):
    """One prefix of the IPAM: where it lives, what it is and its labels."""

    network_instance: str
    net: IPNetwork
    kind: str
    labels: dict[str, str]
    gateway: str  # '' when none (only network prefixes have one)
    origin: str  # where it was declared, for messages


def family(net: IPNetwork) -> str:
    return "ipv6" if net.version == 6 else "ipv4"


class Space:
    """Every prefix, per network instance, in declaration order."""

    __slots__ = ("clusters", "prefixes")

    def __init__(self) -> None:
        self.prefixes: dict[str, list[Prefix]] = {}
        self.clusters: list[str] = []

    def add(self, prefix: Prefix) -> None:
        self.prefixes.setdefault(prefix.network_instance, []).append(prefix)

    def candidates(self, network_instance: str, match: dict[str, str]) -> list[Prefix]:
        """The prefixes of ``network_instance`` whose labels hold every ``match`` label."""
        return [
            p
            for p in self.prefixes.get(network_instance, [])
            if all(p.labels.get(k) == v for k, v in match.items())
        ]


def _net(value: Any, obj: KubeObject, field: str) -> IPNetwork:
    try:
        return ipaddress.ip_network(str(value), strict=True)
    except ValueError as exc:
        raise KrmError(f"not a prefix: {value!r} ({exc})", obj=obj, field=field) from None


def _labels(value: Any, obj: KubeObject, field: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise KrmError(f"{field} must be a map of labels", obj=obj, field=field)
    return {str(k): str(v) for k, v in value.items()}


def _lengths(inventory: KubeObject | None) -> dict[str, dict[str, dict[str, int]]]:
    """network instance -> prefix kind -> family -> per-cluster length."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    if inventory is None:
        return out
    networks = inventory.get("spec.networks", [])
    if not isinstance(networks, list):
        raise KrmError("spec.networks must be a list", obj=inventory, field="spec.networks")
    for i, entry in enumerate(networks):
        field = f"spec.networks[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise KrmError(f"{field} needs a name", obj=inventory, field=field)
        per: dict[str, dict[str, int]] = {}
        for kind in ("network", "pool"):
            given = entry.get(kind, {})
            if not isinstance(given, dict):
                raise KrmError(f"{field}.{kind} must be a map", obj=inventory, field=field)
            for fam, length in given.items():
                if fam not in ("ipv4", "ipv6") or not isinstance(length, int):
                    raise KrmError(
                        f"{field}.{kind}.{fam}: expected ipv4 or ipv6 with a prefix length",
                        obj=inventory,
                        field=f"{field}.{kind}",
                    )
                per.setdefault(kind, {})[str(fam)] = length
        out[entry["name"]] = per
    return out


def read_space(objects: list[KubeObject]) -> Space:
    """The address space of ``objects`` (Networks, IPPrefixes, at most one IpamInventory)."""
    space = Space()
    inventories = [
        o for o in objects if o.api_version == INVENTORY_API_VERSION and o.kind == INVENTORY_KIND
    ]
    if len(inventories) > 1:
        raise KrmError(
            "more than one IpamInventory: "
            + ", ".join(o.path or o.name for o in inventories)
            + " (the clusters and their order are declared once)"
        )
    inventory = inventories[0] if inventories else None
    if inventory is not None:
        clusters = inventory.get("spec.clusters", [])
        if not isinstance(clusters, list) or not all(isinstance(c, str) for c in clusters):
            raise KrmError(
                "spec.clusters must be a list of cluster names",
                obj=inventory,
                field="spec.clusters",
            )
        if len(set(clusters)) != len(clusters):
            raise KrmError(
                "spec.clusters names a cluster twice", obj=inventory, field="spec.clusters"
            )
        space.clusters = list(clusters)
    lengths = _lengths(inventory)
    for obj in objects:
        if (obj.api_version, obj.kind) == NETWORK:
            _read_network(space, obj, lengths)
        elif (obj.api_version, obj.kind) == IPPREFIX:
            kind = str(obj.get("spec.kind", "network"))
            net = _net(obj.get("spec.prefix"), obj, "spec.prefix")
            labels = {**_labels(obj.labels, obj, "metadata.labels")}
            labels.setdefault(KIND_LABEL, kind)
            labels.setdefault(FAMILY_LABEL, family(net))
            gateway = str(net[1]) if kind == "network" and net.num_addresses > 2 else ""
            ni = str(obj.get("spec.networkInstance.name", "default"))
            space.add(Prefix(ni, net, kind, labels, gateway, f"IPPrefix {obj.name}"))
    return space


def _read_network(space: Space, obj: KubeObject, lengths: dict[str, Any]) -> None:
    tables = obj.get("spec.routingTables", [])
    if not isinstance(tables, list):
        raise KrmError("spec.routingTables must be a list", obj=obj, field="spec.routingTables")
    for t, table in enumerate(tables):
        if not isinstance(table, dict) or not table.get("name"):
            continue
        ni = str(table["name"])
        per = lengths.get(ni, {})
        for p, entry in enumerate(table.get("prefixes") or []):
            field = f"spec.routingTables[{t}].prefixes[{p}]"
            if not isinstance(entry, dict):
                raise KrmError(f"{field} must be a map", obj=obj, field=field)
            net = _net(entry.get("prefix"), obj, f"{field}.prefix")
            labels = _labels(entry.get("labels"), obj, f"{field}.labels")
            fam = family(net)
            kind = labels.get(KIND_LABEL, "network")
            if kind not in KINDS:
                raise KrmError(
                    f"{field}.labels: {KIND_LABEL} {kind!r} is not one of {', '.join(KINDS)}",
                    obj=obj,
                    field=f"{field}.labels",
                )
            aggregate = {**labels, FAMILY_LABEL: fam, KIND_LABEL: "aggregate"}
            where = f"Network {obj.name} {ni} {net}"
            space.add(Prefix(ni, net, "aggregate", aggregate, "", where))
            carve = "pool" if kind == "pool" else "network"
            length = per.get(carve, {}).get(fam, DEFAULT_LENGTHS[carve][fam])
            if space.clusters and not net.prefixlen <= length <= net.max_prefixlen:
                raise KrmError(
                    f"{where}: a per-cluster {carve} prefix of length {length} does not fit in it",
                    obj=obj,
                    field=f"{field}.prefix",
                )
            if not space.clusters:
                continue
            size = 1 << (net.max_prefixlen - length)
            room = 1 << (length - net.prefixlen)
            for index, cluster in enumerate(space.clusters):
                if index >= room:
                    raise KrmError(
                        f"{where} holds {room} /{length} prefixes: cluster {cluster} is number "
                        f"{index + 1} of the inventory",
                        obj=obj,
                        field=f"{field}.prefix",
                    )
                start = int(net.network_address) + index * size
                sub = type(net)((start, length))
                sub_labels = {**labels, CLUSTER_LABEL: cluster, FAMILY_LABEL: fam, KIND_LABEL: kind}
                gateway = str(sub[1]) if kind == "network" and sub.num_addresses > 2 else ""
                space.add(Prefix(ni, sub, kind, sub_labels, gateway, f"{where} {cluster}"))
