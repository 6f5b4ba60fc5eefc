"""The NAD's ``spec.config``: the CNI configuration JSON, byte for byte as nad-fn writes it.

nad-fn (nephio-project/nephio ``krm-functions/lib/nad/v1/nad.go``) fills Go structs from a template
per cniType and marshals them with ``encoding/json``: keys in struct order, empty strings, zero
numbers and empty lists left out, empty structs kept as ``{}`` (the tuning plugin's ``"ipam":{}``),
no spaces, ``<``, ``>`` and ``&`` escaped. This module writes the same text without Go's structs.
"""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from typing import NamedTuple

CNI_VERSION = "0.3.1"
TUNING = "tuning"


class Address(NamedTuple):
    address: str  # "" when the claim has no status.prefix yet
    gateway: str


class Route(NamedTuple):
    dst: str
    gw: str


class CniError(Exception):
    """A NAD that cannot be written (the message goes into its Kptfile condition)."""


def go_string(value: str) -> str:
    """A JSON string as Go's encoding/json writes it (HTML characters and U+2028/9 escaped)."""
    plain = value.isascii() and value.isprintable()
    if plain and not any(c in value for c in '"\\<>&'):
        return f'"{value}"'
    import json  # on first use: not a start-up cost

    text = json.dumps(value, ensure_ascii=False)
    for char, escape in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


def _object(pairs: list[tuple[str, str | None]]) -> str:
    """``{"k":v,...}`` from already encoded values; None values are left out."""
    return "{" + ",".join(f'"{k}":{v}' for k, v in pairs if v is not None) + "}"


def _text(value: str) -> str | None:
    return go_string(value) if value else None


def _int(value: int) -> str | None:
    return str(value) if value else None


class Plugin:
    """One plugin of the configuration (the fields nad-fn sets)."""

    __slots__ = ("bridge", "ipam_type", "ips", "mac", "master", "mode", "name", "type")

    def __init__(self, type_: str, *, ips: bool = False, mac: bool = False, mode: str = "") -> None:
        self.type = type_
        self.ips = ips
        self.mac = mac
        self.mode = mode
        self.master = ""
        self.bridge = ""
        self.name = ""
        self.ipam_type = "" if type_ == TUNING else "static"

    def json(self, addresses: list[Address], routes: list[Route]) -> str:
        capabilities = _object(
            [("ips", "true" if self.ips else None), ("mac", "true" if self.mac else None)]
        )
        if self.type == TUNING:
            addresses, routes = [], []
        ipam = _object(
            [
                ("type", _text(self.ipam_type)),
                (
                    "addresses",
                    "["
                    + ",".join(
                        _object([("address", _text(a.address)), ("gateway", _text(a.gateway))])
                        for a in addresses
                    )
                    + "]"
                    if addresses
                    else None,
                ),
                (
                    "routes",
                    "["
                    + ",".join(
                        _object([("dst", _text(r.dst)), ("gw", _text(r.gw))]) for r in routes
                    )
                    + "]"
                    if routes
                    else None,
                ),
            ]
        )
        return _object(
            [
                ("type", _text(self.type)),
                ("capabilities", capabilities),
                ("master", _text(self.master)),
                ("mode", _text(self.mode)),
                ("ipam", ipam),
                ("bridge", _text(self.bridge)),
                ("name", _text(self.name)),
            ]
        )


def plugins_for(cni_type: str) -> list[Plugin]:
    """nad-fn's template for a cniType (any other type: the sriov template with that type)."""
    if cni_type == "ipvlan":
        return [Plugin(cni_type, ips=True, mode="l2")]
    if cni_type == "macvlan":
        return [Plugin(cni_type, ips=True, mode="bridge"), Plugin(TUNING, mac=True)]
    if cni_type in ("vlan", "bridge"):
        return [Plugin(cni_type)]
    return [Plugin(cni_type, ips=True, mode="bridge")]


def cni_config(
    cni_type: str,
    master: str,
    vlan_id: int,
    addresses: list[Address],
    routes: list[Route],
    *,
    top_level_vlan: bool = False,
) -> str:
    """The configuration of current nad-fn (``top_level_vlan``: the May 2023 form, with the VLAN
    id as a top-level ``vlan`` and the master interface without a VLAN suffix)."""
    if not cni_type:
        raise CniError("unknown cniType")
    plugins = plugins_for(cni_type)
    main = [p for p in plugins if p.type != TUNING]
    if cni_type == "bridge" and not top_level_vlan:
        if not vlan_id:
            raise CniError("unknown vlanID")
        for plugin in main:
            plugin.bridge = plugin.name = f"cni{vlan_id}"
    else:
        if not master:
            raise CniError("unknown nad master interface")
        if vlan_id and cni_type != "vlan" and not top_level_vlan:
            master = f"{master}.{vlan_id}"
        for plugin in main:
            plugin.master = master
    body = "[" + ",".join(p.json(addresses, routes) for p in plugins) + "]"
    return _object(
        [
            ("cniVersion", go_string(CNI_VERSION)),
            ("vlan", _int(vlan_id) if top_level_vlan else None),
            ("plugins", body),
        ]
    )


def vlan_only_config(vlan_id: int, *, top_level_vlan: bool = False) -> str:
    """Only VLAN claims: ``""`` (current nad-fn); the May 2023 form wrote the VLAN id alone."""
    if not top_level_vlan:
        return ""
    return _object([("cniVersion", go_string(CNI_VERSION)), ("vlan", _int(vlan_id))])
