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
from .package import (
    ALLOW_READ_ENV,
    ANN_ID,
    ANN_LEGACY_ID,
    Package,
    check_readable,
    command_read_root,
    content_of,
    is_kpt_internal,
    package_tree_root,
    read_documents,
    read_file,
    read_file_text,
    read_named_file,
    read_objects,
    read_package,
    read_roots,
    safe_target,
    without_kpt_internal,
    write_package,
)
from .paths import format_path, parse_path
from .pkgpath import check_path_annotations, check_relative_path, default_file_name
from .resourcelist import ResourceList
from .results import Result, Results, Severity
from .runner import read_files, run, run_resource_list, run_text
from .selectors import Selector, parse_selectors, select

__all__ = [
    "ALLOW_READ_ENV",
    "ANN_ID",
    "ANN_INDEX",
    "ANN_LEGACY_ID",
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
    "Package",
    "ResourceList",
    "Result",
    "Results",
    "Selector",
    "Severity",
    "add_readiness_gate",
    "check_path_annotations",
    "check_readable",
    "check_relative_path",
    "command_read_root",
    "content_of",
    "default_file_name",
    "format_path",
    "get_condition",
    "get_conditions",
    "get_readiness_gates",
    "has_annotations",
    "has_labels",
    "has_name",
    "is_kind",
    "is_kpt_internal",
    "is_kptfile",
    "is_local_config",
    "package_tree_root",
    "parse_config",
    "parse_config_value",
    "parse_path",
    "parse_selectors",
    "read_documents",
    "read_file",
    "read_file_text",
    "read_files",
    "read_named_file",
    "read_objects",
    "read_package",
    "read_roots",
    "remove_condition",
    "run",
    "run_resource_list",
    "run_text",
    "safe_target",
    "select",
    "set_condition",
    "without_kpt_internal",
    "write_package",
]
