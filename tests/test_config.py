"""Both config forms of every function are strict alike: an unknown ConfigMap key or typed field,
or a value outside an enum, is an error naming the field as written, with a suggestion."""

from __future__ import annotations

import contextlib
import typing
from typing import Any, Literal

import pytest

import krmlib
from krmfn.registry import FUNCTIONS, Function
from krmlib import ConfigError, FunctionConfig, KubeObject, parse_config
from krmlib._config.parse import field_annotation


def _configmap(data: dict[str, str]) -> KubeObject:
    return KubeObject.from_dict(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": data}
    )


def _typed(config: type[FunctionConfig], spec: dict[str, Any]) -> KubeObject:
    return KubeObject.from_dict(
        {
            "apiVersion": config.API_VERSION,
            "kind": config.KIND,
            "metadata": {"name": "x"},
            "spec": spec,
        }
    )


def _typo(word: str) -> str:
    """The word with two letters swapped in the middle (a typo difflib still recognises)."""
    middle = len(word) // 2
    return word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]


def _config(function: Function) -> type[FunctionConfig]:
    config = function.load()[1]
    assert issubclass(config, FunctionConfig)
    return config


def _enum_keys(config: type[FunctionConfig]) -> list[tuple[str, tuple[str, ...]]]:
    """(ConfigMap key, allowed values) of every enum field the ConfigMap form can set."""
    out = []
    for key, path in config.configmap_keys().items():
        annotation = field_annotation(config, path.split("."))
        if typing.get_origin(annotation) is Literal:
            out.append((key, tuple(str(v) for v in typing.get_args(annotation))))
    return out


@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
def test_every_configmap_key_parses_or_names_itself(function: Function) -> None:
    config = _config(function)
    for key in config.configmap_keys():
        try:
            parse_config(config, _configmap({key: ""}))
        except ConfigError as exc:  # an empty value may be invalid; the error names the key
            assert f"data.{key}" in exc.message, (key, exc.message)


@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
def test_an_unknown_configmap_key_is_an_error_with_a_suggestion(function: Function) -> None:
    config = _config(function)
    key = max(config.configmap_keys(), key=len)
    with pytest.raises(ConfigError) as info:
        parse_config(config, _configmap({_typo(key): "x"}))
    assert info.value.field == f"data.{_typo(key)}"
    assert f"unknown key {_typo(key)!r}" in info.value.message
    assert f"did you mean {key!r}?" in info.value.message


@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
def test_an_unknown_typed_field_is_an_error_with_a_suggestion(function: Function) -> None:
    config = _config(function)
    field = max((info.alias or name for name, info in config.model_fields.items()), key=len)
    with pytest.raises(ConfigError) as info:
        parse_config(config, _typed(config, {_typo(field): "x"}))
    assert info.value.field == f"spec.{_typo(field)}"
    assert f"unknown field (did you mean {field!r}?)" in info.value.message


ENUMS = [
    (function, key, allowed)
    for function in FUNCTIONS
    for key, allowed in _enum_keys(_config(function))
]


def test_the_enums_are_found() -> None:
    assert {function.name for function, _, _ in ENUMS} >= {
        "interface-expander",
        "topology-to-pvs",
        "applyset-labeler",
    }


@pytest.mark.parametrize(
    ("function", "key", "allowed"), ENUMS, ids=[f"{f}-{k}" for f, k, _ in ENUMS]
)
def test_an_enum_value_typo_gets_a_suggestion(
    function: Function, key: str, allowed: tuple[str, ...]
) -> None:
    config = _config(function)
    value = max(allowed, key=len)
    with pytest.raises(ConfigError) as info:
        parse_config(config, _configmap({key: _typo(value)}))
    assert info.value.field == f"data.{key}"
    assert f"did you mean {value!r}?" in info.value.message


def test_the_issue_example_modee_is_an_error_not_managed_mode() -> None:
    config = _config(next(f for f in FUNCTIONS if f.name == "applyset-labeler"))
    with pytest.raises(ConfigError) as info:
        parse_config(config, _configmap({"modee": "kubectl"}))
    assert "unknown key 'modee' in the ConfigMap config (did you mean 'mode'?)" in str(info.value)


@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
def test_defaults_are_validated_and_the_form_is_remembered(function: Function) -> None:
    config = _config(function)
    default = parse_config(config, None)
    assert default == config.model_validate({}) and default.form == "spec"
    key, path = next(iter(config.configmap_keys().items()))
    assert default.field_path(path) == f"spec.{path}"
    empty = parse_config(config, _configmap({}))
    assert empty == default and empty.form == "data"
    assert empty.field_path(path) == f"data.{key}"


@pytest.mark.parametrize("order", ["whole-first", "nested-first"])
def test_a_configmap_setting_a_record_and_one_of_its_fields_is_an_error(order: str) -> None:
    config = _config(next(f for f in FUNCTIONS if f.name == "applyset-labeler"))
    pairs = [("parent", "x"), ("parent-kind", "ConfigMap")]
    data = dict(pairs if order == "whole-first" else reversed(pairs))
    with pytest.raises(ConfigError) as info:
        parse_config(config, _configmap(data))
    assert "both set parent: give one of them" in info.value.message
    assert info.value.field == f"data.{list(data)[1]}"


def test_one_parse_enters_the_config_layer_once() -> None:
    """A parse enters krmlib/_config once (parse_config) and stays in its parse module, whatever
    the form and however many errors: counted with a profiler as calls into a module of the
    layer from another module (issue 41: 13 before, for a ConfigMap config with errors)."""
    import sys
    from pathlib import Path

    from krmfn.interface_expander import Config as ExpanderConfig

    layer = str(Path(krmlib.__file__).parent / "_config")
    entries: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        callee = frame.f_code.co_filename
        caller = frame.f_back.f_code.co_filename if frame.f_back else ""
        if event == "call" and callee.startswith(layer) and callee != caller:
            entries.append(f"{Path(callee).name}:{frame.f_code.co_name}")

    texts = [
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
        "data: {dialect: nephoi, keep-local-config: maybe, network-instance-namespace: x}\n",
        "apiVersion: krmfn.dev/v1alpha1\nkind: InterfaceExpander\nmetadata: {name: c}\n"
        "spec: {dialect: nephoi, keepLocalConfig: maybe, bogus: 1}\n",
        "apiVersion: krmfn.dev/v1alpha1\nkind: InterfaceExpander\nmetadata: {name: c}\n"
        "spec: {dialect: nephio}\n",
    ]
    for text in texts:
        obj = KubeObject.from_yaml(text)
        with contextlib.suppress(ConfigError):
            parse_config(ExpanderConfig, obj)  # the class is read: what follows is any parse
        entries.clear()
        sys.setprofile(profile)
        try:
            with contextlib.suppress(ConfigError):
                parse_config(ExpanderConfig, obj)
        finally:
            sys.setprofile(None)
        assert entries == ["parse.py:parse_config"], text
