"""krmlib: a small, comment- and format-preserving library for kpt KRM functions.

A function is a config model, one ``process(rl, config)`` and golden cases::

    from krmlib import FunctionConfig, ResourceList, run

    class Config(FunctionConfig):
        KIND = "MyFunction"
        label: str = "x"

    def process(rl: ResourceList, config: Config) -> None:
        for obj in rl.items.where(kind="ConfigMap"):
            obj.labels["example.com/x"] = config.label

    def main() -> int:
        return run(process, Config, name="my-function", help_text="...")
"""

from .collection import (
    Items,
    has_annotations,
    has_labels,
    has_name,
    is_kind,
    is_kptfile,
    is_local_config,
)
from .config import API_VERSION, FunctionConfig, parse_config, parse_config_value
from .errors import ConfigError, FieldTypeError, InputError, KrmError
from .kptfile import (
    Condition,
    Conditions,
    add_readiness_gate,
    get_condition,
    get_conditions,
    get_readiness_gates,
    remove_condition,
    set_condition,
)
from .object import (
    ANN_INDEX,
    ANN_LEGACY_INDEX,
    ANN_LEGACY_PATH,
    ANN_LOCAL_CONFIG,
    ANN_PACKAGE_PATH,
    ANN_PATH,
    KubeObject,
)
from .paths import format_path, parse_path
from .pkgpath import check_relative_path, default_file_name
from .resourcelist import ResourceList
from .results import Result, Results, Severity
from .runner import read_files, run, run_resource_list, run_text
from .selectors import Selector, parse_selectors, select

__all__ = [
    "ANN_INDEX",
    "ANN_LEGACY_INDEX",
    "ANN_LEGACY_PATH",
    "ANN_LOCAL_CONFIG",
    "ANN_PACKAGE_PATH",
    "ANN_PATH",
    "API_VERSION",
    "Condition",
    "Conditions",
    "ConfigError",
    "FieldTypeError",
    "FunctionConfig",
    "InputError",
    "Items",
    "KrmError",
    "KubeObject",
    "ResourceList",
    "Result",
    "Results",
    "Selector",
    "Severity",
    "add_readiness_gate",
    "check_relative_path",
    "default_file_name",
    "format_path",
    "get_condition",
    "get_conditions",
    "get_readiness_gates",
    "has_annotations",
    "has_labels",
    "has_name",
    "is_kind",
    "is_kptfile",
    "is_local_config",
    "parse_config",
    "parse_config_value",
    "parse_path",
    "parse_selectors",
    "read_files",
    "remove_condition",
    "run",
    "run_resource_list",
    "run_text",
    "select",
    "set_condition",
]
