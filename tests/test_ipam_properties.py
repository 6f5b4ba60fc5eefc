"""Property tests of the allocator over generated trees: no two allocations overlap, answers are
stable under rerun, re-ordering and renaming of other packages, a deleted claim is released,
and a full pool is an error naming it, never a duplicate."""

from __future__ import annotations

import itertools
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from krmfn.ipam_allocator.claims import Claim
from krmfn.ipam_allocator.engine import Allocator, interval
from krmfn.ipam_allocator.ledger import format_ledger, read_ledger
from krmfn.ipam_allocator.space import Space, read_space
from krmlib import KubeObject
from krmlib.packages import read_documents

CLUSTERS = ["edge01", "edge02", "regional"]
INSTANCES = ["vpc-a", "vpc-b"]


def space() -> Space:
    """Small prefixes, so that generated trees fill them: per cluster a /28 network (13 hosts
    after the gateway) and a /22 pool (four /24s) in each network instance."""
    objects = [
        KubeObject.from_dict(
            {
                "apiVersion": "infra.nephio.org/v1alpha1",
                "kind": "Network",
                "metadata": {"name": ni},
                "spec": {
                    "routingTables": [
                        {
                            "name": ni,
                            "prefixes": [
                                {"prefix": f"10.{i}.0.0/24"},
                                {"prefix": f"10.{i + 10}.0.0/20",
                                 "labels": {"nephio.org/prefix-kind": "pool"}},
                            ],
                        }
                    ]
                },
            }
        )
        for i, ni in enumerate(INSTANCES)
    ]  # fmt: skip
    inventory = {
        "apiVersion": "krmfn.dev/v1alpha1",
        "kind": "IpamInventory",
        "metadata": {"name": "inventory"},
        "spec": {
            "clusters": CLUSTERS,
            "networks": [
                {"name": ni, "network": {"ipv4": 28}, "pool": {"ipv4": 22}} for ni in INSTANCES
            ],
        },
    }
    return read_space([*objects, KubeObject.from_dict(inventory)])


SPACE = space()


def claim(package: str, name: str, ni: str, cluster: str, pool: bool, hint: str = "") -> Claim:
    match = (("nephio.org/address-family", "ipv4"), ("nephio.org/cluster-name", cluster))
    return Claim(
        kind="ip",
        owner=f"{package}/{name}",
        package=package,
        name=name,
        network_instance=ni,
        prefix_kind="pool" if pool else "network",
        match=match,
        prefix_length=24 if pool else None,
        create_prefix=pool,
        hint=hint,
    )


claim_specs = st.tuples(st.sampled_from(INSTANCES), st.sampled_from(CLUSTERS), st.booleans())
trees = st.dictionaries(
    st.text("abcdefgh", min_size=1, max_size=4).map(lambda s: f"pkg-{s}"),
    st.lists(claim_specs, min_size=1, max_size=6),
    min_size=1,
    max_size=8,
)


def claims_of(tree: dict[str, list[tuple[str, str, bool]]]) -> list[Claim]:
    return [
        claim(package, f"c{n}", ni, cluster, pool)
        for package, specs in tree.items()
        for n, (ni, cluster, pool) in enumerate(specs)
    ]


def run(claims: list[Claim], ledger: str = "") -> tuple[dict[str, Any], str]:
    ip, vlan = read_ledger(read_documents(ledger, "ledger"), "ledger") if ledger else ([], [])
    allocator = Allocator(SPACE, ip, vlan)
    answers = allocator.allocate(claims)
    return answers, format_ledger(*allocator.entries())


def assert_disjoint(claims: list[Claim], answers: dict[str, Any]) -> None:
    held: dict[str, list[tuple[int, int, str]]] = {}
    for c in claims:
        answer = answers[c.owner]
        if isinstance(answer, dict):
            start, end = interval(str(answer["prefix"]))
            held.setdefault(c.network_instance, []).append((start, end, c.owner))
    gateways = {
        (p.network_instance, p.gateway) for ps in SPACE.prefixes.values() for p in ps if p.gateway
    }
    for ni, spans in held.items():
        spans.sort()
        for (_s1, e1, o1), (s2, _e2, o2) in itertools.pairwise(spans):
            assert e1 < s2, f"{o1} and {o2} overlap in {ni}"
    for c in claims:
        answer = answers[c.owner]
        if isinstance(answer, dict):
            address = str(answer["prefix"]).split("/")[0]
            assert (c.network_instance, address) not in gateways


@settings(max_examples=60)
@given(trees)
def test_no_two_allocations_overlap_and_a_full_pool_is_an_error_naming_it(tree: Any) -> None:
    claims = claims_of(tree)
    answers, _ = run(claims)
    assert_disjoint(claims, answers)
    for c in claims:
        answer = answers[c.owner]
        if isinstance(answer, str):  # only ever because the cluster's prefix is full
            assert "is full" in answer or "no free prefix found" in answer, answer
            assert c.match[1][1] in answer  # the cluster's prefix is named (with its origin)
            same = [
                o
                for o in claims
                if (o.network_instance, o.match, o.prefix_kind)
                == (c.network_instance, c.match, c.prefix_kind)
            ]
            assert len(same) > (4 if c.create_prefix else 13)


@settings(max_examples=40)
@given(trees, st.randoms(use_true_random=False))
def test_a_rerun_in_any_order_gives_the_same_answers(tree: Any, rnd: random.Random) -> None:
    claims = claims_of(tree)
    answers, ledger = run(claims)
    shuffled = list(claims)
    rnd.shuffle(shuffled)
    again, ledger2 = run(shuffled, ledger)
    assert again == answers
    assert ledger2 == ledger
    # and on a fresh start the order claims are read in does not matter either
    assert run(shuffled)[0] == answers


@settings(max_examples=40)
@given(trees, st.data())
def test_renaming_a_package_moves_nothing_of_the_others(tree: Any, data: st.DataObject) -> None:
    claims = claims_of(tree)
    answers, ledger = run(claims)
    renamed = data.draw(st.sampled_from(sorted(tree)))
    new_name = "zz-" + renamed
    moved = []
    for c in claims:
        if c.package != renamed:
            moved.append(c)
            continue
        hint = answers[c.owner]["prefix"] if isinstance(answers[c.owner], dict) else ""
        moved.append(
            claim(new_name, c.name, c.network_instance, c.match[1][1], c.create_prefix, hint)
        )
    again, _ = run(moved, ledger)
    for c in claims:
        if c.package != renamed:
            assert again[c.owner] == answers[c.owner]
    assert_disjoint(moved, again)
    for c in moved:  # the renamed package keeps its addresses through the status.prefix hint
        if c.package == new_name and c.hint:
            assert again[c.owner]["prefix"] == c.hint


@settings(max_examples=40)
@given(trees, st.data())
def test_a_deleted_package_releases_its_allocations(tree: Any, data: st.DataObject) -> None:
    claims = claims_of(tree)
    answers, ledger = run(claims)
    gone = data.draw(st.sampled_from(sorted(tree)))
    kept = [c for c in claims if c.package != gone]
    again, ledger2 = run(kept, ledger)
    assert f"owner: {gone}/" not in ledger2
    for c in kept:
        if isinstance(answers[c.owner], dict):
            assert again[c.owner] == answers[c.owner]
    # what it held is free again: the same claims back get addresses without overlap
    back, _ = run(claims, ledger2)
    assert_disjoint(claims, back)
