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

Two public surfaces: ``krmlib`` (this module, ``__all__``: what writing a function takes) and
:mod:`krmlib.packages` (disk and process tooling: package trees, atomic writes, locks, programs);
the public submodules are ``krmlib.children`` (owned children) and ``krmlib.testing`` (the golden
harness). Everything under a name that starts with ``_`` (``krmlib._model.object``) is private.
Names are imported on first use, so a function pays at start-up only for what it touches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # generated from _WHERE: tests/test_public_surface.py --write
    from ._base.errors import ConfigError as ConfigError
    from ._base.errors import FieldTypeError as FieldTypeError
    from ._base.errors import InputError as InputError
    from ._base.errors import KrmError as KrmError
    from ._base.hashes import sha256_digest as sha256_digest
    from ._base.hashes import sha256_hex as sha256_hex
    from ._base.paths import format_path as format_path
    from ._base.paths import parse_path as parse_path
    from ._base.pkgpath import check_relative_path as check_relative_path
    from ._base.pkgpath import default_file_name as default_file_name
    from ._config.parse import RecordError as RecordError
    from ._config.parse import ValidationInfo as ValidationInfo
    from ._config.parse import did_you_mean as did_you_mean
    from ._config.parse import parse_config as parse_config
    from ._config.parse import parse_config_value as parse_config_value
    from ._config.records import Field as Field
    from ._config.records import FunctionConfig as FunctionConfig
    from ._config.records import Record as Record
    from ._config.records import field_validator as field_validator
    from ._config.records import model_validator as model_validator
    from ._io.confine import read_named_file as read_named_file
    from ._io.confine import read_roots as read_roots
    from ._io.gate import log as log
    from ._io.resourcelist import FunctionPackage as FunctionPackage
    from ._io.resourcelist import ResourceList as ResourceList
    from ._io.runner import run as run
    from ._model.collection import Items as Items
    from ._model.collection import is_kind as is_kind
    from ._model.collection import is_kptfile as is_kptfile
    from ._model.collection import is_local_config as is_local_config
    from ._model.kptfile import Condition as Condition
    from ._model.kptfile import Conditions as Conditions
    from ._model.kptfile import add_readiness_gate as add_readiness_gate
    from ._model.kptfile import get_conditions as get_conditions
    from ._model.kptfile import get_readiness_gates as get_readiness_gates
    from ._model.kptfile import remove_readiness_gate as remove_readiness_gate
    from ._model.names import cap_label as cap_label
    from ._model.names import check_names as check_names
    from ._model.names import dns_label as dns_label
    from ._model.names import label_key_problem as label_key_problem
    from ._model.names import label_problem as label_problem
    from ._model.names import label_value_problem as label_value_problem
    from ._model.names import name_problem as name_problem
    from ._model.names import short_hash as short_hash
    from ._model.names import slug as slug
    from ._model.names import subdomain_problem as subdomain_problem
    from ._model.object import ANN_INDEX as ANN_INDEX
    from ._model.object import ANN_LEGACY_INDEX as ANN_LEGACY_INDEX
    from ._model.object import ANN_LEGACY_PATH as ANN_LEGACY_PATH
    from ._model.object import ANN_LOCAL_CONFIG as ANN_LOCAL_CONFIG
    from ._model.object import ANN_PACKAGE_PATH as ANN_PACKAGE_PATH
    from ._model.object import ANN_PATH as ANN_PATH
    from ._model.object import KubeObject as KubeObject
    from ._model.results import Result as Result
    from ._model.results import Results as Results
    from ._model.results import Severity as Severity
    from ._model.subobject import SubObject as SubObject
    from ._model.written import scalar_text as scalar_text
    from ._model.written import text_of as text_of

# Public name -> the module that defines it: the one list (__all__ is its keys).
_WHERE: dict[str, str] = {
    "ConfigError": "_base.errors",
    "FieldTypeError": "_base.errors",
    "InputError": "_base.errors",
    "KrmError": "_base.errors",
    "sha256_digest": "_base.hashes",
    "sha256_hex": "_base.hashes",
    "format_path": "_base.paths",
    "parse_path": "_base.paths",
    "check_relative_path": "_base.pkgpath",
    "default_file_name": "_base.pkgpath",
    "RecordError": "_config.parse",
    "ValidationInfo": "_config.parse",
    "did_you_mean": "_config.parse",
    "parse_config": "_config.parse",
    "parse_config_value": "_config.parse",
    "Field": "_config.records",
    "FunctionConfig": "_config.records",
    "Record": "_config.records",
    "field_validator": "_config.records",
    "model_validator": "_config.records",
    "read_named_file": "_io.confine",
    "read_roots": "_io.confine",
    "log": "_io.gate",
    "FunctionPackage": "_io.resourcelist",
    "ResourceList": "_io.resourcelist",
    "run": "_io.runner",
    "Items": "_model.collection",
    "is_kind": "_model.collection",
    "is_kptfile": "_model.collection",
    "is_local_config": "_model.collection",
    "Condition": "_model.kptfile",
    "Conditions": "_model.kptfile",
    "add_readiness_gate": "_model.kptfile",
    "get_conditions": "_model.kptfile",
    "get_readiness_gates": "_model.kptfile",
    "remove_readiness_gate": "_model.kptfile",
    "cap_label": "_model.names",
    "check_names": "_model.names",
    "dns_label": "_model.names",
    "label_key_problem": "_model.names",
    "label_problem": "_model.names",
    "label_value_problem": "_model.names",
    "name_problem": "_model.names",
    "short_hash": "_model.names",
    "slug": "_model.names",
    "subdomain_problem": "_model.names",
    "ANN_INDEX": "_model.object",
    "ANN_LEGACY_INDEX": "_model.object",
    "ANN_LEGACY_PATH": "_model.object",
    "ANN_LOCAL_CONFIG": "_model.object",
    "ANN_PACKAGE_PATH": "_model.object",
    "ANN_PATH": "_model.object",
    "KubeObject": "_model.object",
    "Result": "_model.results",
    "Results": "_model.results",
    "Severity": "_model.results",
    "SubObject": "_model.subobject",
    "scalar_text": "_model.written",
    "text_of": "_model.written",
}

__all__: list[str] = list(_WHERE)

# Names that left krmlib in 0.2 (CHANGELOG.md), besides the tooling now in krmlib.packages:
# importable until 0.3, with a warning.
_MOVED: dict[str, tuple[str, str]] = {
    "API_VERSION": ("_config.parse", "use FunctionConfig.API_VERSION"),
    "LABEL_NAMED_KINDS": ("_model.names", "name_problem(name, kind) applies it"),
    "check_object_names": (
        "_model.names",
        "use check_names(obj.name, obj.namespace, kind=obj.kind, source=obj)",
    ),
    "has_annotations": ("_model.collection", "use Items.where(annotations={...})"),
    "has_labels": ("_model.collection", "use Items.where(labels={...})"),
    "has_name": ("_model.collection", "use Items.where(name=...) or KubeObject.name"),
    "run_resource_list": ("testing", "import it from krmlib.testing"),
    "run_text": ("testing", "import it from krmlib.testing"),
}

if not TYPE_CHECKING:  # type checkers read the names above, a typo stays an error

    def __getattr__(name: str) -> Any:
        module = _WHERE.get(name)
        if module is None:
            # the disk and process tooling left krmlib in 0.2: named once, in krmlib.packages
            tooling = __import__("krmlib.packages", fromlist=["_WHERE"])._WHERE
            if name in _MOVED or name in tooling:
                import warnings

                where, advice = _MOVED.get(name, ("packages", "import it from krmlib.packages"))
                warnings.warn(
                    f"krmlib.{name} is deprecated ({advice}); krmlib 0.3 removes it",
                    DeprecationWarning,
                    stacklevel=2,
                )
                return getattr(__import__(f"krmlib.{where}", fromlist=[name]), name)
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        # __import__ (not importlib.import_module): the interpreter's own import, so `-X
        # importtime` lists the module under its name instead of adding its time to this line.
        value = getattr(__import__(f"krmlib.{module}", fromlist=[name]), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
