"""How external plugins run: a KRM function (``exec``, protocol ``krm``), a TKO command plugin
(``exec`` with ``protocol: tko``: TKO's PluginInput/PluginOutput documents) and TKO's kpt
executor (``image``: a KRM function image run by the container runtime)."""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from krmfn.tko import is_prepared
from krmlib import Items, KrmError, KubeObject, ResourceList, read_roots
from krmlib.packages import check_readable, content_of, is_kpt_internal

from .config import PluginSpec
from .plugins import Outcome, PluginContext, resolve_upward

if TYPE_CHECKING:
    import subprocess
    from pathlib import Path  # at run time where a path is made: not a start-up cost

T = TypeVar("T")
PLUGIN_CONFIG_NAME = "preparer-plugin"
CONTAINER_TOOL_ENV = "KRMFN_CONTAINER_TOOL"

# Set by `krmfn prepare-all`: only there may the preparer start containers (a function run by
# kpt may not: in image mode it has no runtime, and kpt owns the containers it starts).
_containers: contextvars.ContextVar[bool] = contextvars.ContextVar("containers", default=False)


@contextlib.contextmanager
def containers_allowed() -> Iterator[None]:
    """Within this block, ``image`` plugins run through the container runtime."""
    token = _containers.set(True)
    try:
        yield
    finally:
        _containers.reset(token)


def exec_command(spec: PluginSpec, root: Path | None) -> list[str]:
    """The plugin's argv: a relative program is found from the package folder upwards; a
    ``.py`` program runs with the preparer's own Python."""
    # Process modules load when a plugin runs, not at start-up (issue 17.3).
    import shlex
    import shutil

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
        from pathlib import Path

        check_readable(Path(program), read_roots(root), f"{spec.label}: program")
    else:
        program = shutil.which(program) or program
    argv[0] = program
    if program.endswith(".py"):
        argv.insert(0, sys.executable)
    return argv


def _run(ctx: PluginContext, argv: list[str], stdin: str) -> tuple[str, str, float]:
    """Run the plugin process; (stdout, stderr, deadline). A timeout, a start failure, too much
    output or a non-zero exit is an error naming the plugin and the target. ``deadline``
    (``time.monotonic()``) is when the plugin's ``timeout`` ends: reading its output must be
    done by then too (:func:`_parse_by`)."""
    import subprocess
    import time

    from krmlib.packages import TooMuchOutput

    spec = ctx.spec
    name = _name(ctx)
    deadline = time.monotonic() + spec.timeout
    try:
        done = run_in_group(
            argv, stdin.encode(), spec.timeout, str(ctx.root) if ctx.root is not None else None
        )
    except subprocess.TimeoutExpired:
        raise _timed_out(ctx) from None
    except TooMuchOutput as exc:
        raise KrmError(
            f"{name}: printed more than {exc.limit // (1024 * 1024)} MiB on stdout (killed with "
            "its process group)",
            obj=ctx.target,
        ) from None
    except OSError as exc:
        raise KrmError(f"{name}: cannot run {argv[0]}: {exc.strerror}", obj=ctx.target) from None
    stdout = done.stdout.decode("utf-8", errors="replace")
    stderr = done.stderr.decode(errors="replace").strip()
    if done.returncode != 0:
        why = "; ".join(_parse_by(ctx, deadline, _result_errors, stdout)) or _tail(stderr)
        message = f"{name}: exit code {done.returncode}: {why or 'no message'}"
        raise KrmError(message, obj=ctx.target)
    return stdout, stderr, deadline


def _timed_out(ctx: PluginContext) -> KrmError:
    return KrmError(
        f"{_name(ctx)}: timed out after {ctx.spec.timeout:g}s (killed with its process group)",
        obj=ctx.target,
    )


class _Late(BaseException):
    """The plugin's timeout ended while its output was being read."""


def _parse_by(ctx: PluginContext, deadline: float, parse: Callable[[str], T], text: str) -> T:
    """``parse(text)`` within the plugin's timeout (issue 27.3): the rest of the timeout is an
    interval timer (in the main thread), and a parse that ends after it is refused anyway."""
    import signal
    import threading
    import time

    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _timed_out(ctx)
    timer = threading.current_thread() is threading.main_thread()
    if timer:

        def late(number: int, frame: object) -> None:
            raise _Late

        previous = signal.signal(signal.SIGALRM, late)
        signal.setitimer(signal.ITIMER_REAL, remaining)
    try:
        value = parse(text)
    except _Late:
        raise _timed_out(ctx) from None
    finally:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    if time.monotonic() > deadline:
        raise _timed_out(ctx)
    return value


def run_in_group(
    argv: list[str], data: bytes, timeout: float, cwd: str | None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` through ``krmlib.packages.run_program`` (the input check's gate first; a process
    group of its own, killed whole on a timeout, ``TimeoutExpired``, or on more output than
    its cap, ``TooMuchOutput``). A Python script this interpreter would run runs in a fork of
    this process (:mod:`.python_fork`)."""
    from krmlib.packages import run_program

    from .python_fork import child_of, python_script  # its own imports: not start-up costs

    script = python_script(argv, cwd)
    child = child_of(script, argv) if script is not None else None
    return run_program(argv, data, timeout=timeout, cwd=cwd, child=child)


def _name(ctx: PluginContext) -> str:
    return f"{ctx.spec.label} on {ctx.target.kind}/{ctx.target.name}"


# --- KRM function (protocol krm) ---------------------------------------------------------------


def run_krm(ctx: PluginContext) -> Outcome:
    """Run a KRM function on the whole package; its output items become the package."""
    argv = exec_command(ctx.spec, ctx.root)
    output = _krm_call(ctx, argv, ctx.items)
    ctx.items.replace_all(output)
    return Outcome.done()


def _function_config(data: dict[str, str]) -> KubeObject:
    return KubeObject.from_dict(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": PLUGIN_CONFIG_NAME},
            "data": data,
        }
    )


def _krm_call(ctx: PluginContext, argv: list[str], items: Items) -> list[KubeObject]:
    target = ctx.target
    data = {"apiVersion": target.api_version, "kind": target.kind, "name": target.name}
    if target.namespace:
        data["namespace"] = target.namespace
    data.update(ctx.properties)
    rl = ResourceList(items=Items(items), function_config=_function_config(data))
    stdout, stderr, deadline = _run(ctx, argv, rl.to_yaml(with_results=False))
    return _parse_resource_list(ctx, stdout, stderr, deadline)


def _parse_resource_list(
    ctx: PluginContext, stdout: str, stderr: str, deadline: float
) -> list[KubeObject]:
    try:
        output = _parse_by(ctx, deadline, ResourceList.parse, stdout)
        if output.form != "resourcelist":
            raise KrmError("expected a config.kubernetes.io/v1 ResourceList")
    except KrmError as exc:
        detail = f"; stderr: {_tail(stderr)}" if stderr else ""
        raise KrmError(f"{_name(ctx)}: bad output: {exc}{detail}", obj=ctx.target) from None
    if "\nresults:" in stdout:  # the plugin's own results are kept (issue 35)
        kept = _parse_by(ctx, deadline, _results, stdout)
        errors = [message for severity, message in kept if severity == "error"]
        if errors:
            raise KrmError(f"{_name(ctx)}: {'; '.join(errors)}", obj=ctx.target)
        for severity, message in kept:
            report = ctx.results.warning if severity == "warning" else ctx.results.info
            report(f"{_name(ctx)}: {message}", ctx.target)
    return list(output.items)


# --- TKO command plugin (protocol tko) ---------------------------------------------------------


def tko_plugin_input(
    log_file: Path, own: list[KubeObject], target: KubeObject, deployment_id: str | None = None
) -> str:
    """TKO's PluginInput document for a command plugin, as YAML: the gRPC and log fields, the
    package and ``targetResourceIdentifier``. With ``deployment_id``, a prepare plugin's
    (``deploymentId``, the package as ``deploymentPackage``); without, a validate plugin's (the
    package as ``package``, then ``complete: true``)."""
    import yaml  # TKO's plugin documents only: PyYAML's __init__ stays out of start-up

    document: dict[str, Any] = {
        "grpc": {"level2protocol": "", "address": "", "port": 0},
        "logFile": str(log_file),
        "logAddressPort": "",
    }
    if deployment_id is not None:
        document["deploymentId"] = deployment_id
    package = [content_of(o) for o in own]
    document["deploymentPackage" if deployment_id is not None else "package"] = package
    document["targetResourceIdentifier"] = {
        "group": target.group,
        "version": target.version,
        "kind": target.kind,
        "name": target.name,
    }
    if deployment_id is None:
        document["complete"] = True
    return yaml.safe_dump(document, sort_keys=False)


def run_tko(ctx: PluginContext) -> Outcome:
    """TKO's command executor: a PluginInput document on stdin (``deploymentId``,
    ``deploymentPackage``, ``targetResourceIdentifier``, ``logFile``), a PluginOutput document
    on stdout (``prepared``, ``package``, ``error``). ``prepared: true`` makes ``package`` the
    package; the target is then prepared when the plugin marked it ``nephio.org/prepared`` (as
    TKO's SDK ``set_prepared`` does) or removed it."""
    import yaml  # TKO's plugin documents only: PyYAML's __init__ stays out of start-up

    argv = exec_command(ctx.spec, ctx.root)
    own = ctx.own()
    target = ctx.target
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="krmfn-plugin-") as tmp:
        log_file = Path(tmp) / "plugin.log"
        log_file.touch()
        document = tko_plugin_input(log_file, own, target, ctx.client.deployment_id())
        stdout, stderr, deadline = _run(ctx, argv, document)
        log = log_file.read_text(encoding="utf-8", errors="replace").strip()
    if log:
        ctx.results.info(f"{_name(ctx)} log: {_tail(log)}", target)
    try:
        output = _parse_by(ctx, deadline, yaml.safe_load, stdout)
    except yaml.YAMLError as exc:
        raise KrmError(f"{_name(ctx)}: bad output: not YAML: {exc}", obj=target) from None
    if not isinstance(output, dict):
        detail = f"; stderr: {_tail(stderr)}" if stderr else ""
        raise KrmError(
            f"{_name(ctx)}: bad output: expected a PluginOutput map (prepared, package, "
            f"error){detail}",
            obj=target,
        )
    if output.get("error"):
        raise KrmError(f"{_name(ctx)}: {_tail(str(output['error']))}", obj=target)
    if not output.get("prepared"):
        return Outcome.waiting(f"{_name(ctx)}: the plugin answered prepared: false")
    package = output.get("package") or []
    if not isinstance(package, list) or not all(isinstance(r, dict) for r in package):
        raise KrmError(f"{_name(ctx)}: bad output: package must be a list of resources", obj=target)
    _replace_own(ctx, own, [_object(ctx, r) for r in package])
    after = _find(ctx.own(), target)
    if after is None or is_prepared(after):
        return Outcome.done()
    return Outcome.waiting(
        f"{_name(ctx)}: the plugin answered prepared: true but left the target without "
        'nephio.org/prepared: "true"'
    )


def _find(objects: list[KubeObject], like: KubeObject) -> KubeObject | None:
    key = (like.api_version, like.kind, like.name)
    return next((o for o in objects if (o.api_version, o.kind, o.name) == key), None)


def _object(ctx: PluginContext, data: dict[str, Any]) -> KubeObject:
    obj = KubeObject.from_dict(data)
    try:
        obj.validate()
    except KrmError as exc:
        raise KrmError(f"{_name(ctx)}: bad output: {exc}", obj=ctx.target) from None
    return obj


def _replace_own(ctx: PluginContext, own: list[KubeObject], new: list[KubeObject]) -> None:
    """The package's own items become ``new``: an item equal to one it had keeps that one
    (its file, comments and layout); a changed one is updated in place, field by field."""
    olds = {(o.api_version, o.kind, o.name): o for o in own}
    result: list[KubeObject] = []
    for obj in new:
        old = olds.pop((obj.api_version, obj.kind, obj.name), None)
        if old is None:
            result.append(obj)
            continue
        data = obj.to_dict()
        if content_of(old) != data:
            for key in [k for k in old.to_dict() if k not in data]:
                old.delete((key,))
            for key, value in data.items():
                if key == "metadata":
                    _update_metadata(old, value)
                else:
                    old.set((key,), value)
        result.append(old)
    removed = {id(o) for o in olds.values()}
    owned = {id(o) for o in own}
    others = [o for o in ctx.items if id(o) not in owned]
    ctx.items.replace_all([*[o for o in result if id(o) not in removed], *others])


def _update_metadata(obj: KubeObject, metadata: Any) -> None:
    """metadata from a plugin, keeping kpt's own annotations of the item."""
    if not isinstance(metadata, dict):
        return
    kept = {k: v for k, v in obj.annotations.items() if is_kpt_internal(k)}
    annotations = dict(metadata.get("annotations") or {})
    annotations.update(kept)
    for key in [k for k in obj.get("metadata", {}) if k not in metadata and k != "annotations"]:
        obj.delete(("metadata", key))
    for key, value in metadata.items():
        if key != "annotations":
            obj.set(("metadata", key), value)
    for key in [k for k in obj.annotations if k not in annotations]:
        del obj.annotations[key]
    for key, value in annotations.items():
        obj.annotations[str(key)] = str(value)


# --- kpt image (TKO's kpt executor) ------------------------------------------------------------


def container_tool() -> str | None:
    """podman or docker (``KRMFN_CONTAINER_TOOL`` chooses), when it is installed."""
    import shutil

    wanted = os.environ.get(CONTAINER_TOOL_ENV)
    for tool in [wanted] if wanted else ["podman", "docker"]:
        if tool and shutil.which(tool):
            return tool
    return None


def run_image(ctx: PluginContext) -> Outcome:
    """TKO's kpt executor: the image as a KRM function on the package, with the configured
    properties as ``key=value`` in its functionConfig; the target is then prepared."""
    image = ctx.spec.image or ""
    name = _name(ctx)
    if not _containers.get():
        raise KrmError(
            f"{name}: image plugins run in `krmfn prepare-all` only: a function run by kpt "
            "cannot start containers (use an exec plugin, or prepare the tree with "
            "krmfn prepare-all)",
            obj=ctx.target,
        )
    tool = container_tool()
    if tool is None:
        raise KrmError(
            f"{name}: no container runtime: install podman or docker (or set "
            f"{CONTAINER_TOOL_ENV}) to run {image}",
            obj=ctx.target,
        )
    argv = [tool, "run", "--rm", "-i", "--network", "none", image]
    own = ctx.own()
    rl = ResourceList(items=Items(own), function_config=_function_config(ctx.properties))
    stdout, stderr, deadline = _run(ctx, argv, rl.to_yaml(with_results=False))
    owned = {id(o) for o in own}
    others = [o for o in ctx.items if id(o) not in owned]
    ctx.items.replace_all([*_parse_resource_list(ctx, stdout, stderr, deadline), *others])
    return Outcome.done()


def _result_errors(text: str) -> list[str]:
    """The error messages of a plugin's results (best effort)."""
    return [message for severity, message in _results(text) if severity == "error"]


def _results(text: str) -> list[tuple[str, str]]:
    """(severity, message) of each of a plugin's results (best effort; kpt's default severity
    is error)."""
    try:
        results = KubeObject.from_yaml(text).get("results", []) or []
    except KrmError:
        return []
    if not isinstance(results, list):
        return []
    return [
        (str(r.get("severity") or "error"), str(r.get("message", "")))
        for r in results
        if isinstance(r, dict)
    ]


def _tail(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else "..." + text[-limit:]


__all__ = [
    "CONTAINER_TOOL_ENV",
    "container_tool",
    "containers_allowed",
    "exec_command",
    "run_image",
    "run_krm",
    "run_tko",
]
