"""One object listed twice in the items (round five's review): the output gate compared
identities between different objects only, so an input item or a new object appended again was
written twice, exit 0 (kpt writes both documents into the item's file). The gate now refuses
it, naming the object, whichever way the gate reads the items (in order, or by id when an input
item went or moved)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from krmlib import KubeObject, ResourceList
from krmlib.testing import run_text
from tests.gate_support import results_of

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
ITEM = (
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n    annotations:\n"
    "      config.kubernetes.io/path: {name}.yaml\n"
    "      internal.config.kubernetes.io/path: {name}.yaml\n  data:\n    a: b\n"
)
INPUT = HEAD + ITEM.format(name="cm") + ITEM.format(name="other")


def _new() -> KubeObject:
    return KubeObject.from_dict(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}}
    )


def _input_again(rl: ResourceList) -> None:
    rl.items.append(rl.items[0])


def _input_again_written(rl: ResourceList) -> None:
    rl.items.append(rl.items[0])
    rl.items[0].set("data.a", "c")


def _new_twice(rl: ResourceList) -> None:
    obj = _new()
    rl.items.append(obj)
    rl.items.append(obj)


def _new_twice_after_a_removal(rl: ResourceList) -> None:  # the gate reads by id
    rl.items.remove(rl.items[0])
    obj = _new()
    rl.items.append(obj)
    rl.items.append(obj)


def _input_again_after_a_move(rl: ResourceList) -> None:
    first, second = rl.items[0], rl.items[1]
    rl.items.replace_all([second, first, second])


CASES: dict[str, tuple[Callable[[ResourceList], None], str]] = {
    "input item again": (_input_again, "ConfigMap cm"),
    "input item again, written": (_input_again_written, "ConfigMap cm"),
    "new object twice": (_new_twice, "ConfigMap n"),
    "new object twice, an item removed": (_new_twice_after_a_removal, "ConfigMap n"),
    "input item again, items moved": (_input_again_after_a_move, "ConfigMap other"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_object_listed_twice_is_refused_by_name(case: str) -> None:
    change, named = CASES[case]

    def process(rl: ResourceList, _config: None) -> None:
        change(rl)

    out, code = run_text(process, None, INPUT)
    assert code == 1, out
    [result] = results_of(out)
    assert result["severity"] == "error"
    assert result["message"].startswith(f"output refused: {named} is listed twice in the items")
    assert out.split("results:")[0].count("kind: ConfigMap") == 0  # nothing written


def test_distinct_objects_and_a_reorder_still_pass() -> None:
    def process(rl: ResourceList, _config: None) -> None:
        rl.items.replace_all(list(reversed(list(rl.items))))
        rl.items.append(_new())

    out, code = run_text(process, None, INPUT)
    assert code == 0, out
    assert out.count("kind: ConfigMap") == 3
