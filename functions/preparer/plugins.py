"""Preparation plugins: how a registered GVK's preparer runs (exec, python, built-in)."""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from krmlib import Items, KrmError, KubeObject, ResourceList, Results, check_readable, read_roots

from .config import PluginSpec
from .package import PackageView

if TYPE_CHECKING:
    from .client import DataClient

ENTRY_POINT_GROUP = "krmfn.preparers"
PLUGIN_CONFIG_NAME = "preparer-plugin"


@dataclass
class PluginContext:
    """What a plugin gets: the whole package (live), its target, results and the data client."""

    items: Items
    target: KubeObject
    spec: PluginSpec
    properties: dict[str, str]
    results: Results
    client: DataClient
    root: Path | None
    is_preparable: Callable[[KubeObject], bool]
    waits: dict[tuple[str, str, str], tuple[KubeObject, str]] = field(default_factory=dict)

    def wait(self, message: str) -> bool:
        """Leave the target unprepared for now, saying why (reported if it is still waiting
        after the last pass). Returns False, for ``return ctx.wait(...)``."""
        key = (self.target.api_version, self.target.kind, self.target.name)
        self.waits[key] = (self.target, message)
        return False

    @property
    def view(self) -> PackageView:
        return PackageView.of(self.items)

    def own(self) -> list[KubeObject]:
        """The items of this package (subpackage items left out)."""
        return self.view.own(self.items)


Plugin = Callable[[PluginContext], bool | None]


def resolve_upward(relative: str, start: Path | None) -> Path | None:
    """``relative`` against ``start`` and then each of its parents: the first that exists."""
    if start is None:
        path = Path(relative)
        return path.resolve() if path.exists() else None
    for folder in (start, *start.parents):
        candidate = folder / relative
        if candidate.exists():
            return candidate
    return None


def properties_of(target: KubeObject, spec: PluginSpec) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, path in spec.properties.items():
        value = target.get(path)
        if value is None:
            continue
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, dict | list):
            import json

            out[name] = json.dumps(value, sort_keys=True)
        else:
            out[name] = str(value)
    return out


def load_python(spec: PluginSpec) -> Plugin:
    """``module:function``, or the name of an entry point in the group ``krmfn.preparers``."""
    ref = spec.python or ""
    try:
        if ":" in ref:
            module_name, _, attr = ref.partition(":")
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
        else:
            found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP, name=ref)
            if not found:
                raise KrmError(
                    f"{spec.label}: no entry point {ref!r} in the group {ENTRY_POINT_GROUP}"
                )
            obj = next(iter(found)).load()
    except (ImportError, AttributeError) as exc:
        raise KrmError(f"{spec.label}: cannot load {ref!r}: {exc}") from None
    if not callable(obj):
        raise KrmError(f"{spec.label}: {ref!r} is not callable")
    plugin: Plugin = obj
    return plugin


def exec_command(spec: PluginSpec, root: Path | None) -> list[str]:
    """The plugin's argv: a relative program is found from the package folder upwards; a
    ``.py`` program runs with the preparer's own Python."""
    try:
        argv = shlex.split(spec.exec or "")
    except ValueError as exc:
        raise KrmError(f"{spec.label}: bad exec command: {exc}") from None
    if not argv:
        raise KrmError(f"{spec.label}: empty exec command")
    program = argv[0]
    if "/" in program and not os.path.isabs(program):
        found = resolve_upward(program, root)
        if found is None:
            where = f"from {root} upwards" if root else "in the working directory"
            raise KrmError(f"{spec.label}: {program} not found {where}")
        program = str(found)
    if "/" in program:  # a file the config names: inside the package tree (or allowed)
        check_readable(Path(program), read_roots(root), f"{spec.label}: program")
    else:
        program = shutil.which(program) or program
    argv[0] = program
    if program.endswith(".py"):
        argv.insert(0, sys.executable)
    return argv


def run_exec(ctx: PluginContext) -> bool | None:
    """Run a KRM function on the whole package; its output items become the package."""
    spec = ctx.spec
    argv = exec_command(spec, ctx.root)
    config = KubeObject.from_dict(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": PLUGIN_CONFIG_NAME},
            "data": {
                "apiVersion": ctx.target.api_version,
                "kind": ctx.target.kind,
                "name": ctx.target.name,
                **({"namespace": ctx.target.namespace} if ctx.target.namespace else {}),
                **ctx.properties,
            },
        }
    )
    rl = ResourceList(items=Items(ctx.items), function_config=config)
    name = f"{spec.label} on {ctx.target.kind}/{ctx.target.name}"
    try:
        done = run_in_group(
            argv,
            rl.to_yaml(with_results=False).encode(),
            spec.timeout,
            str(ctx.root) if ctx.root is not None else None,
        )
    except subprocess.TimeoutExpired:
        raise KrmError(
            f"{name}: timed out after {spec.timeout:g}s (killed with its process group)",
            obj=ctx.target,
        ) from None
    except OSError as exc:
        raise KrmError(f"{name}: cannot run {argv[0]}: {exc.strerror}", obj=ctx.target) from None
    stderr = done.stderr.decode(errors="replace").strip()
    text = done.stdout.decode("utf-8", errors="replace")
    if done.returncode != 0:
        why = "; ".join(_plugin_errors(text)) or _tail(stderr) or "no message"
        raise KrmError(f"{name}: exit code {done.returncode}: {why}", obj=ctx.target)
    try:
        output = ResourceList.parse(text)
        if output.form != "resourcelist":
            raise KrmError("expected a config.kubernetes.io/v1 ResourceList")
    except KrmError as exc:
        detail = f"; stderr: {_tail(stderr)}" if stderr else ""
        raise KrmError(f"{name}: bad output: {exc}{detail}", obj=ctx.target) from None
    ctx.items.replace_all(output.items)
    return None


def run_in_group(
    argv: list[str], data: bytes, timeout: float, cwd: str | None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` in a process group of its own; on timeout the whole group is killed (no
    child the plugin started keeps running) and ``TimeoutExpired`` is raised."""
    with subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(data, timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _plugin_errors(text: str) -> list[str]:
    """The error messages of a plugin's results (best effort)."""
    try:
        results = KubeObject.from_yaml(text).get("results", []) or []
    except KrmError:
        return []
    if not isinstance(results, list):
        return []
    return [
        str(r.get("message", ""))
        for r in results
        if isinstance(r, dict) and r.get("severity", "error") == "error"
    ]


def _tail(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else "..." + text[-limit:]


__all__ = [
    "ENTRY_POINT_GROUP",
    "Plugin",
    "PluginContext",
    "exec_command",
    "load_python",
    "properties_of",
    "resolve_upward",
    "run_exec",
]
