"""``KubeObject.from_dict(data, owned=True)``: the values handed over, not copied, and the object
exactly what the copy makes; the default copy keeps an SDK user's dict theirs."""

from __future__ import annotations

import datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from krmlib import KrmError, KubeObject
from krmlib._model import storage as _storage
from krmlib._yaml.scalars import StyledBool

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
KEYS = st.text("abcdefghij-./", min_size=1, max_size=8)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=20,
)


def _object(body: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, **body}


def _written(obj: KubeObject) -> Any:
    """What the object writes, or the error it gives (a value no YAML can hold)."""
    try:
        return (obj.to_item(), obj.to_yaml())
    except KrmError as exc:
        return (type(exc), exc.message)


def _same_object(a: KubeObject, b: KubeObject) -> None:
    assert a.to_dict() == b.to_dict()
    assert _written(a) == _written(b)


@settings(max_examples=300)
@given(st.dictionaries(KEYS, VALUES, max_size=5))
def test_owned_values_give_the_object_the_copy_gives(body: dict[str, Any]) -> None:
    data = _object(body)
    copied = KubeObject.from_dict(_object(body))
    owned = KubeObject.from_dict(data, owned=True)
    assert _storage.of(owned).plain is data  # plain, unshared values: taken over as they are
    _same_object(owned, copied)


class _Text(str):
    pass


NOT_PLAIN = {
    "a str subclass": _Text("v"),
    "a bool of the round trip": StyledBool(True, "True"),
    "a tuple": ("a", "b"),
    "a date": datetime.date(2024, 1, 2),
    "a key not plain": {_Text("k"): "v"},
}


def test_values_the_copy_would_change_are_copied() -> None:
    for what, value in NOT_PLAIN.items():
        data = _object({"data": {"key": value}})
        owned = KubeObject.from_dict(data, owned=True)
        assert _storage.of(owned).plain is not data, what
        _same_object(owned, KubeObject.from_dict(_object({"data": {"key": value}})))


def test_a_map_or_list_found_twice_is_copied() -> None:
    shared: dict[str, Any] = {"a": ["1"]}
    for data in (
        _object({"data": shared, "more": shared}),
        _object({"data": {"x": shared["a"], "y": shared["a"]}}),
    ):
        owned = KubeObject.from_dict(data, owned=True)
        assert _storage.of(owned).plain is not data
        owned.set("data.x", "changed")  # one place edited: not the other
        assert owned.get("more", {"a": ["1"]}) == {"a": ["1"]}
        assert owned.get("data.y", ["1"]) == ["1"]


def test_the_default_copies_a_dict_its_caller_keeps_and_changes() -> None:
    data = _object({"data": {"key": "value"}, "list": [{"a": "b"}]})
    obj = KubeObject.from_dict(data)
    data["data"]["key"] = "changed"
    data["list"][0]["a"] = "changed"
    data["kind"] = "Secret"
    assert obj.get("data.key") == "value"
    assert obj.get("list") == [{"a": "b"}]
    assert obj.kind == "ConfigMap"
    obj.set("data.key", "mine")
    assert data["data"]["key"] == "changed"  # and the object's writes stay the object's


def test_a_mapping_that_is_not_a_dict_is_copied() -> None:
    from types import MappingProxyType

    data = MappingProxyType(_object({"data": {"k": "v"}}))
    obj = KubeObject.from_dict(data, owned=True)
    assert obj.get("data.k") == "v"
