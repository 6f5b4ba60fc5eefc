"""process(): fill every IPClaim and VLANClaim of the package, as ipam-fn and vlan-fn do.

``mode: mock`` answers as the backend mocks of Nephio's pipeline tests. ``mode: ledger`` (the
default) answers from the ledger and the address space declared in git (:mod:`.space`,
:mod:`.ledger`, :mod:`.engine`): a claim with a ledger line gets it back; a new claim is
allocated in memory, away from every line of the ledger, and reported; only ``krmfn specialize``
records allocations in the ledger (a function writes no file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from krmlib import Conditions, KrmError, KubeObject, ResourceList, read_named_file, read_roots
from krmlib.packages import check_readable, read_documents, read_objects

from .claims import (
    Answer,
    apply_answer,
    claim_objects,
    kinds_of,
    mock_answer,
    orphan_conditions,
    read_claim,
)
from .config import Config

if TYPE_CHECKING:
    from .claims import Answer

MISSING_KPTFILE = (
    "mandatory Kptfile is missing from the package, error: mandatory Kptfile is missing from "
    "the package"
)


def process(rl: ResourceList, config: Config) -> None:
    if not len(rl.items):
        rl.results.info("no resources present in the resourcelist")
        return
    kptfile = rl.package().kptfile
    if kptfile is None:
        rl.results.error(MISSING_KPTFILE)
        return
    kinds = kinds_of(config.claims)
    objects = claim_objects(list(rl.items), kinds)
    conditions = Conditions(kptfile)
    answers: dict[str, Answer]
    if not objects:
        answers = {}
    elif config.mode == "mock":
        answers = {obj.name + "\0" + obj.kind: mock_answer(obj) for obj in objects}
    else:
        answers = ledger_answers(rl, config, kptfile, objects)
    filled = 0
    for obj in objects:
        answer = answers[obj.name + "\0" + obj.kind]
        if apply_answer(obj, answer, conditions):
            filled += 1
        else:
            rl.results.error(str(answer), obj)
    orphan_conditions(conditions, objects, kinds)
    conditions.flush()
    if objects:
        rl.results.info(f"{filled} of {len(objects)} claims filled ({config.mode})")


def ledger_answers(
    rl: ResourceList, config: Config, kptfile: KubeObject, objects: list[KubeObject]
) -> dict[str, Answer]:
    from pathlib import Path  # the ledger mode only: mock mode stays cheap at start-up

    from .engine import Allocator, LedgerConflict
    from .ledger import IpEntry, VlanEntry, read_ledger
    from .space import read_space

    folder = rl.package().folder
    base = Path(folder) if folder is not None else None
    items = list(rl.items)

    def in_package(name: str) -> list[KubeObject] | None:
        """The package's own items from file or folder ``name`` (None: none are)."""
        stem = name.rstrip("/") + "/"
        found = [o for o in items if o.path == name or (o.path or "").startswith(stem)]
        return found or None

    def on_disk(name: str, what: str) -> list[KubeObject]:
        if base is None:
            raise KrmError(
                f"{what} {name} is not a file of the package, and the package's folder is "
                "unknown (run the function in the package's pipeline, or give files)",
                field="spec.network" if what == "the address space" else "spec.ledger",
            )
        path = base / name
        roots = read_roots(base)
        if path.is_dir():
            check_readable(path, roots, what)
            return read_objects(path)
        return read_documents(read_named_file(path, roots, what), str(path))

    space_objects: list[KubeObject] = []
    for name in config.network:
        found = in_package(name)
        space_objects += found if found is not None else on_disk(name, "the address space")
    space = read_space(space_objects if config.network else items)
    ip: list[IpEntry] = []
    vlan: list[VlanEntry] = []
    if config.ledger:
        found = in_package(config.ledger)
        if found is None and base is not None and not (base / config.ledger).exists():
            rl.results.info(f"no ledger {config.ledger} yet: every claim is new")
            found = []
        ledger = found if found is not None else on_disk(config.ledger, "the ledger")
        ip, vlan = read_ledger(ledger, config.ledger)
    try:
        allocator = Allocator(space, ip, vlan)
    except LedgerConflict as exc:
        raise KrmError(f"the ledger {config.ledger}: {exc}") from None
    package = config.package or kptfile.name
    claims = [read_claim(obj, package) for obj in objects]
    prefix = package + "/"
    answers = allocator.allocate(claims, lambda owner: owner.startswith(prefix))
    out: dict[str, Answer] = {}
    for obj, claim in zip(objects, claims, strict=True):
        out[obj.name + "\0" + obj.kind] = answers[claim.owner]
    if allocator.changed and config.ledger:
        rl.results.info(
            "new allocations are not in the ledger yet: krmfn specialize records them "
            f"({config.ledger})"
        )
    return out
