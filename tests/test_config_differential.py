"""The krmlib config layer against the pydantic models it replaced, input by input.

tests/legacy_configs.py is a frozen copy of the configs as pydantic models (and of the old
``parse_config``). Every function's config is parsed both ways from the same functionConfig (no
config, a ConfigMap, the typed form) over many inputs: each field given every value of a pool
(right and wrong types, strings for numbers and booleans, enum values and typos, empty values,
nested records and their errors, validators' errors), unknown fields and keys, combinations,
and random inputs. Both must accept or reject alike, give equal values, and the same error
field and message.
"""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import krmlib
from krmfn.registry import BY_NAME
from krmlib import ConfigError, KubeObject, Record, parse_config
from krmlib.models import field_annotation

from . import legacy_configs as legacy

PAIRS: dict[str, type[Any]] = {
    "applyset-labeler": legacy.ApplysetConfig,
    "interface-expander": legacy.InterfaceExpanderConfig,
    "merger": legacy.MergerConfig,
    "preparer": legacy.PreparerConfig,
    "topology-to-pvs": legacy.TopologyToPvsConfig,
}

# Values every field is given in the typed form (YAML can carry each of these).
VALUES: list[Any] = [
    None, "", " ", "x", "3", " 3 ", "3.0", "3.5", "-1", "0", "1", "1001", "1_0", "+5", "1e3",
    "inf", "nan", "true", "True", "FALSE", "yes", "no", "on", "off", "y", "t", "maybe",
    0, 1, 2, -1, 16, 1000, 1001, 2**63, 3.0, 3.5, 0.0, 1.0, 0.5, -0.0, 1e19, math.inf, math.nan,
    True, False, [], ["a"], ["a", "b"], [1], [None], [{"a": 1}], [{}], {}, {"a": "b"}, {"a": 1},
    {"a": None}, {1: "a"}, {"a": {"b": 1}},
]  # fmt: skip
# Values every key is given in the ConfigMap form (always text).
TEXTS: list[str] = [
    "", " ", "x", "3", " 7 ", "0", "-1", "1001", "3.5", "1e3", "true", "False", "YES", "no",
    "on", "off", "1", "maybe", "a,b", " a , b ,", ",", "a=b,c=d", "a=b,c", "=x", "smf:upf",
    "smf", "smf:smf", "upf:amf, smf:upf", "smf:upff", "amf:x, smf:upf", "{topology}-x", "{x}",
    "{instance}{topology}", "kubectl/v1", "helm/3", "/x", "x/", "applyset.k8s.io/",
    "applyset.kubernetes.io", "kubectl", "managed", "nephio", "design",
]  # fmt: skip


def _new(name: str) -> type[Any]:
    config = BY_NAME[name].load()[1]
    assert issubclass(config, Record)
    return config


def _typo(word: str) -> str:
    middle = len(word) // 2
    return (
        word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]
        if middle
        else word + "x"
    )


def _literals(annotation: Any) -> list[Any]:
    """The values of every Literal inside an annotation."""
    if typing.get_origin(annotation) is typing.Literal:
        return list(typing.get_args(annotation))
    return [v for arg in typing.get_args(annotation) for v in _literals(arg)]


def _records(annotation: Any) -> list[type[Any]]:
    """The (legacy, pydantic) model classes inside an annotation."""
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _records(arg)]


def _field_values(annotation: Any, depth: int = 0) -> Iterator[Any]:
    yield from VALUES
    for value in _literals(annotation):
        yield value
        yield _typo(str(value))
        yield str(value).upper()
    if depth < 2:
        for model in _records(annotation):
            for record in _record_values(model, depth + 1):
                yield record
                yield [record]
                yield [record, record]


def _record_values(model: type[Any], depth: int) -> Iterator[dict[str, Any]]:
    """Dicts for a nested record: its fields one by one, unknown and misspelt ones."""
    base = _minimal(model)
    yield base
    yield {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        yield {**base, _typo(key): "x"}
        if info.alias:
            yield {**base, name: base.get(key, "x")}
        for value in _field_values(info.annotation, depth):
            yield {**base, key: value}


def _minimal(model: type[Any]) -> dict[str, Any]:
    """A valid input for a nested record (its required fields, one runner for a plugin)."""
    if model is legacy.PluginSpec:
        return {"apiVersion": "example.com/v1", "kind": "Thing", "exec": "./plugin"}
    if model is legacy.WaitRule:
        return {"waiter": "amf", "waitsFor": "smf"}
    if model is legacy.OwnerReferences:
        return {"uid": "1234"}
    return {}


def _typed_cases(old: type[Any]) -> Iterator[dict[Any, Any]]:
    yield {}
    for name, info in old.model_fields.items():
        key = info.alias or name
        yield {_typo(key): "x"}
        yield {key.upper(): 1}
        if info.alias:
            yield {name: info.default if isinstance(info.default, str | int) else "x"}
            yield {name: "x", key: "y"}
        for value in _field_values(info.annotation):
            yield {key: value}
    yield {"bogus": 1, 2: 3}
    yield {1: "a"}
    yield from COMBOS.get(old, [])


def _configmap_cases(old: type[Any]) -> Iterator[dict[str, Any]]:
    yield {}
    keys = old.configmap_keys()
    for key in [*keys, *old.CONFIGMAP_REFUSED]:
        yield {_typo(key): "x"}
        for text in TEXTS:
            yield {key: text}
    for key, path in keys.items():
        annotation = field_annotation(old, path.split("."))
        for value in _literals(annotation):
            yield {key: value}
            yield {key: _typo(str(value))}
    yield {"bogus": "1"}
    yield {key: "x" for key in keys}
    yield {key: "" for key in keys}


COMBOS: dict[type[Any], list[dict[Any, Any]]] = {
    legacy.ApplysetConfig: [
        {"mode": "kubectl", "tooling": "helm/3"},
        {"tooling": "helm/3", "mode": "kubectl"},
        {"mode": "kubectl", "tooling": "kubectl/v1.30"},
        {"mode": "kubectll", "tooling": "helm/3"},
        {"mode": 1, "bogus": 2, "force": "x"},
        {"parent": {"kind": ""}, "ownerReferences": {}, "keyPrefix": "x"},
        {"key_prefix": "applyset.k8s.io", "keyPrefix": "applyset.kubernetes.io"},
        {"liveObjects": [{"a": 1}, "x"], "toolLabels": {True: "a", 2.5: "b", None: "c"}},
    ],
    legacy.PreparerConfig: [
        {"plugins": [{"apiVersion": "a", "kind": "K", "exec": "x", "python": "y"}]},
        {"plugins": [{"apiVersion": "a", "kind": "K", "python": "y", "protocol": "tko"}]},
        {"plugins": [{"apiVersion": "", "kind": "", "timeout": 0, "bogus": 1}]},
        {"plugins": [{"apiVersion": "a", "kind": "K", "builtin": "sitee"}, {"kind": "K"}]},
        {"maxIterations": "0", "autoApprove": "x", "catalog": 3},
    ],
    legacy.TopologyToPvsConfig: [
        {"waitRules": ["smf:upf", "amf:smf"]},
        {"waitRules": ["smf", {"waiter": "smf", "waitsFor": "smf"}, 3]},
        {"waitRules": [{"waiter": "smf", "waits_for": "upf"}]},
    ],
}


def _plain(value: Any) -> Any:
    """A value with records (pydantic or krmlib) as (class name, fields), for comparison."""
    fields = getattr(type(value), "model_fields", None)
    if fields is not None:
        kind = "Config" if type(value).__name__.endswith("Config") else type(value).__name__
        return (kind, {n: _plain(getattr(value, n)) for n in fields})
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_plain(v) for v in value])
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def _outcome(model: type[Any], config: KubeObject | None, parse: Any) -> Any:
    try:
        parsed = parse(model, config)
    except ConfigError as exc:
        return ("error", exc.field, exc.message)
    except Exception as exc:  # a bug of both (the runner makes it an internal error result)
        return ("crash", type(exc).__name__)
    return ("ok", parsed.form, _plain(parsed))


def _compare(name: str, config: KubeObject | None) -> None:
    old = _outcome(PAIRS[name], config, legacy.parse_config)
    new = _outcome(_new(name), config, parse_config)
    if new[0] == "error" and str(new[2]).endswith("give one of them"):
        # The one deliberate change: a ConfigMap giving a record's key and one of its nested
        # keys (`parent` and `parent-kind`) is an error now; the old code crashed or let the
        # later key win.
        assert config is not None and config.kind == "ConfigMap"
        named = re.findall(r"data\.([a-z-]+)", str(new[2]).split(" both set ", 1)[0])
        assert len(named) == 2 and set(named) <= set(config.get("data", {}))
        return
    assert new == old, config.to_dict() if config is not None else None


def _typed(model: type[Any], spec: Any) -> KubeObject:
    return KubeObject.from_dict(
        {
            "apiVersion": model.API_VERSION,
            "kind": model.KIND,
            "metadata": {"name": "x"},
            "spec": spec,
        }
    )


def _configmap(data: dict[str, Any]) -> KubeObject:
    return KubeObject.from_dict(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": data}
    )


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_no_config_is_the_same(name: str) -> None:
    _compare(name, None)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_typed_configs_are_the_same(name: str) -> None:
    cases = list(_typed_cases(PAIRS[name]))
    assert len(cases) > 150
    for spec in cases:
        _compare(name, _typed(PAIRS[name], spec))


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_configmap_configs_are_the_same(name: str) -> None:
    cases = list(_configmap_cases(PAIRS[name]))
    assert len(cases) > 40
    for data in cases:
        _compare(name, _configmap(data))


def test_the_cases_reach_both_outcomes_and_every_kind_of_error() -> None:
    """The pools above are not vacuous: they hit acceptance and each kind of message."""
    messages: set[str] = set()
    accepted = 0
    for name, old in PAIRS.items():
        for spec in _typed_cases(old):
            outcome = _outcome(_new(name), _typed(old, spec), parse_config)
            accepted += outcome[0] == "ok"
            if outcome[0] == "error":
                messages.add(outcome[2])
    text = "\n".join(messages)
    for needle in (
        "unknown field (did you mean",
        "required field is missing",
        "(did you mean 'kubectl'?)",
        "Value error, a wait rule is written waiter:waitsFor",
        "Value error, set exactly one of exec, python, builtin, image",
        "Value error, kubectl mode needs kubectl/<version>",
        "Input should be a valid boolean, unable to interpret input",
        "Input should be a valid integer, unable to parse string as an integer",
        "Input should be a valid integer, got a number with a fractional part",
        "Input should be greater than or equal to 1",
        "Input should be less than or equal to 1000",
        "Input should be greater than 0",
        "String should have at least 1 character",
        "Input should be a valid dictionary or instance of PluginSpec",
        "Input should be a valid tuple",
        "Input should be a valid list",
        "Keys should be strings",
        "Input should be a finite number",
    ):
        assert needle in text, needle
    assert accepted > 100


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _keys(model: type[Any]) -> list[str]:
    keys = []
    for name, info in model.model_fields.items():
        keys.append(info.alias or name)
        keys += [
            info.alias or n for m in _records(info.annotation) for n, info in m.model_fields.items()
        ]
    return keys


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(PAIRS)), data=st.data())
def test_random_typed_configs_are_the_same(name: str, data: st.DataObject) -> None:
    keys = _keys(PAIRS[name])
    spec = data.draw(st.dictionaries(st.sampled_from(keys) | st.text(max_size=6), JSON, max_size=4))
    _compare(name, _typed(PAIRS[name], spec))


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(PAIRS)), data=st.data())
def test_random_configmap_configs_are_the_same(name: str, data: st.DataObject) -> None:
    keys = [*PAIRS[name].configmap_keys(), *PAIRS[name].CONFIGMAP_REFUSED]
    text = st.sampled_from(TEXTS) | st.text(max_size=10)
    cm = data.draw(st.dictionaries(st.sampled_from(keys), text, max_size=4))
    _compare(name, _configmap(cm))


@settings(max_examples=500, deadline=None)
@given(value=JSON | st.text(alphabet=" \t\n\x0b\x1c\xa0+-_.0123456789eEinfatyrus", max_size=8))
def test_random_scalars_read_the_same(value: Any) -> None:
    """Every scalar field type, on any value (numbers and booleans as text especially)."""
    for spec in ({"maxIterations": value}, {"autoApprove": value}, {"catalog": value}):
        _compare("preparer", _typed(PAIRS["preparer"], spec))
    plugin = {"apiVersion": "a", "kind": "K", "exec": "x", "timeout": value}
    _compare("preparer", _typed(PAIRS["preparer"], {"plugins": [plugin]}))


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_fields_are_declared_alike(name: str) -> None:
    old, new = PAIRS[name], _new(name)
    assert [(n, i.alias) for n, i in new.model_fields.items()] == [
        (n, i.alias) for n, i in old.model_fields.items()
    ]
    assert new.configmap_keys() == old.configmap_keys()
    assert (new.KIND, new.API_VERSION, new.CONFIGMAP_REFUSED) == (
        old.KIND,
        old.API_VERSION,
        old.CONFIGMAP_REFUSED,
    )
    for path in [*new.configmap_keys().values(), "files[0]", "parent.name", "plugins[0].kind"]:
        assert new.configmap_key_of(path) == old.configmap_key_of(path)


def test_model_copy_and_constructors_keep_working() -> None:
    new, old = _new("preparer"), PAIRS["preparer"]
    config = parse_config(new, _configmap({"catalog": "c"}))
    copy = config.model_copy(update={"max_iterations": 3})
    assert copy.max_iterations == 3 and copy.catalog == "c" and copy.form == "data"
    assert config.max_iterations == 16
    legacy_copy = legacy.parse_config(old, _configmap({"catalog": "c"})).model_copy(
        update={"max_iterations": 3}
    )
    assert _plain(copy)[1] == _plain(legacy_copy)[1]
    topology = _new("topology-to-pvs")
    assert _plain(topology())[1] == _plain(PAIRS["topology-to-pvs"]())[1]
    with pytest.raises(krmlib.RecordError):
        new(maxIterations=0)
