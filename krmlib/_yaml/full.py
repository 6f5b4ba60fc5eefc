"""PyYAML's full loader on libyaml, for the documents :func:`krmlib._yaml.engines.load_plain` does
not build itself (anchors, tags, complex or duplicate keys, several documents) and for measuring
alias expansion. Imported on first use: it imports PyYAML's ``__init__`` (see
:mod:`krmlib._yaml.libyaml`)."""

from __future__ import annotations

import re
from typing import Any

import yaml

from krmlib._base.errors import InputError

from .libyaml import CParser


class Resolver12(yaml.resolver.BaseResolver):
    """YAML 1.2 core schema; no timestamps (kyaml keeps them as strings)."""


Resolver12.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
Resolver12.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
Resolver12.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
Resolver12.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)


class Constructor(yaml.constructor.SafeConstructor):
    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            mark = key_node.start_mark
            if isinstance(key, list | dict):  # unhashable: no Kubernetes field has one
                raise InputError(
                    "a complex key (a list or a map used as a key) is not a field name",
                    line=mark.line + 1,
                    column=mark.column + 1,
                )
            if key in seen:
                import json  # a duplicate only

                raise InputError(
                    f"duplicate key {json.dumps(key, default=str)}",
                    line=mark.line + 1,
                    column=mark.column + 1,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: Any) -> int:
        value = str(self.construct_scalar(node))
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value)


Constructor.add_constructor("tag:yaml.org,2002:int", Constructor.construct_yaml_int)  # type: ignore[type-var]
Constructor.add_constructor(  # type: ignore[type-var]
    "tag:yaml.org,2002:timestamp", yaml.constructor.SafeConstructor.construct_yaml_str
)


class CoreLoader(CParser, Constructor, Resolver12):  # type: ignore[misc]
    """libyaml's parser (the pinned PyYAML wheel ships it) with our constructor and resolver."""

    def __init__(self, stream: str) -> None:
        CParser.__init__(self, stream)
        Constructor.__init__(self)
        Resolver12.__init__(self)
