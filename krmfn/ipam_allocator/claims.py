"""The claims of a package: read for the allocator, answered as ipam-fn and vlan-fn answer.

Per claim (every IPClaim and VLANClaim, whatever its condition or delete mark, as Nephio's
functions process them): its ``status`` is replaced by the answer, its
``specializer.nephio.org/owner`` becomes its condition's reason when the condition has one, and
its condition ``<apiVersion>.<Kind>.<name>`` becomes ``"True"`` ``update done`` (reason kept; a
claim without condition gets one without reason). An error answer sets the condition ``"False"``
with the message. A claim condition without its object becomes ``"False"`` ``expected a for
object but got nil``.
"""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from typing import Any, NamedTuple

from krmfn.nephio import (
    IPCLAIM_API_VERSION,
    IPCLAIM_KIND,
    OWNER_ANNOTATION,
    UPDATE_DONE,
    VLAN_CLAIM_NAME_ANNOTATION,
    VLANCLAIM_API_VERSION,
    VLANCLAIM_KIND,
    condition_type,
)
from krmlib import Condition, Conditions, KrmError, KubeObject

IP = (IPCLAIM_API_VERSION, IPCLAIM_KIND)
VLAN = (VLANCLAIM_API_VERSION, VLANCLAIM_KIND)
NO_OBJECT = "expected a for object but got nil"


class Claim(NamedTuple):
    """What the allocator reads from one IPClaim or VLANClaim."""

    kind: str  # "ip" or "vlan"
    owner: str  # the ledger key: <package>/<claim name> (vlan: <index>/<claim name sent>)
    package: str
    name: str
    network_instance: str = ""  # ip
    prefix_kind: str = ""  # ip: network, loopback, pool, aggregate
    match: tuple[tuple[str, str], ...] = ()
    prefix_length: int | None = None
    create_prefix: bool = False
    static: str = ""  # spec.prefix
    hint: str = ""  # status.prefix
    vlan_index: str = ""  # vlan: spec.vlanIndex.name
    vlan_name: str = ""  # vlan: the claim name sent
    vlan_id: int | None = None  # vlan: spec.vlanID
    vlan_hint: int | None = None  # vlan: status.vlanID


Answer = dict[str, object] | str  # a status, or an error message


def kinds_of(claims: str) -> set[tuple[str, str]]:
    """The claim kinds a ``claims`` setting (``ip``, ``vlan``, ``ip,vlan``) names."""
    out = set()
    for word in claims.split(","):
        out.add(IP if word.strip() == "ip" else VLAN)
    return out


def claim_objects(items: list[KubeObject], kinds: set[tuple[str, str]]) -> list[KubeObject]:
    return [o for o in items if (o.api_version, o.kind) in kinds]


def _int(obj: KubeObject, path: str) -> int | None:
    value = obj.get(path)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise KrmError(f"{path} must be a number", obj=obj, field=path)
    return value


def _str(obj: KubeObject, path: str) -> str:
    value = obj.get(path)
    if value is None:
        return ""
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise KrmError(f"{path} must be a string", obj=obj, field=path)
    return str(value)


def read_claim(obj: KubeObject, package: str) -> Claim:
    """The allocator's view of one claim (KrmError naming the field it cannot read)."""
    if obj.kind == IPCLAIM_KIND:
        match = obj.get("spec.selector.matchLabels") or {}
        if not isinstance(match, dict):
            raise KrmError(
                "spec.selector.matchLabels must be a map",
                obj=obj,
                field="spec.selector.matchLabels",
            )
        create = obj.get("spec.createPrefix", False)
        return Claim(
            kind="ip",
            owner=f"{package}/{obj.name}",
            package=package,
            name=obj.name,
            network_instance=_str(obj, "spec.networkInstance.name") or "default",
            prefix_kind=_str(obj, "spec.kind") or "network",
            match=tuple(sorted((str(k), str(v)) for k, v in match.items())),
            prefix_length=_int(obj, "spec.prefixLength") or None,
            create_prefix=create is True,
            static=_str(obj, "spec.prefix"),
            hint=_str(obj, "status.prefix"),
        )
    index = _str(obj, "spec.vlanIndex.name")
    if not index:
        raise KrmError(
            "spec.vlanIndex.name is missing: the VLAN database (the cluster) the claim is for",
            obj=obj,
            field="spec.vlanIndex.name",
        )
    if obj.get("spec.range") is not None:
        raise KrmError(
            "spec.range: VLAN range claims are not supported by the offline allocator (claim "
            "single VLANs, or give spec.vlanID)",
            obj=obj,
            field="spec.range",
        )
    sent = obj.annotations.get(VLAN_CLAIM_NAME_ANNOTATION) or obj.name
    return Claim(
        kind="vlan",
        owner=f"{package}/{obj.name}",
        package=package,
        name=obj.name,
        vlan_index=index,
        vlan_name=sent,
        vlan_id=_int(obj, "spec.vlanID"),
        vlan_hint=_int(obj, "status.vlanID"),
    )


def mock_answer(obj: KubeObject) -> Answer:
    """The answer of nokia/k8s-ipam's mock backends (pkg/proxy/clientproxy/{ipam,vlan}/*_mock.go),
    read from ``spec.kind`` and ``spec.addressFamily`` (the selector labels are not read)."""
    if obj.kind == VLANCLAIM_KIND:
        return {"vlanID": 10}
    ipv6 = obj.get("spec.addressFamily") == "ipv6"
    kind = obj.get("spec.kind")
    if kind == "network":
        return (
            {"prefix": "1000::2/64", "gateway": "1000::1"}
            if ipv6
            else {"prefix": "10.0.0.10/24", "gateway": "10.0.0.1"}
        )
    if kind == "loopback":
        return {"prefix": "2000::2/128" if ipv6 else "172.0.0.10/32"}
    if kind == "pool":
        return {"prefix": "3000::/32" if ipv6 else "172.0.0.0/8"}
    return f"unexpected prefix kind: got: {'' if kind is None else kind}"


def apply_answer(obj: KubeObject, answer: Answer, conditions: Conditions) -> bool:
    """Write ``answer`` into the claim and its condition; True when it was a status."""
    type_ = condition_type(obj.api_version, obj.kind, obj.name)
    before = conditions.get(type_)
    reason = before.reason if before is not None else ""
    if isinstance(answer, str):
        conditions.set(Condition(type_, "False", reason, answer))
        return False
    if obj.get("status") != answer:
        obj.set("status", answer)
    if reason and obj.annotations.get(OWNER_ANNOTATION) != reason:
        obj.annotations[OWNER_ANNOTATION] = reason
    conditions.set(Condition(type_, "True", reason, UPDATE_DONE))
    return True


def orphan_conditions(
    conditions: Conditions, objects: list[KubeObject], kinds: set[tuple[str, str]]
) -> None:
    """A claim condition whose claim is gone: ``"False"`` ``expected a for object but got nil``."""
    present = {condition_type(o.api_version, o.kind, o.name) for o in objects}
    prefixes = tuple(f"{api}.{kind}." for api, kind in kinds)
    for type_ in conditions.types():
        if type_.startswith(prefixes) and type_ not in present:
            before = conditions.get(type_)
            reason = before.reason if before is not None else ""
            conditions.set(Condition(type_, "False", reason, NO_OBJECT))


def status_of(obj: KubeObject) -> Any:
    return obj.get("status")
