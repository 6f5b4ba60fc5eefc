"""Upstream expected outputs (a Go function's ``_expected.yaml``, Nephio's pipeline results)
read for comparison with ours: one loader for every test that compares with upstream."""

from __future__ import annotations

from typing import Any

import yaml

from tests.kpt_packages import without_kpt_bookkeeping

Key = tuple[str, str, str, str]  # apiVersion, kind, namespace ("" for none), name


def upstream_items(text: str) -> tuple[dict[Key, dict[str, Any]], list[str]]:
    """The items of a ResourceList by (apiVersion, kind, namespace, name), without kpt's
    bookkeeping, and the types of the Kptfile's conditions in their order as written."""
    doc = yaml.safe_load(text) or {}
    items = doc.get("items") or []
    order = [
        c["type"]
        for i in items
        if i["kind"] == "Kptfile"
        for c in (i.get("status") or {}).get("conditions") or []
    ]
    return {
        (
            i["apiVersion"],
            i["kind"],
            i["metadata"].get("namespace", ""),
            i["metadata"]["name"],
        ): without_kpt_bookkeeping(i)
        for i in items
    }, order


def assert_same_items(ours: str, theirs: str, whose: str, *, order: bool = False) -> None:
    """Our output has exactly upstream's items, each equal to upstream's (kpt's bookkeeping
    aside); with ``order``, the Kptfile's conditions in upstream's order too."""
    our_items, our_order = upstream_items(ours)
    their_items, their_order = upstream_items(theirs)
    assert sorted(our_items) == sorted(their_items), f"not the same items as {whose}"
    for key, item in their_items.items():
        assert our_items[key] == item, f"{key} differs from {whose}"
    if order:
        assert our_order == their_order, f"the Kptfile's conditions are not in {whose} order"
