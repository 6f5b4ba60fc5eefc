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

``__all__`` is the public surface (krmlib/README.md describes it); the public submodules are
``krmlib.children`` (owned children) and ``krmlib.testing`` (the golden harness). Modules whose
name starts with ``_`` are private. Names are imported on first use, so a function pays at
start-up only for what it touches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._atomic import (
        make_folders,
        remove_leftovers,
        tree_lock,
        unfinished_folders,
        write_file,
    )
    from ._background import fork_safe
    from ._config.parse import (
        API_VERSION,
        RecordError,
        ValidationInfo,
        did_you_mean,
        parse_config,
        parse_config_value,
    )
    from ._config.records import Field, FunctionConfig, Record, field_validator, model_validator
    from ._gate import log as log
    from ._hashes import sha1_hex, sha256_digest, sha256_hex
    from .collection import (
        Items,
        has_annotations,
        has_labels,
        has_name,
        is_kind,
        is_kptfile,
        is_local_config,
    )
    from .errors import ConfigError, FieldTypeError, InputError, KrmError, internal_error
    from .kptfile import (
        Condition,
        Conditions,
        add_readiness_gate,
        get_conditions,
        get_readiness_gates,
        remove_readiness_gate,
    )
    from .names import (
        LABEL_NAMED_KINDS,
        cap_label,
        check_names,
        check_object_names,
        dns_label,
        label_key_problem,
        label_problem,
        label_value_problem,
        name_problem,
        short_hash,
        slug,
        subdomain_problem,
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
        MAX_TREE_FILE,
        Package,
        TreeError,
        UnlistableFolder,
        check_readable,
        command_read_root,
        content_of,
        is_kpt_internal,
        kptfile_folders,
        package_tree_root,
        read_documents,
        read_file,
        read_file_text,
        read_named_file,
        read_objects,
        read_package,
        read_roots,
        read_tree_bytes,
        read_tree_file,
        safe_target,
        walk_tree,
        without_annotations,
        without_kpt_internal,
        write_package,
    )
    from .paths import format_path, parse_path
    from .pkgpath import check_path_annotations, check_relative_path, default_file_name
    from .programs import TooMuchOutput, die_with_parent, run_program
    from .resourcelist import FunctionPackage, ResourceList
    from .results import Result, Results, Severity
    from .runner import read_files, run, run_resource_list, run_text
    from .subobject import SubObject
    from .written import scalar_text, text_of

# Public name → the module that defines it.
_WHERE = {
    "sha1_hex": "_hashes",
    "sha256_digest": "_hashes",
    "sha256_hex": "_hashes",
    "fork_safe": "_background",
    "make_folders": "_atomic",
    "remove_leftovers": "_atomic",
    "tree_lock": "_atomic",
    "unfinished_folders": "_atomic",
    "write_file": "_atomic",
    "Items": "collection",
    "has_annotations": "collection",
    "has_labels": "collection",
    "has_name": "collection",
    "is_kind": "collection",
    "is_kptfile": "collection",
    "is_local_config": "collection",
    "log": "_gate",
    "API_VERSION": "_config.parse",
    "FunctionConfig": "_config.records",
    "parse_config": "_config.parse",
    "parse_config_value": "_config.parse",
    "ConfigError": "errors",
    "FieldTypeError": "errors",
    "InputError": "errors",
    "KrmError": "errors",
    "internal_error": "errors",
    "Condition": "kptfile",
    "Conditions": "kptfile",
    "add_readiness_gate": "kptfile",
    "get_conditions": "kptfile",
    "get_readiness_gates": "kptfile",
    "remove_readiness_gate": "kptfile",
    "did_you_mean": "_config.parse",
    "LABEL_NAMED_KINDS": "names",
    "cap_label": "names",
    "check_names": "names",
    "check_object_names": "names",
    "dns_label": "names",
    "label_key_problem": "names",
    "label_problem": "names",
    "label_value_problem": "names",
    "name_problem": "names",
    "short_hash": "names",
    "slug": "names",
    "subdomain_problem": "names",
    "ANN_INDEX": "object",
    "ANN_LEGACY_INDEX": "object",
    "ANN_LEGACY_PATH": "object",
    "ANN_LOCAL_CONFIG": "object",
    "ANN_PACKAGE_PATH": "object",
    "ANN_PATH": "object",
    "KubeObject": "object",
    "ALLOW_READ_ENV": "package",
    "ANN_ID": "package",
    "ANN_LEGACY_ID": "package",
    "Package": "package",
    "check_readable": "package",
    "command_read_root": "package",
    "content_of": "package",
    "is_kpt_internal": "package",
    "package_tree_root": "package",
    "read_documents": "package",
    "read_file": "package",
    "read_file_text": "package",
    "read_named_file": "package",
    "read_tree_bytes": "package",
    "read_tree_file": "package",
    "walk_tree": "package",
    "kptfile_folders": "package",
    "MAX_TREE_FILE": "package",
    "TreeError": "package",
    "UnlistableFolder": "package",
    "read_objects": "package",
    "read_package": "package",
    "read_roots": "package",
    "safe_target": "package",
    "without_annotations": "package",
    "without_kpt_internal": "package",
    "write_package": "package",
    "format_path": "paths",
    "parse_path": "paths",
    "check_path_annotations": "pkgpath",
    "check_relative_path": "pkgpath",
    "default_file_name": "pkgpath",
    "TooMuchOutput": "programs",
    "run_program": "programs",
    "die_with_parent": "programs",
    "FunctionPackage": "resourcelist",
    "ResourceList": "resourcelist",
    "Result": "results",
    "Results": "results",
    "Severity": "results",
    "SubObject": "subobject",
    "read_files": "runner",
    "run": "runner",
    "run_resource_list": "runner",
    "run_text": "runner",
    "scalar_text": "written",
    "text_of": "written",
    "Field": "_config.records",
    "Record": "_config.records",
    "RecordError": "_config.parse",
    "ValidationInfo": "_config.parse",
    "field_validator": "_config.records",
    "model_validator": "_config.records",
}

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
    "LABEL_NAMED_KINDS",
    "MAX_TREE_FILE",
    "Condition",
    "Conditions",
    "ConfigError",
    "Field",
    "FieldTypeError",
    "FunctionConfig",
    "FunctionPackage",
    "InputError",
    "Items",
    "KrmError",
    "KubeObject",
    "Package",
    "Record",
    "RecordError",
    "ResourceList",
    "Result",
    "Results",
    "Severity",
    "SubObject",
    "TooMuchOutput",
    "TreeError",
    "UnlistableFolder",
    "ValidationInfo",
    "add_readiness_gate",
    "cap_label",
    "check_names",
    "check_object_names",
    "check_path_annotations",
    "check_readable",
    "check_relative_path",
    "command_read_root",
    "content_of",
    "default_file_name",
    "did_you_mean",
    "die_with_parent",
    "dns_label",
    "field_validator",
    "fork_safe",
    "format_path",
    "get_conditions",
    "get_readiness_gates",
    "has_annotations",
    "has_labels",
    "has_name",
    "internal_error",
    "is_kind",
    "is_kpt_internal",
    "is_kptfile",
    "is_local_config",
    "kptfile_folders",
    "label_key_problem",
    "label_problem",
    "label_value_problem",
    "log",
    "make_folders",
    "model_validator",
    "name_problem",
    "package_tree_root",
    "parse_config",
    "parse_config_value",
    "parse_path",
    "read_documents",
    "read_file",
    "read_file_text",
    "read_files",
    "read_named_file",
    "read_objects",
    "read_package",
    "read_roots",
    "read_tree_bytes",
    "read_tree_file",
    "remove_leftovers",
    "remove_readiness_gate",
    "run",
    "run_program",
    "run_resource_list",
    "run_text",
    "safe_target",
    "scalar_text",
    "sha1_hex",
    "sha256_digest",
    "sha256_hex",
    "short_hash",
    "slug",
    "subdomain_problem",
    "text_of",
    "tree_lock",
    "unfinished_folders",
    "walk_tree",
    "without_annotations",
    "without_kpt_internal",
    "write_file",
    "write_package",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'krmlib' has no attribute {name!r}")
    # __import__ (not importlib.import_module): the interpreter's own import, so `-X importtime`
    # lists the module under its name instead of adding its time to the importer's line.
    value = getattr(__import__(f"{__name__}.{module}", fromlist=[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
