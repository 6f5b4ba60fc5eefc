"""krmlib._config.records: records as a library user declares them (the configs' base)."""

from __future__ import annotations

import copy
import pickle
from typing import Any, Literal

import pytest

from krmlib import (
    ConfigError,
    Field,
    FunctionConfig,
    KubeObject,
    Record,
    RecordError,
    ValidationInfo,
    field_validator,
    model_validator,
    parse_config,
)
from krmlib._config.parse import field_annotation, validation_errors


class Port(Record):
    name: str = Field(min_length=1)
    number: int = Field(alias="containerPort", gt=0, le=65535)
    protocol: Literal["TCP", "UDP"] = "TCP"

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            name, _, number = value.partition(":")
            return {"name": name, "containerPort": number}
        return value


class Service(Record):
    ports: tuple[Port, ...] = ()
    labels: dict[str, str] = Field(default_factory=dict)
    names: list[str] = []
    weight: float = 1.0
    owner: str | None = None
    primary: str = ""

    @field_validator("primary")
    @classmethod
    def _primary_is_a_port(cls, value: str, info: ValidationInfo) -> str:
        if value and value not in {p.name for p in info.data.get("ports", ())}:
            raise ValueError(f"no port named {value!r}")
        return value

    @model_validator(mode="after")
    def _unique(self) -> Service:
        if len({p.name for p in self.ports}) != len(self.ports):
            raise ValueError("port names must be unique")
        return self


def _errors(data: Any) -> list[tuple[str, str]]:
    with pytest.raises(RecordError) as info:
        Service.model_validate(data)
    return validation_errors(info.value, model=Service)


def test_fields_by_name_or_alias_with_lax_values() -> None:
    service = Service.model_validate(
        {"ports": ["http:80", {"name": "dns", "number": "53", "protocol": "UDP"}], "weight": "2"}
    )
    assert [(p.name, p.number, p.protocol) for p in service.ports] == [
        ("http", 80, "TCP"),
        ("dns", 53, "UDP"),
    ]
    assert service.weight == 2.0 and service.names == [] and service.labels == {}
    assert Service(primary="", weight=3) == Service.model_validate({"weight": 3.0})


def test_errors_name_the_field_as_written_with_suggestions() -> None:
    assert _errors({"ports": [{"name": "", "containerPort": 0, "protocl": "TCP"}]}) == [
        ("ports[0].name", "String should have at least 1 character"),
        ("ports[0].containerPort", "Input should be greater than 0"),
        ("ports[0].protocl", "unknown field (did you mean 'protocol'?)"),
    ]
    assert _errors({"ports": [{"name": "a", "containerPort": 1, "protocol": "UPD"}]}) == [
        ("ports[0].protocol", "Input should be 'TCP' or 'UDP' (did you mean 'UDP'?)")
    ]
    assert _errors({"ports": ["a:1"], "primary": "b"}) == [
        ("primary", "Value error, no port named 'b'")
    ]
    assert _errors({"ports": ["a:1", "a:2"]}) == [("", "Value error, port names must be unique")]
    assert _errors({"ports": [{"containerPort": 1}], "labels": {"a": 1}}) == [
        ("ports[0].name", "required field is missing"),
        ("labels.a", "Input should be a valid string"),
    ]
    assert _errors({"names": "a", "weight": "heavy", "owner": 3}) == [
        ("names", "Input should be a valid list"),
        ("weight", "Input should be a valid number, unable to parse string as a number"),
        ("owner", "Input should be a valid string"),
    ]


def test_records_are_frozen_values() -> None:
    service = Service.model_validate({"ports": ["http:80"], "names": ["a"]})
    with pytest.raises(AttributeError):
        service.weight = 2  # type: ignore[misc]
    assert service == Service.model_validate({"ports": ["http:80"], "names": ["a"]})
    assert service != Service()
    assert hash(service.ports[0]) == hash(Port.model_validate("http:80"))
    assert pickle.loads(pickle.dumps(service)) == service
    assert copy.deepcopy(service) == service
    changed = service.model_copy(update={"weight": 5.0})
    assert changed.weight == 5.0 and service.weight == 1.0
    assert repr(service.ports[0]) == "Port(name='http', number=80, protocol='TCP')"
    assert Service().names is not Service().names  # a mutable default is not shared


def test_model_fields_describe_the_record() -> None:
    fields = Port.model_fields
    assert list(fields) == ["name", "number", "protocol"]
    assert fields["number"].alias == "containerPort" and fields["number"].annotation is int
    assert fields["name"].is_required() and not fields["protocol"].is_required()
    assert field_annotation(Service, ["ports"]) == tuple[Port, ...]
    assert field_annotation(Service, ["owner"]) is str


def test_an_unsupported_annotation_or_validator_is_a_declaration_error() -> None:
    class Odd(Record):
        when: set[str] = set()

    with pytest.raises(TypeError, match="do not support"):
        Odd()

    class Hidden(Record):  # behind a None default, the value never reaches it: still refused
        when: set[str] | None = None

    with pytest.raises(TypeError, match="do not support the annotation set"):
        Hidden()

    class Misnamed(Record):
        a: str = ""

        @field_validator("b")
        @classmethod
        def _check(cls, value: str) -> str:
            return value

    with pytest.raises(TypeError, match="unknown fields"):
        Misnamed()


def test_binary_yaml_values_read_as_text() -> None:
    """YAML's ``!!binary`` gives bytes: a str, int, float or bool field reads them as text."""

    class Tagged(FunctionConfig):
        KIND = "Tagged"
        name: str = ""
        count: int = 0
        weight: float = 0.0
        on: bool = False

    def spec(text: str) -> KubeObject:
        return KubeObject.from_yaml(
            f"apiVersion: krmfn.dev/v1alpha1\nkind: Tagged\nmetadata: {{name: x}}\nspec:\n{text}"
        )

    binary = "  name: !!binary aGk=\n  count: !!binary Mw==\n  weight: !!binary MS41\n"
    config = parse_config(Tagged, spec(binary + "  on: !!binary eWVz\n"))
    assert (config.name, config.count, config.weight, config.on) == ("hi", 3, 1.5, True)
    with pytest.raises(ConfigError) as info:
        parse_config(Tagged, spec("  name: !!binary //4=\n  count: !!binary //4=\n"))
    assert info.value.message == (
        "invalid config: spec.name: Input should be a valid string; "
        "spec.count: Input should be a valid integer"
    )
