"""The NAD's routes: the prefixes of the package's ``Network`` routing tables (nad-fn, Nephio #319).

For a claim with a prefix and a gateway, every ``Network`` ``spec.routingTables[]`` named like the
claim's network instance gives its ``prefixes[].prefix`` of the claim's address family as routes
through the claim's gateway (prefix labels are not read: pool prefixes are routes too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cni import CniError, Route

if TYPE_CHECKING:
    from krmlib import KubeObject


class RoutingTables:
    """The package's routing tables, indexed once by name."""

    __slots__ = ("_families", "_tables")

    def __init__(self, networks: list[KubeObject]) -> None:
        self._tables: dict[str, list[tuple[str, str]]] = {}  # name -> [(prefix, Network name)]
        self._families: dict[str, int] = {}
        for network in networks:
            tables = network.get("spec.routingTables")
            if not isinstance(tables, list):
                continue
            for table in tables:
                if not isinstance(table, dict) or not isinstance(table.get("name"), str):
                    continue
                prefixes = table.get("prefixes")
                found = self._tables.setdefault(table["name"], [])
                for entry in prefixes if isinstance(prefixes, list) else []:
                    if isinstance(entry, dict) and isinstance(entry.get("prefix"), str):
                        found.append((entry["prefix"], network.name))

    def family(self, prefix: str, what: str) -> int:
        """4 or 6; CniError naming ``what`` when ``prefix`` is not an IP prefix."""
        family = self._families.get(prefix)
        if family is None:
            import ipaddress  # on first use: only a package with routes pays for it

            try:
                family = ipaddress.ip_network(prefix, strict=False).version
            except ValueError as exc:
                raise CniError(f"{what} {prefix!r} is not an IP prefix: {exc}") from None
            self._families[prefix] = family
        return family

    def routes(self, network: str, address: str, gateway: str) -> list[Route]:
        """The routes of a claim on ``network`` with ``address`` and ``gateway``."""
        table = self._tables.get(network)
        if not table:
            return []
        family = self.family(address, "the claim's status.prefix")
        return [
            Route(prefix, gateway)
            for prefix, owner in table
            if self.family(prefix, f"Network {owner} routing table {network} prefix") == family
        ]
