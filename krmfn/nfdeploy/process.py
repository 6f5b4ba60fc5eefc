"""process(): the Root of the specialization: readiness gate, conditions, NFDeployment spec.

Nephio's nfdeploy-fn on the condition choreography of :mod:`krmfn.specializer`: the for kind is
``workload.nephio.org/v1alpha1 NFDeployment``; it owns the requirements of the blueprint
(``req.nephio.org/v1alpha1`` Capacity as a local child, Interface, DataNetwork and Dependency as
initial children: only their conditions are managed) and watches the ``WorkloadCluster``. As the
Root it adds the readiness gate ``nephio.org.Specializer.specialize`` to the Kptfile. Once every
child condition is ``"True"`` (the other specializers finished), stage 2 writes the NFDeployment's
spec from the children: capacity, interfaces (addresses and VLAN from the Interfaces' status),
network instances (with the DataNetworks' pools) and parametersRefs (the Dependencies' injected
configs); then the gate is ``"True"``. Read from nephio-project/nephio
``krm-functions/nfdeploy-fn/fn/{function.go,helper.go}`` at a29054b.
"""

from __future__ import annotations

import re
from typing import Any

from krmfn.nephio import (
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
)
from krmfn.specializer import (
    MISSING_CLUSTER,
    WORKLOAD_CLUSTER,
    ClusterWatch,
    SpecializeError,
    Specializer,
)
from krmlib import KubeObject, ResourceList

from .config import Config
from .quantity import QuantityError, canonical

NFDEPLOYMENT = ("workload.nephio.org/v1alpha1", "NFDeployment")
CAPACITY = (INTERFACE_API_VERSION, "Capacity")
INTERFACE = (INTERFACE_API_VERSION, INTERFACE_KIND)
DATA_NETWORK = (INTERFACE_API_VERSION, "DataNetwork")
DEPENDENCY = (INTERFACE_API_VERSION, "Dependency")

# nephio-project/api nf_requirements/v1alpha1/interface_interfaces.go
ATTACHMENT_TYPES = ("none", "vlan")
CNI_TYPES = ("ipvlan", "macvlan", "sriov")
IP_FAMILY_POLICIES = ("none", "ipv4only", "ipv6only", "dualstack")


def process(rl: ResourceList, config: Config) -> None:
    NfDeploy(rl).run()


class NfDeploy(ClusterWatch):
    """One run: the WorkloadCluster the watch saw, and the two callbacks."""

    __slots__ = ("rl",)

    def __init__(self, rl: ResourceList) -> None:
        super().__init__()
        self.rl = rl

    def run(self) -> None:
        Specializer(
            self.rl,
            for_kind=NFDEPLOYMENT,
            owns={
                CAPACITY: "local",
                INTERFACE: "initial",
                DATA_NETWORK: "initial",
                DEPENDENCY: "initial",
            },
            watches={WORKLOAD_CLUSTER: self.watch_cluster},
            populate=self.populate,
            update=self.update,
            root=True,
        ).run()

    def populate(self, nf: KubeObject) -> list[KubeObject]:
        """No object: the children are the blueprint's, only their conditions are managed."""
        if self.cluster is None:
            raise SpecializeError(MISSING_CLUSTER, nf)
        return []

    def update(self, nf: KubeObject, owned: list[KubeObject]) -> None:
        """The NFDeployment's spec from its children (nfdeploy-fn's UpdateResourceFn)."""
        spec = Spec(nf)
        for obj in owned:
            if (obj.api_version, obj.kind) == CAPACITY:
                spec.capacity = obj
        for obj in owned:
            if (obj.api_version, obj.kind) == DATA_NETWORK:
                spec.data_network(obj)
        for obj in owned:
            if (obj.api_version, obj.kind) == INTERFACE:
                spec.interface(obj)
        for obj in owned:
            if (obj.api_version, obj.kind) == DEPENDENCY:
                spec.dependency(obj)
        spec.write()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class Spec:
    """What stage 2 gathers from the children, then writes into the NFDeployment."""

    __slots__ = ("capacity", "instances", "interfaces", "nf", "refs")

    def __init__(self, nf: KubeObject) -> None:
        self.nf = nf
        self.capacity: KubeObject | None = None
        self.interfaces: dict[str, list[dict[str, Any]]] = {}  # network instance -> configs
        self.instances: dict[str, dict[str, Any]] = {}  # network instance -> its entry
        refs = nf.get("spec.parametersRefs")
        self.refs: list[dict[str, Any]] = [
            _reference(r) for r in (refs if isinstance(refs, list) else []) if isinstance(r, dict)
        ]

    def data_network(self, obj: KubeObject) -> None:
        """A DataNetwork with ``status.pools`` gives its network instance a data network."""
        pools = obj.get("status.pools")
        if pools is None:
            return
        prefixes = [
            {"prefix": prefix}
            for pool in (pools if isinstance(pools, list) else [])
            if isinstance(pool, dict)
            and isinstance(pool.get("ipClaim"), dict)
            and isinstance(prefix := pool["ipClaim"].get("prefix"), str)
        ]
        entry: dict[str, Any] = {"name": obj.name}
        if prefixes:
            entry["pool"] = prefixes
        instance = _text(obj.get("spec.networkInstance.name"))
        self.instance(instance).setdefault("dataNetworks", []).append(entry)

    def instance(self, name: str) -> dict[str, Any]:
        found = self.instances.get(name)
        if found is None:
            found = self.instances[name] = {"name": name}
        return found

    def interface(self, obj: KubeObject) -> None:
        """An Interface with both claim statuses gives an interface config."""
        status = obj.get("status")
        if isinstance(status, dict):  # one read of the status, both claims' from it
            ip_status = status.get("ipClaimStatus")
            spec = validate_interface(obj)
            vlan_status = status.get("vlanClaimStatus")
        else:  # none, or not a map: the paths' own answers (and errors)
            ip_status = obj.get("status.ipClaimStatus")
            spec = validate_interface(obj)
            vlan_status = obj.get("status.vlanClaimStatus")
        if ip_status is None or vlan_status is None:
            return
        config: dict[str, Any] = {"name": obj.name}
        for index, claim in enumerate(ip_status if isinstance(ip_status, list) else []):
            if not isinstance(claim, dict) or claim.get("prefix") is None:
                continue
            prefix = claim["prefix"]
            try:
                version = _ip_version(str(prefix))
            except ValueError:
                raise SpecializeError(
                    f'netip.ParsePrefix("{prefix}"): not a prefix',
                    obj,
                    f"status.ipClaimStatus[{index}].prefix",
                ) from None
            address: dict[str, Any] = {"address": str(prefix)}
            if claim.get("gateway") is not None:
                address["gateway"] = claim["gateway"]
            config["ipv6" if version == 6 else "ipv4"] = address
        ordered: dict[str, Any] = {k: config[k] for k in ("name", "ipv4", "ipv6") if k in config}
        if isinstance(vlan_status, dict) and vlan_status.get("vlanID") is not None:
            ordered["vlanID"] = vlan_status["vlanID"]
        instance = spec["networkInstance"]["name"]  # a non-empty string: validated
        if instance:
            self.interfaces.setdefault(instance, []).append(ordered)

    def dependency(self, obj: KubeObject) -> None:
        injected = obj.get("status.injected")
        for ref in injected if isinstance(injected, list) else []:
            if not isinstance(ref, dict):
                continue
            new = {
                "name": ref.get("name", ""),
                "apiVersion": ref.get("apiVersion", ""),
                "kind": ref.get("kind", ""),
            }
            if not any(
                r.get("name") == new["name"]
                and r.get("kind") == new["kind"]
                and r.get("apiVersion") == new["apiVersion"]
                for r in self.refs
            ):
                self.refs.append(_reference(new))

    def write(self) -> None:
        """The spec fields nfdeploy-fn sets, each written (or removed when empty)."""
        nf = self.nf
        for name, configs in self.interfaces.items():
            names = sorted(c["name"] for c in configs)
            self.instance(name)["interfaces"] = names
        interfaces = sorted(
            (c for configs in self.interfaces.values() for c in configs), key=lambda c: c["name"]
        )
        instances = [
            {k: entry[k] for k in ("name", "interfaces", "dataNetworks") if k in entry}
            for _, entry in sorted(self.instances.items())
        ]
        refs = sorted(self.refs, key=lambda r: str(r.get("name") or ""))
        for field, value in (
            ("parametersRefs", refs),
            ("networkInstances", instances),
            ("interfaces", interfaces),
        ):
            if value:
                if nf.get(f"spec.{field}") != value:
                    nf.set(f"spec.{field}", value)
            elif nf.has(f"spec.{field}"):
                nf.delete(f"spec.{field}")
        if self.capacity is not None:
            capacity = capacity_spec(self.capacity)
            if nf.get("spec.capacity") != capacity:
                nf.set("spec.capacity", capacity)


def _reference(ref: dict[str, Any]) -> dict[str, Any]:
    """A parametersRef as Go's ObjectReference writes it: name always, apiVersion and kind when
    set."""
    out: dict[str, Any] = {"name": ref.get("name")}
    for key in ("apiVersion", "kind"):
        if ref.get(key):
            out[key] = ref[key]
    return out


def capacity_spec(obj: KubeObject) -> dict[str, Any]:
    """The Capacity's spec through Go's CapacitySpec: the throughputs as canonical quantity
    strings (always written), the counts when not 0."""
    spec = obj.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    out: dict[str, Any] = {}
    for field in ("maxDownlinkThroughput", "maxUplinkThroughput"):
        value = spec.get(field)
        try:
            out[field] = "0" if value is None else canonical(value)
        except QuantityError as exc:
            raise SpecializeError(str(exc), obj, f"spec.{field}") from None
    for field in ("maxNFConnections", "maxSessions", "maxSubscribers"):
        value = spec.get(field)
        if value:
            out[field] = value
    return {k: out[k] for k in sorted(out)}


# An IPv4 address with a prefix length, each number as ipaddress reads it (no leading zero)
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4_PREFIX = rf"(?:{_OCTET}\.){{3}}{_OCTET}/(?:3[0-2]|[12]?[0-9])"  # compiled on first use


def _ip_version(prefix: str) -> int:
    """4 or 6 as ``ipaddress.ip_interface`` reads ``prefix`` (its ValueError when it cannot):
    the IPv4 form a claim's status holds is answered without building the interface."""
    if re.fullmatch(_IPV4_PREFIX, prefix) is not None:
        return 4
    import ipaddress  # a prefix other than IPv4's: not at start-up

    return ipaddress.ip_interface(prefix).version


def validate_interface(obj: KubeObject) -> dict[str, Any]:
    """nephio-project/api's InterfaceSpec.Validate, its messages as they are; the spec read."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        raise SpecializeError("spec invalid: missing networkInstance", obj, "spec")
    attachment = _text(spec.get("attachmentType"))
    if attachment and attachment not in ATTACHMENT_TYPES:
        raise SpecializeError(
            f"spec invalid: unsupported attachmentType, got: {attachment}",
            obj,
            "spec.attachmentType",
        )
    cni = _text(spec.get("cniType"))
    if cni and cni not in CNI_TYPES:
        raise SpecializeError(f"spec invalid: unsupported cniType, got: {cni}", obj, "spec.cniType")
    policy = _text(spec.get("ipFamilyPolicy"))
    if policy and policy not in IP_FAMILY_POLICIES:
        # upstream names the cniType here
        raise SpecializeError(
            f"spec invalid: unsupported addressing, got: {cni}", obj, "spec.ipFamilyPolicy"
        )
    instance = spec.get("networkInstance")
    if not isinstance(instance, dict):
        raise SpecializeError("spec invalid missing networkInstance", obj, "spec.networkInstance")
    if not _text(instance.get("name")):
        raise SpecializeError(
            "spec invalid: missing networkInstance name, got: ", obj, "spec.networkInstance.name"
        )
    return spec
