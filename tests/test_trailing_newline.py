"""A value ending in a newline keeps it (round four's review). Patterns written ``^...$`` and
asked with ``match`` also match before a final newline: the small emitter wrote ``x\\n`` plain
as ``x`` and ``y\\n`` quoted with the newline inside (read back ``"y "``), the splicer set
``abc\\n`` as ``abc``, and a new key ``k\\n`` gave output krmlib's own reader refuses. Each such
pattern now ends in ``\\Z``. And ruamel ended an item whose last value keeps two final newlines
(``|+``) with the document end marker ``...``, which ended the whole ResourceList: the reader
refused krmlib's own output. The marker is dropped (krmlib/_yaml/rt.py)."""

from __future__ import annotations

import pytest

from krmfn.topology_to_pvs import catalog
from krmlib import KubeObject, ResourceList

RL = (
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n  data:\n    a: b\n"
)
VALUES = ["abc\n", "y\n", "T\n", "x\n\n", "10.0.0.1/24\n", "\n"]


def _read_back(rl: ResourceList) -> list[KubeObject]:
    return list(ResourceList.parse(rl.to_yaml()).items)  # the output reads back


@pytest.mark.parametrize("value", VALUES)
def test_a_value_set_on_an_item_keeps_its_final_newline(value: str) -> None:
    rl = ResourceList.parse(RL)
    obj = rl.items[0]
    obj.set("data.a", value)
    obj.set("metadata.labels", {"k": value})
    [back] = _read_back(rl)
    assert back.get("data.a") == value
    assert back.get("metadata.labels") == {"k": value}


@pytest.mark.parametrize("value", VALUES)
def test_a_new_object_keeps_a_final_newline_in_its_keys_and_values(value: str) -> None:
    rl = ResourceList.parse(RL)
    data = {"a": value, f"k{value}": "v", "list": [value]}
    rl.items.append(
        KubeObject.from_dict(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}, "data": data}
        )
    )
    assert _read_back(rl)[1].get("data") == data


def test_a_revision_with_a_final_newline_is_no_revision_number() -> None:
    assert catalog._number("v3") == 3
    assert catalog._number("v3\n") is None
