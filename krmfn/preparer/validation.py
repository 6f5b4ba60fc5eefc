"""TKO's validation of a package that becomes prepared: validate plugins, else strict schemas.

TKO (nephio-experimental/tko 5973960) validates a deployment package when it is saved prepared
(``backend/memory/deployments.go`` EndDeploymentModification → ``validation/packages.go``
ValidatePackage, complete) and refuses an invalid one. Per resource: its validate plugins when
some are registered for its GVK (``validation/validators.go``; TKO runs only command plugins,
``validation/plugins.go``: a PluginInput with ``package``, ``targetResourceIdentifier`` and
``complete``, a PluginOutput with ``error``), else kubeconform in strict mode with missing
schemas ignored (``validation/kubeconform.go``, ``validation/validation.go``). Here the schemas
are the vendored ones in ``schemas/`` (SOURCES.md there); a kind without one is not checked.

Not checked (kept out on purpose): kpt's local-config items and the Kptfile, which never reach a
cluster; JSON Schema ``format`` (kubeconform does not assert formats either).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import Any

from krmlib import KubeObject, ResourceList, format_path, is_kptfile

from .config import Config, PluginSpec

# The vendored schemas' folder (a string: pathlib, with urllib and ipaddress, is not imported at
# start-up, about 18 M instructions, issue 37).
SCHEMAS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "schemas")
Problem = tuple[str, str]  # (field path, what is wrong)


def validate_package(rl: ResourceList, own: list[KubeObject], config: Config) -> bool:
    """Validate the package's own resources as TKO does before it is marked prepared; error
    results name each invalid resource and field. True when the package may be marked."""
    plugins: dict[tuple[str, str], list[PluginSpec]] = {}
    for spec in config.plugins:
        if spec.plugin_type == "validate":
            plugins.setdefault((spec.api_version, spec.kind), []).append(spec)
    ok = True
    for obj in own:
        key = (obj.api_version, obj.kind)
        validators = plugins.get(key)
        # the cheap lookup first: most items have neither a plugin nor a schema
        accepts = None if validators else _checker(*key)
        if not validators and accepts is None:
            continue
        if is_kptfile(obj) or obj.is_local_config:
            continue
        if validators:
            for spec in validators:
                error = _run_plugin(spec, rl, own, obj)
                if error:
                    rl.results.error(
                        f"validate plugin ({spec.exec}): {error}; the package is not marked "
                        "prepared (TKO refuses to save it)",
                        obj,
                    )
                    ok = False
            continue
        assert accepts is not None
        data = obj.to_dict()  # kpt's layout read from the text; a parse is not kept
        obj.release()
        if accepts(data):
            continue
        problems: list[Problem] = []  # invalid: the detailed walk names every problem
        _check(data, _schema(*key) or {}, (), problems)
        for field, message in problems:
            rl.results.error(
                f"{obj.kind} {obj.name} is invalid: {message} (Kubernetes {obj.api_version} "
                f"{obj.kind} schema, strict, as TKO's kubeconform); the package is not marked "
                "prepared",
                obj,
                field or None,
            )
            ok = False
    return ok


@cache
def _schema(api_version: str, kind: str) -> dict[str, Any] | None:
    path = os.path.join(SCHEMAS, f"{api_version.replace('/', '_')}_{kind}.json")
    if not os.path.isfile(path):
        return None
    import json  # on first use: not a start-up cost

    with open(path, encoding="utf-8") as handle:
        schema = json.load(handle)
    assert isinstance(schema, dict)
    return schema


@cache
def _checker(api_version: str, kind: str) -> Accepts | None:
    """The schema of ``kind`` compiled into a yes/no check (None: no schema, not checked)."""
    schema = _schema(api_version, kind)
    if schema is None:
        return None
    check = _compile(schema, {})

    def accepts(value: Any) -> bool:
        try:
            return check(value)
        except _Unsure:
            return False

    return accepts


class _Unsure(Exception):
    """A value the compiled check does not decide (the detailed walk does)."""


Accepts = Callable[[Any], bool]
_PLAIN = (dict, list, str, int, float, bool, type(None))
_TYPE_TESTS: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _compile(schema: dict[str, Any], done: dict[int, Accepts]) -> Accepts:
    """A check that accepts ``value`` exactly when :func:`_check` finds no problem in it; it
    raises :class:`_Unsure` on a value that is not plain data (the walk decides those).

    Built once per schema node; on valid input it costs a type test and a lookup per node, no
    path, no list of problems."""
    known = done.get(id(schema))
    if known is not None:
        return known
    types = schema.get("type")
    allowed: tuple[type, ...] | None = None  # None: any type
    numbers_only = False  # integer/number without boolean: a bool is refused
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if all(name in _TYPE_TESTS for name in names):
            allowed = tuple({t for name in names for t in _TYPE_TESTS[name]})
            numbers_only = "boolean" not in names and bool({"integer", "number"} & set(names))
    enum = schema.get("enum") if "enum" in schema else None
    has_enum = "enum" in schema
    one_of = [_compile(option, done) for option in schema["oneOf"]] if "oneOf" in schema else None
    properties = {key: _compile(sub, done) for key, sub in (schema.get("properties") or {}).items()}
    extra = schema.get("additionalProperties", True)
    strict = extra is False
    extra_check = _compile(extra, done) if isinstance(extra, dict) else None
    required = tuple(schema.get("required") or ())
    items_schema = schema.get("items")
    items = _compile(items_schema, done) if isinstance(items_schema, dict) else None

    def accepts(value: Any) -> bool:
        if not isinstance(value, _PLAIN):
            raise _Unsure  # not plain data: the walk decides (as a string, as kubeconform)
        if allowed is not None:
            if not isinstance(value, allowed):
                return False
            if numbers_only and isinstance(value, bool):
                return False
        if value is None:
            return True
        if has_enum and value not in enum:  # type: ignore[operator]
            return False
        if one_of is not None and sum(option(value) for option in one_of) != 1:
            return False
        if isinstance(value, dict):
            for name in required:
                if name not in value:
                    return False
            for key, item in value.items():
                check = properties.get(key)
                if check is not None:
                    if not check(item):
                        return False
                elif strict or (extra_check is not None and not extra_check(item)):
                    return False
        elif items is not None and isinstance(value, list):
            for item in value:
                if not items(item):
                    return False
        return True

    done[id(schema)] = accepts
    return accepts


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _type_name(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPES[name](value):
            return name
    return type(value).__name__


def _check(
    value: Any, schema: dict[str, Any], path: tuple[str | int, ...], out: list[Problem]
) -> None:
    """The JSON Schema keywords Kubernetes' schemas use: type, enum, properties,
    additionalProperties (false: strict), required, items, oneOf."""
    where = format_path(path)
    if not isinstance(value, dict | list | str | int | float | bool | type(None)):
        value = str(
            value
        )  # a YAML timestamp: a string once the item is JSON, as kubeconform sees it
    types = schema.get("type")
    if types is not None:
        allowed = [types] if isinstance(types, str) else list(types)
        if not any(_TYPES.get(t, lambda v: True)(value) for t in allowed):
            wanted = " or ".join(t for t in allowed if t != "null")
            out.append(
                (
                    where,
                    f"{where or 'the object'}: {_type_name(value)} {value!r}, expected {wanted}",
                )
            )
            return
    if value is None:
        return
    if "enum" in schema and value not in schema["enum"]:
        out.append((where, f"{where}: {value!r} is not one of {schema['enum']}"))
    if "oneOf" in schema:
        matching = 0
        for option in schema["oneOf"]:
            trial: list[Problem] = []
            _check(value, option, path, trial)
            matching += not trial
        if matching != 1:
            out.append((where, f"{where}: {value!r} must match exactly one of its forms"))
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties", True)
        for name in schema.get("required") or []:
            if name not in value:
                out.append((where, f"{where or 'the object'}: missing required field {name!r}"))
        for key, item in value.items():
            if key in properties:
                _check(item, properties[key], (*path, key), out)
            elif extra is False:
                field = format_path((*path, key))
                out.append((field, f"{field}: unknown field (strict validation)"))
            elif isinstance(extra, dict):
                _check(item, extra, (*path, key), out)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _check(item, schema["items"], (*path, index), out)


def _run_plugin(
    spec: PluginSpec, rl: ResourceList, own: list[KubeObject], target: KubeObject
) -> str:
    """TKO's command validate plugin: PluginInput on stdin, PluginOutput on stdout; the error
    it reports ('' when valid). A plugin that cannot run is an error too."""
    import subprocess
    import tempfile
    from pathlib import Path

    import yaml  # TKO's plugin documents only: not a start-up cost

    from .executors import exec_command, run_in_group, tko_plugin_input
    from .package import PackageView

    root = PackageView.of(rl.items).root
    argv = exec_command(spec, root)
    with tempfile.TemporaryDirectory(prefix="krmfn-validate-") as tmp:
        log_file = Path(tmp) / "plugin.log"
        log_file.touch()
        try:
            done = run_in_group(
                argv,
                tko_plugin_input(log_file, own, target).encode(),
                spec.timeout,
                str(root) if root is not None else None,
            )
        except subprocess.TimeoutExpired:
            return f"timed out after {spec.timeout:g}s"
        except OSError as exc:
            return f"cannot run {argv[0]}: {exc.strerror}"
    stdout = done.stdout.decode("utf-8", errors="replace")
    if done.returncode != 0:
        stderr = done.stderr.decode(errors="replace").strip()
        return f"exit code {done.returncode}: {stderr[-400:] or 'no message'}"
    try:
        output = yaml.safe_load(stdout)
    except yaml.YAMLError as exc:
        return f"bad output: not YAML: {exc}"
    if not isinstance(output, dict):
        return "bad output: expected a PluginOutput map (error)"
    error = str(output.get("error") or "").strip()
    return error[-400:]


__all__ = ["validate_package"]
