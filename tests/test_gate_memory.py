"""The output gate's notes and snapshot at less memory (issue 37, peak RSS; bench/RESULTS.md,
"h/rss"), with the same answers.

``Snapshot.olds`` finds each item's identity before the run by walking the snapshot and the
items in order, with no dict of every item's id; when the order does not hold (an item removed,
moved, or in the list twice) it answers from that dict, as the gate did before. The write hook
keeps one ``(code, offset)`` tuple per place of the function's code, not one per object.
"""

from __future__ import annotations

from krmlib import KubeObject, ResourceList
from krmlib._io import watch
from krmlib.testing import run_text
from tests.gate_support import results_of

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def _cm(name: str) -> str:
    return (
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n"
        f"    annotations:\n      config.kubernetes.io/path: {name}.yaml\n"
        f"      internal.config.kubernetes.io/path: {name}.yaml\n  data:\n    a: b\n"
    )


def _new(name: str) -> KubeObject:
    return KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": name}})  # fmt: skip


def _input(count: int = 6) -> ResourceList:
    return ResourceList.parse(HEAD + "".join(_cm(f"cm{n}") for n in range(count)))


def _by_dict(before: watch.Snapshot, items: list[KubeObject]) -> list[object]:
    identities = dict(before.identities)
    return [identities.get(id(obj)) for obj in items]


def _second_listing(items: list[KubeObject]) -> int:
    """The index of the first object listed a second time in ``items``, or -1."""
    ids = [id(obj) for obj in items]
    return next((at for at, key in enumerate(ids) if key in ids[:at]), -1)


def _edits() -> list[tuple[str, object]]:
    def inserted(items: list[KubeObject]) -> list[KubeObject]:
        return [items[0], _new("a"), *items[1:3], _new("b"), *items[3:], _new("c")]

    def removed(items: list[KubeObject]) -> list[KubeObject]:
        return items[:2] + items[3:]

    def moved(items: list[KubeObject]) -> list[KubeObject]:
        return [items[3], *items[:3], *items[4:]]

    def twice(items: list[KubeObject]) -> list[KubeObject]:
        return [*items, items[1]]

    def twice_new(items: list[KubeObject]) -> list[KubeObject]:
        return [*items, _new("d"), items[0]]

    def empty(items: list[KubeObject]) -> list[KubeObject]:
        return []

    return [(f.__name__, f) for f in (inserted, removed, moved, twice, twice_new, empty)]


def test_olds_answer_as_the_dict_of_ids_whatever_the_order() -> None:
    for name, edit in _edits():
        rl = _input()
        before = watch.Snapshot(rl)
        items = edit(list(rl.items))  # type: ignore[operator]
        olds, twice = before.olds(items)
        assert olds == _by_dict(before, items), name
        assert twice == _second_listing(items), name


def test_olds_in_order_with_new_items_build_no_dict_of_ids() -> None:
    rl = _input()
    before = watch.Snapshot(rl)
    items = list(rl.items)
    items.insert(2, _new("x"))
    items.append(_new("y"))
    olds, twice = before.olds(items)
    assert twice == -1
    assert olds[2] is None and olds[-1] is None and None not in olds[:2] + olds[3:-1]
    assert before._identities is None  # the walk answered: no dict by id (memory)


def test_a_moved_input_item_renamed_onto_another_is_refused() -> None:
    def moves(rl: ResourceList, config: None) -> None:
        items = list(rl.items)
        items[2].set("metadata.name", "cm0")  # meets cm0, which stays
        rl.items.replace_all([items[2], items[0], items[1]])

    out, code = run_text(moves, None, HEAD + "".join(_cm(f"cm{n}") for n in range(3)))
    assert code == 1, out
    assert "another item has the same identity" in results_of(out)[0]["message"]


def test_objects_made_at_one_line_share_one_noted_place() -> None:
    seen: list[int] = []

    def makes(rl: ResourceList, config: None) -> None:
        for n in range(50):
            rl.items.append(_new(f"made-{n}"))
        for n in range(50):
            rl.items.append(KubeObject.from_dict({"apiVersion": "v1", "kind": "Secret",
                                                  "metadata": {"name": f"s-{n}"}}))  # fmt: skip
        seen.extend(id(place) for place in watch._WHERE.values())

    out, code = run_text(makes, None, HEAD + _cm("cm0"))
    assert code == 0, out
    assert len(seen) >= 100
    assert len(set(seen)) == 2  # one tuple per place (_new's line, the loop's), not per object


def test_olds_answer_as_the_dict_of_ids_after_random_edits() -> None:
    import random

    chooser = random.Random(37)
    for _round in range(200):
        rl = _input(chooser.randint(0, 8))
        before = watch.Snapshot(rl)
        items = list(rl.items)
        for _edit in range(chooser.randint(0, 4)):
            what = chooser.choice(("insert", "remove", "move", "twice", "append"))
            at = chooser.randint(0, len(items))
            if what == "insert":
                items.insert(at, _new(f"n{_edit}"))
            elif what == "append":
                items.append(_new(f"a{_edit}"))
            elif items and what == "remove":
                items.pop(min(at, len(items) - 1))
            elif items and what == "move":
                items.insert(at, items.pop(chooser.randrange(len(items))))
            elif items:
                items.insert(at, chooser.choice(items))
        olds, twice = before.olds(items)
        assert olds == _by_dict(before, items), items
        assert twice == _second_listing(items), items
        assert before.olds(items) == (olds, twice)  # nothing kept from one call to the next
