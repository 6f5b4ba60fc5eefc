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

from functools import cache
from pathlib import Path
from typing import Any

from krmlib import KubeObject, ResourceList, format_path, is_kptfile

from .config import Config, PluginSpec

SCHEMAS = Path(__file__).resolve().parent / "schemas"
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
        if is_kptfile(obj) or obj.is_local_config:
            continue
        validators = plugins.get((obj.api_version, obj.kind))
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
        schema = _schema(obj.api_version, obj.kind)
        if schema is None:
            continue
        problems: list[Problem] = []
        _check(obj.to_dict(), schema, (), problems)
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
    path = SCHEMAS / f"{api_version.replace('/', '_')}_{kind}.json"
    if not path.is_file():
        return None
    import json  # on first use: not a start-up cost

    schema = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(schema, dict)
    return schema


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
