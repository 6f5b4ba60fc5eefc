"""Allocation with nokia/k8s-ipam's semantics, over the address space and the ledger.

One :class:`Allocator` per run: the ledger's lines are loaded first (a line that overlaps another
owner's is an error naming both: a hand edit that would give one address twice), then
:meth:`Allocator.allocate` answers every claim of the run, in an order that does not depend on the
order the claims were read in: the claims that have a ledger line still fitting them keep it;
lines of claims gone (within the run's scope) are released; then static claims (``spec.prefix``),
then claims whose ``status.prefix`` hint is free, then the dynamic ones, each group sorted by
owner. Every answer is a status (``prefix``/``gateway``, or ``vlanID``) or an error message.
"""

from __future__ import annotations

import bisect
import ipaddress
from collections.abc import Callable, Iterable

from .claims import Answer, Claim
from .ledger import IpEntry, VlanEntry
from .space import IPNetwork, Prefix, Space, family

VLAN_FIRST, VLAN_LAST = 2, 4094  # 0, 1 and 4095 are reserved


def interval(prefix: str) -> tuple[int, int]:
    """The addresses an allocation holds: one address, or a whole prefix."""
    iface = ipaddress.ip_interface(prefix)
    net = iface.network
    if iface.ip == net.network_address and net.prefixlen < net.max_prefixlen:
        return int(net.network_address), int(net.broadcast_address)
    return int(iface.ip), int(iface.ip)


class _Used:
    """The allocated intervals of one network instance, sorted, never overlapping."""

    __slots__ = ("ends", "owners", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.owners: list[str] = []

    def holder(self, start: int, end: int) -> int:
        """The index of an interval overlapping [start, end], or -1."""
        i = bisect.bisect_right(self.starts, end) - 1
        return i if i >= 0 and self.ends[i] >= start else -1

    def add(self, start: int, end: int, owner: str) -> None:
        i = bisect.bisect_left(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)
        self.owners.insert(i, owner)

    def remove(self, start: int, owner: str) -> None:
        i = bisect.bisect_left(self.starts, start)
        while i < len(self.starts) and self.starts[i] == start:
            if self.owners[i] == owner:
                del self.starts[i], self.ends[i], self.owners[i]
                return
            i += 1


class LedgerConflict(Exception):
    """Two ledger lines (or a line and a gateway) hold the same address."""


class Allocator:
    """The address space, the ledger, and what this run allocated."""

    def __init__(self, space: Space, ip: Iterable[IpEntry], vlan: Iterable[VlanEntry]) -> None:
        self.space = space
        self.used: dict[str, _Used] = {}
        self.ip: dict[str, IpEntry] = {}
        self.vlan: dict[tuple[str, str], VlanEntry] = {}
        self.vlan_used: dict[str, dict[int, str]] = {}
        for prefixes in space.prefixes.values():
            for p in prefixes:
                if p.gateway:
                    gw = int(ipaddress.ip_address(p.gateway))
                    used = self.used.setdefault(p.network_instance, _Used())
                    if used.holder(gw, gw) < 0:
                        used.add(gw, gw, f"the gateway of {p.net}")
        for entry in ip:
            try:
                start, end = interval(entry.prefix)
            except ValueError as exc:
                raise LedgerConflict(
                    f"owner {entry.owner}: not a prefix: {entry.prefix} ({exc})"
                ) from None
            used = self.used.setdefault(entry.network_instance, _Used())
            held = used.holder(start, end)
            if held >= 0:
                raise LedgerConflict(
                    f"{entry.prefix} of {entry.owner} overlaps what {used.owners[held]} holds "
                    f"in network instance {entry.network_instance}"
                )
            used.add(start, end, entry.owner)
            self.ip[entry.owner] = entry
        for v in vlan:
            ids = self.vlan_used.setdefault(v.vlan_index, {})
            if v.vlan_id in ids or not VLAN_FIRST <= v.vlan_id <= VLAN_LAST:
                other = ids.get(v.vlan_id, "the reserved IDs 0, 1, 4095")
                raise LedgerConflict(
                    f"VLAN {v.vlan_id} of index {v.vlan_index}: {v.claim} and {other}"
                )
            ids[v.vlan_id] = v.claim
            self.vlan[(v.vlan_index, v.claim)] = v
        self.changed = False

    # -- releases ---------------------------------------------------------------------------

    def release_ip(self, owner: str) -> None:
        entry = self.ip.pop(owner, None)
        if entry is not None:
            self.used[entry.network_instance].remove(interval(entry.prefix)[0], owner)
            self.changed = True

    def release_vlan(self, key: tuple[str, str]) -> None:
        v = self.vlan.pop(key, None)
        if v is not None:
            del self.vlan_used[v.vlan_index][v.vlan_id]
            self.changed = True

    # -- the run ----------------------------------------------------------------------------

    def allocate(
        self, claims: list[Claim], in_scope: Callable[[str], bool] = lambda owner: True
    ) -> dict[str, Answer]:
        """An answer per claim owner (vlan claims: per ``<index>/<vlan name>`` too)."""
        answers: dict[str, Answer] = {}
        ip_claims = sorted((c for c in claims if c.kind == "ip"), key=lambda c: c.owner)
        vlan_claims = sorted((c for c in claims if c.kind == "vlan"), key=lambda c: c.owner)
        present = {c.owner for c in ip_claims}
        for owner in [o for o in self.ip if o not in present and in_scope(o)]:
            self.release_ip(owner)
        wanted = {(c.vlan_index, c.vlan_name) for c in vlan_claims}
        for key in [k for k in self.vlan if k not in wanted and in_scope(f"{k[0]}/{k[1]}")]:
            self.release_vlan(key)
        pending: list[Claim] = []
        for c in ip_claims:
            entry = self.ip.get(c.owner)
            if entry is not None and self._fits(c, entry):
                answers[c.owner] = _status(entry)
            else:
                self.release_ip(c.owner)
                pending.append(c)
        for group in ("static", "hint", "dynamic"):
            for c in pending:
                if c.owner in answers:
                    continue
                answer = self._claim(c, group)
                if answer is not None:
                    answers[c.owner] = answer
        for c in vlan_claims:
            answers[c.owner] = self._vlan(c)
        return answers

    def _fits(self, c: Claim, entry: IpEntry) -> bool:
        if entry.network_instance != c.network_instance or entry.kind != c.prefix_kind:
            return False
        if c.static and entry.prefix != c.static:
            return False
        return self._parent(c, entry.prefix) is not None

    def _parent(self, c: Claim, prefix: str) -> Prefix | None:
        """The candidate ``prefix`` would be taken from for ``c``, when it is a valid answer."""
        try:
            iface = ipaddress.ip_interface(prefix)
        except ValueError:
            return None
        match = dict(c.match)
        for p in self.space.candidates(c.network_instance, match):
            if p.net.version != iface.version:
                continue
            if _is_prefix_claim(c):
                if (
                    iface.network.prefixlen == c.prefix_length
                    and iface.ip == iface.network.network_address
                    and _inside(iface.network, p.net)
                    and p.net.prefixlen < iface.network.prefixlen
                ):
                    return p
                continue
            if p.kind not in (c.prefix_kind, "aggregate") or iface.ip not in p.net:
                continue
            lo, hi = _host_range(p.net)
            if not lo <= int(iface.ip) <= hi or (p.gateway and str(iface.ip) == p.gateway):
                continue
            length = p.net.prefixlen if c.prefix_kind == "network" else iface.network.max_prefixlen
            if iface.network.prefixlen == length:
                return p
        return None

    def _take(self, c: Claim, prefix: str, parent: Prefix) -> dict[str, object]:
        start, end = interval(prefix)
        self.used.setdefault(c.network_instance, _Used()).add(start, end, c.owner)
        gateway = parent.gateway if c.prefix_kind == "network" and not _is_prefix_claim(c) else ""
        entry = IpEntry(c.owner, c.network_instance, c.prefix_kind, prefix, gateway)
        self.ip[c.owner] = entry
        self.changed = True
        return _status(entry)

    def _free(self, c: Claim, prefix: str) -> bool:
        start, end = interval(prefix)
        return self.used.setdefault(c.network_instance, _Used()).holder(start, end) < 0

    def _claim(self, c: Claim, group: str) -> Answer | None:
        problem = _check(c)
        if problem:
            return problem if group == "dynamic" else None
        if c.static:
            if group != "static":
                return None
            parent = self._parent(c, c.static)
            if parent is None:
                return (
                    f"static claim: {c.static} is not a {c.prefix_kind} prefix of the selected "
                    f"routes ({_selector(c)})"
                )
            if not self._free(c, c.static):
                return (
                    f"static claim: {c.static} is already claimed in network instance "
                    f"{c.network_instance}"
                )
            return self._take(c, c.static, parent)
        if group == "static":
            return None
        if group == "hint":
            if c.hint and (parent := self._parent(c, c.hint)) is not None and self._free(c, c.hint):
                return self._take(c, c.hint, parent)
            return None
        candidates = self.space.candidates(c.network_instance, dict(c.match))
        if not candidates:
            return (
                "dynamic claim: no available routes based on the selector labels "
                f"{_selector(c)} in network instance {c.network_instance}"
            )
        used = self.used.setdefault(c.network_instance, _Used())
        if _is_prefix_claim(c):
            assert c.prefix_length is not None
            tried = [p for p in candidates if p.net.prefixlen < c.prefix_length]
            tried.sort(key=lambda p: p.kind != c.prefix_kind)  # stable: the claim's kind first
            for p in tried:
                if c.prefix_length > p.net.max_prefixlen:
                    continue
                start = _first_free_block(used, p.net, c.prefix_length)
                if start is not None:
                    net = type(p.net)((start, c.prefix_length))
                    return self._take(c, str(net), p)
            return (
                f"no free prefix found: every /{c.prefix_length} of {_names(tried)} is claimed "
                f"(network instance {c.network_instance}, {_selector(c)})"
            )
        tried = [p for p in candidates if p.kind == c.prefix_kind] or [
            p for p in candidates if p.kind == "aggregate"
        ]
        for p in tried:
            lo, hi = _host_range(p.net)
            address = _first_free_address(used, lo, hi)
            if address is not None:
                ip = type(p.net.network_address)(address)
                length = p.net.prefixlen if c.prefix_kind == "network" else p.net.max_prefixlen
                if c.prefix_length:
                    length = c.prefix_length
                return self._take(c, f"{ip}/{length}", p)
        if not tried:
            return (
                f"dynamic claim: no {c.prefix_kind} or aggregate route among the routes "
                f"selected by {_selector(c)} in network instance {c.network_instance}"
            )
        return (
            f"no free address found: {_names(tried)} is full (network instance "
            f"{c.network_instance}, {_selector(c)})"
        )

    def _vlan(self, c: Claim) -> Answer:
        key = (c.vlan_index, c.vlan_name)
        ids = self.vlan_used.setdefault(c.vlan_index, {})
        entry = self.vlan.get(key)
        if entry is not None and (c.vlan_id is None or entry.vlan_id == c.vlan_id):
            return {"vlanID": entry.vlan_id}
        if entry is not None:
            self.release_vlan(key)
        want: int | None = c.vlan_id
        if want is not None:
            if not VLAN_FIRST <= want <= VLAN_LAST:
                return f"VLAN {want} is reserved or out of range ({VLAN_FIRST}-{VLAN_LAST})"
            if want in ids:
                return f"VLAN {want} of index {c.vlan_index} is already claimed by {ids[want]}"
        elif (
            c.vlan_hint is not None
            and VLAN_FIRST <= c.vlan_hint <= VLAN_LAST
            and c.vlan_hint not in ids
        ):
            want = c.vlan_hint
        else:
            want = next((i for i in range(VLAN_FIRST, VLAN_LAST + 1) if i not in ids), None)
            if want is None:
                return f"VLAN index {c.vlan_index} has no free VLAN ID ({VLAN_FIRST}-{VLAN_LAST})"
        ids[want] = c.vlan_name
        self.vlan[key] = VlanEntry(c.vlan_index, c.vlan_name, want)
        self.changed = True
        return {"vlanID": want}

    def entries(self) -> tuple[list[IpEntry], list[VlanEntry]]:
        return list(self.ip.values()), list(self.vlan.values())


def _inside(net: IPNetwork, parent: IPNetwork) -> bool:
    return (
        net.version == parent.version
        and int(parent.network_address) <= int(net.network_address)
        and int(net.broadcast_address) <= int(parent.broadcast_address)
    )


def _is_prefix_claim(c: Claim) -> bool:
    return c.create_prefix and c.prefix_length is not None


def _check(c: Claim) -> str:
    if c.create_prefix and c.prefix_length is None and not c.static:
        return "a dynamic prefix claimation w/o a prefix length need a prefix length to be set"
    if c.prefix_kind in ("pool", "aggregate") and not c.static and not _is_prefix_claim(c):
        return (
            f"a dynamic claim of kind {c.prefix_kind} is not supported unless prefixlength and "
            "create prefix is set"
        )
    if c.prefix_kind not in ("network", "loopback", "pool", "aggregate"):
        return f"unexpected prefix kind: got: {c.prefix_kind}"
    return ""


def _status(entry: IpEntry) -> dict[str, object]:
    out: dict[str, object] = {"prefix": entry.prefix}
    if entry.gateway:
        out["gateway"] = entry.gateway
    return out


def _selector(c: Claim) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in c.match) + "}"


def _names(prefixes: list[Prefix]) -> str:
    return ", ".join(f"{p.net} ({p.origin})" for p in prefixes) or "no route"


def _host_range(net: IPNetwork) -> tuple[int, int]:
    lo, hi = int(net.network_address), int(net.broadcast_address)
    if net.num_addresses > 2:
        return lo + 1, hi - 1  # never the network or the broadcast address
    return lo, hi


def _first_free_address(used: _Used, lo: int, hi: int) -> int | None:
    address = lo
    while address <= hi:
        held = used.holder(address, address)
        if held < 0:
            return address
        address = used.ends[held] + 1
    return None


def _first_free_block(used: _Used, net: IPNetwork, length: int) -> int | None:
    size = 1 << (net.max_prefixlen - length)
    start, last = int(net.network_address), int(net.broadcast_address)
    while start + size - 1 <= last:
        held = used.holder(start, start + size - 1)
        if held < 0:
            return start
        after = used.ends[held] + 1
        start = (after + size - 1) // size * size
    return None


__all__ = ["Allocator", "LedgerConflict", "family"]
