"""The ledger: every allocation of a tree, one line each, in a YAML file kept in git.

::

    # krmfn ipam-allocator ledger: one allocation a line (krmfn specialize writes it).
    # Remove a line to release it; the next run allocates the claim again.
    apiVersion: krmfn.dev/v1alpha1
    kind: IpamLedger
    metadata:
      name: ledger
      annotations:
        config.kubernetes.io/local-config: "true"
    ip:
    - {owner: edge01/free5gc-upf/upf-edge01-n3-ipv4, networkInstance: vpc-ran, kind: network, ...}
    vlan:
    - {index: edge01, claim: vpc-ran-edge01-bd, vlanID: 2}

(an IP line goes on with ``prefix: 172.3.0.2/24, gateway: 172.3.0.1}``). An IP line is keyed
by its ``owner`` (``<package path>/<claim name>``), a VLAN line by its index and the claim name
sent (the ``specializer.nephio.org/vlanClaimName``, shared by every Interface
on that network and cluster). Lines are sorted, so the file is the same whatever order the
packages were read in, and a diff shows one line per change.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from krmlib import KrmError, KubeObject

LEDGER_KIND = "IpamLedger"
LEDGER_API_VERSION = "krmfn.dev/v1alpha1"


class IpEntry(NamedTuple):
    owner: str
    network_instance: str
    kind: str
    prefix: str
    gateway: str = ""


class VlanEntry(NamedTuple):
    vlan_index: str
    claim: str
    vlan_id: int


HEADER = """\
# krmfn ipam-allocator ledger: one allocation a line (krmfn specialize writes it).
# Remove a line to release it; the next run allocates the claim again.
apiVersion: krmfn.dev/v1alpha1
kind: IpamLedger
metadata:
  name: ledger
  annotations:
    config.kubernetes.io/local-config: "true"
"""


def _scalar(value: str) -> str:
    """A flow-map scalar: plain when YAML reads it back as the same string, else JSON-quoted."""
    plain = value and all(c.isalnum() or c in "-_./:@" for c in value)
    if (
        plain
        and not value[0].isdigit()
        and value.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n", "~")
    ):
        return value
    if plain and value[0].isdigit() and ("/" in value or value.count(".") > 1 or ":" in value):
        return value  # an address or a prefix
    import json  # a rare value: not a start-up cost

    return json.dumps(value)


def format_ledger(ip: list[IpEntry], vlan: list[VlanEntry]) -> str:
    lines = [HEADER.rstrip("\n")]
    lines.append("ip:" if ip else "ip: []")
    for e in sorted(ip, key=lambda e: (e.owner, e.network_instance)):
        gateway = f", gateway: {_scalar(e.gateway)}" if e.gateway else ""
        lines.append(
            f"- {{owner: {_scalar(e.owner)}, networkInstance: {_scalar(e.network_instance)}, "
            f"kind: {_scalar(e.kind)}, prefix: {_scalar(e.prefix)}{gateway}}}"
        )
    lines.append("vlan:" if vlan else "vlan: []")
    for v in sorted(vlan, key=lambda v: (v.vlan_index, v.claim)):
        lines.append(
            f"- {{index: {_scalar(v.vlan_index)}, claim: {_scalar(v.claim)}, vlanID: {v.vlan_id}}}"
        )
    return "\n".join(lines) + "\n"


def _text(
    entry: dict[str, Any], key: str, obj: KubeObject, field: str, required: bool = True
) -> str:
    value = entry.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value:
        raise KrmError(f"{field}.{key}: expected a string", obj=obj, field=f"{field}.{key}")
    return value


def read_ledger(objects: list[KubeObject], where: str) -> tuple[list[IpEntry], list[VlanEntry]]:
    """The entries of the ledger file's one ``IpamLedger`` (none: empty)."""
    found = [o for o in objects if o.kind == LEDGER_KIND]
    if not found:
        if objects:
            raise KrmError(f"{where}: expected one {LEDGER_API_VERSION} {LEDGER_KIND}")
        return [], []
    obj = found[0]
    ip: list[IpEntry] = []
    vlan: list[VlanEntry] = []
    raw_ip = obj.get("ip") or []
    raw_vlan = obj.get("vlan") or []
    if not isinstance(raw_ip, list) or not isinstance(raw_vlan, list):
        raise KrmError(f"{where}: ip and vlan must be lists", obj=obj)
    owners: set[str] = set()
    for i, e in enumerate(raw_ip):
        field = f"ip[{i}]"
        if not isinstance(e, dict):
            raise KrmError(f"{where}: {field} must be a map", obj=obj, field=field)
        entry = IpEntry(
            _text(e, "owner", obj, field),
            _text(e, "networkInstance", obj, field),
            _text(e, "kind", obj, field),
            _text(e, "prefix", obj, field),
            _text(e, "gateway", obj, field, required=False),
        )
        if entry.owner in owners:
            raise KrmError(
                f"{where}: {field}: owner {entry.owner} has two lines", obj=obj, field=field
            )
        owners.add(entry.owner)
        ip.append(entry)
    claims: set[tuple[str, str]] = set()
    for i, e in enumerate(raw_vlan):
        field = f"vlan[{i}]"
        if not isinstance(e, dict):
            raise KrmError(f"{where}: {field} must be a map", obj=obj, field=field)
        vid = e.get("vlanID")
        if not isinstance(vid, int) or isinstance(vid, bool):
            raise KrmError(f"{where}: {field}.vlanID: expected a number", obj=obj, field=field)
        v = VlanEntry(_text(e, "index", obj, field), _text(e, "claim", obj, field), vid)
        if (v.vlan_index, v.claim) in claims:
            raise KrmError(
                f"{where}: {field}: claim {v.claim} of index {v.vlan_index} has two lines",
                obj=obj,
                field=field,
            )
        claims.add((v.vlan_index, v.claim))
        vlan.append(v)
    return ip, vlan
