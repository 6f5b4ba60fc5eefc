"""The runner: stdin → process → stdout, ``--help``/``--version``, and standalone file mode."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

from krmlib._base import spill as _spill
from krmlib._base.errors import DEBUG_ENV, FieldTypeError, KrmError, internal_error, setting
from krmlib._model.object import KubeObject
from krmlib._model.results import Result

from .resourcelist import CheckFailed, Piece, ResourceList, piece_data, piece_text
from .stdin import read_stdin

if TYPE_CHECKING:  # the config layer loads only when a function has a config to parse
    from krmlib._config.records import FunctionConfig

    C = TypeVar("C", bound="FunctionConfig")  # for the checker only: no ForwardRef at run time
# What the runner calls: the config is the function's config class, or None without one.
Process = Callable[[ResourceList, Any], None]


@overload
def run_text(
    process: Callable[[ResourceList, C], None], config_model: type[C], text: str
) -> tuple[str, int]: ...
@overload
def run_text(
    process: Callable[[ResourceList, None], None], config_model: None, text: str
) -> tuple[str, int]: ...
def run_text(
    process: Process, config_model: type[FunctionConfig] | None, text: str
) -> tuple[str, int]:
    """Run a function on ResourceList text; (output ResourceList text, exit code)."""
    rl = run_resource_list(process, config_model, text)
    rl, pieces = _output(rl)
    text = "".join(map(piece_text, pieces))
    return text, exit_code(rl)


def _output(rl: ResourceList) -> tuple[ResourceList, list[Piece]]:
    """The pieces to write, serialised fully before anything is written (unedited items stay
    spans of the input until then), through the gate's check of the new text; a failure
    gives a ResourceList of error results instead."""
    from .gate import check_text

    try:
        pieces = list(rl.pieces())
        refused = check_text(pieces, rl)
    except Exception as exc:
        rl = ResourceList()
        rl.results.error(internal_error(exc))
        return rl, list(rl.pieces())
    if refused:
        rl = _failed([*rl.results, *refused])
        pieces = list(rl.pieces())
    return rl, pieces


@overload
def run_resource_list(
    process: Callable[[ResourceList, C], None], config_model: type[C], text: str
) -> ResourceList: ...
@overload
def run_resource_list(
    process: Callable[[ResourceList, None], None], config_model: None, text: str
) -> ResourceList: ...
def run_resource_list(
    process: Process, config_model: type[FunctionConfig] | None, text: str
) -> ResourceList:
    """Parse, configure and process; every expected failure becomes an error result.

    A big input is checked in a child process while the function works (``_background``); its
    verdict is awaited here, and a refused input gives only the check's error results, as if
    the check had run first.

    The cyclic garbage collector is off for the run (as it was after): reading and processing
    make hundreds of thousands of values (items, parsed nodes, conditions) and almost no cycles,
    that the collector would only walk again and again (0.05-0.1 s at 10k items); the few
    cycles a run makes are collected once it is on again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run_resource_list(process, config_model, text)
    finally:
        if enabled:
            gc.enable()


def _run_resource_list(
    process: Process, config_model: type[FunctionConfig] | None, text: str
) -> ResourceList:
    try:
        rl = ResourceList.parse(text, background=True)
    except CheckFailed as exc:
        return _failed(exc.results)
    except KrmError as exc:
        rl = ResourceList()
        rl.results.from_error(exc)
        return rl
    except Exception as exc:  # a bug in the reader: one error result, no traceback
        rl = ResourceList()
        rl.results.error(internal_error(exc))
        return rl
    del text  # the items hold their own text; let a big input go before processing
    from . import gate as _gate
    from . import watch as _watch

    before = _watch.Snapshot(rl)
    with _watch.watching():
        rl = _process(process, config_model, rl)
    failure = rl.check_failure(final=True)
    if failure:
        return _failed(failure)
    _relative_paths(rl)
    refused = _gate.check(rl, before)  # nothing is written that the reader would refuse
    return _failed([*rl.results, *refused]) if refused else rl


def _relative_paths(rl: ResourceList) -> None:
    """Results about a subpackage's item name its file relative to the rendered package."""
    if not rl.results._pending:
        return
    try:
        folder = rl.package().folder
    except KrmError:  # items that contradict each other: the paths stay as they are
        folder = None
    rl.results.relative_to_package(folder)


def _failed(results: list[Result]) -> ResourceList:
    rl = ResourceList()
    for result in results:
        rl.results.add(result)
    return rl


def _process(
    process: Process, config_model: type[FunctionConfig] | None, rl: ResourceList
) -> ResourceList:
    try:
        rl.package()  # the one package rule: an item contradicting it fails every function
        config = None
        if config_model is not None:
            from krmlib._config.parse import parse_config

            config = parse_config(config_model, rl.function_config)
        with _stdout_to_stderr():
            returned = cast(Any, process)(rl, config)
        if returned is not None:
            rl.results.error(_returned(process, returned))
    except KrmError as exc:
        _from_error(rl, exc, process)
    except SystemExit as exc:  # sys.exit() in the function: never an empty output
        found = _in_function_code(exc, process)
        where = f" (at {found[2]})" if found else ""
        rl.results.error(
            f"the function called sys.exit({'' if exc.code is None else repr(exc.code)}){where}: "
            "a function reports a failure with rl.results.error(...) and returns; kpt would "
            "read an early exit as a package without resources",
            found[1] if found else None,
        )
    except Exception as exc:  # a bug: say so as a result (the traceback only with KRMLIB_DEBUG)
        found = _in_function_code(exc, process)
        if found is None:
            rl.results.error(internal_error(exc))
        else:
            rl.results.error(found[0], found[1])
    return rl


def _from_error(rl: ResourceList, exc: KrmError, process: Process) -> None:
    """An expected failure as its error result; one raised by a krmlib call in the author's
    code (a path through a list, a wrong type) also names the author's ``file:line``."""
    found = _in_function_code(exc, process) if isinstance(exc, FieldTypeError) else None
    if found is not None and found[3]:
        message = exc.message
        if exc.obj is not None:  # the item is the result's resourceRef; no Python repr here
            message = message.replace(f"{exc.obj!r}: ", "")
        exc.message = f"{message} (a path in the function's code, at {found[2]})"
    rl.results.from_error(exc)


def _returned(process: Process, value: Any) -> str:
    """The error for a ``process`` that returned a value: kpt reads only results and the exit
    code, so ``return False, "bad"`` would pass."""
    where = _return_line(process)
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return (
        f"the function returned {shown}{where}; krmlib ignores return values: report a "
        "failure with rl.results.error(message, obj) (exit 1) and return None"
    )


def _return_line(process: Process) -> str:
    """`` (at my_fn/process.py:12)``: the first ``return <value>`` of ``process``'s source."""
    import ast
    import inspect
    import textwrap

    code = getattr(process, "__code__", None)
    if code is None:
        return ""
    from .watch import module_file

    where = module_file(getattr(process, "__module__", "") or "", code.co_filename)
    line = code.co_firstlineno
    try:
        lines, start = inspect.getsourcelines(process)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, ValueError):
        return f" (at {where}:{line}, in {code.co_name})"
    returns = [
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Return) and node.value
    ]
    if returns:
        line = start + min(returns) - 1
    return f" (at {where}:{line})"


class _ToStderr:
    """``sys.stdout`` while a function runs: text goes to stderr, after one line that says so
    (stdout holds the ResourceList: a print there would corrupt it)."""

    def __init__(self, stderr: Any) -> None:
        self._stderr = stderr
        self._warned = False

    def write(self, text: str) -> int:
        if not self._warned and text:
            self._warned = True
            from .watch import module_file

            caller = sys._getframe(1)  # print's caller (print is C), or write's
            at = module_file(str(caller.f_globals.get("__name__", "")), caller.f_code.co_filename)
            self._stderr.write(
                f"krmlib: warning: the function printed to stdout (at {at}:{caller.f_lineno}); "
                "its text goes to stderr (stdout holds the ResourceList). Use krmlib.log or "
                "rl.results.\n"
            )
        return int(self._stderr.write(text))

    def flush(self) -> None:
        self._stderr.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stderr, name)


@contextlib.contextmanager
def _stdout_to_stderr() -> Any:
    saved = sys.stdout
    sys.stdout = _ToStderr(sys.stderr)
    try:
        yield
    finally:
        sys.stdout = saved


# Exception text kept in a result (kpt prints a result's message whole; a short one stays
# readable on one terminal line with the file and line after it).
MESSAGE_CHARS = 160
# Not the author's code: krmlib, and the libraries it runs on.
NOT_AUTHORS = frozenset({"krmlib", "ruamel", "yaml", "_yaml", "pydantic", "pydantic_core"})


def _in_function_code(
    exc: BaseException, process: Process
) -> tuple[str, KubeObject | None, str, bool] | None:
    """An unexpected exception raised in the function's own code: one message naming the
    exception and the innermost ``file:line`` of the author's code, and the item that frame
    (or one around it) was working on, for the result's resourceRef; None when the failure is
    not in the author's code.

    The author's code is the package of ``process`` (``my_fn`` of ``my_fn.process``), or else
    any code outside krmlib, the standard library and krmlib's dependencies. The item is a
    ``KubeObject`` local of that frame or of a frame around it (``for obj in rl.items``)."""
    import traceback  # the failure path only

    if setting("DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)
    frames = list(traceback.walk_tb(exc.__traceback__))
    home = (getattr(process, "__module__", None) or "").partition(".")[0]

    def top(frame: Any) -> str:
        return str(frame.f_globals.get("__name__", "")).partition(".")[0]

    authors = [i for i, (f, _) in enumerate(frames) if home and top(f) == home]
    if not authors:
        authors = [
            i
            for i, (f, _) in enumerate(frames)
            if top(f) not in NOT_AUTHORS and top(f) not in sys.stdlib_module_names
        ]
    if not authors:
        return None
    frame, line = frames[authors[-1]]
    obj = next(
        (
            value
            for f, _ in reversed(frames[: authors[-1] + 1])
            for value in f.f_locals.values()
            if isinstance(value, KubeObject)
        ),
        None,
    )
    text = str(exc)
    if len(text) > MESSAGE_CHARS:
        text = text[: MESSAGE_CHARS - 3] + "..."
    where = f"{_module_file(frame)}:{line} in {frame.f_code.co_name}"
    return (
        f"internal error: {type(exc).__name__}" + (f": {text}" if text else "")
        + f" (at {where}; {DEBUG_ENV}=1 prints the traceback)",
        obj,  # the result's resourceRef: kpt shows it before the message
        where,
        authors[-1] < len(frames) - 1,  # raised below the author's code (in a krmlib call)
    )  # fmt: skip


def _module_file(frame: Any) -> str:
    """A frame's file as its module's path (``my_fn/process.py``): short, and the same for
    an editable install, a wheel or an image."""
    module = str(frame.f_globals.get("__name__", ""))
    filename = str(frame.f_code.co_filename)
    if not module or module == "__main__":
        return os.path.basename(filename)
    tail = "/__init__.py" if os.path.basename(filename) == "__init__.py" else ".py"
    return module.replace(".", "/") + tail


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KrmError(
            f"input is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        ) from None


@overload
def run(
    process: Callable[[ResourceList, C], None],
    config_model: type[C],
    *,
    name: str,
    help_text: str | Callable[[], str] = "",
    version: str = "",
    argv: Sequence[str] | None = None,
) -> int: ...
@overload
def run(
    process: Callable[[ResourceList, None], None],
    config_model: None = None,
    *,
    name: str,
    help_text: str | Callable[[], str] = "",
    version: str = "",
    argv: Sequence[str] | None = None,
) -> int: ...
def run(
    process: Process,
    config_model: type[FunctionConfig] | None = None,
    *,
    name: str,
    help_text: str | Callable[[], str] = "",
    version: str = "",
    argv: Sequence[str] | None = None,
) -> int:
    """The console-script entry point of a function. Returns the exit code.

    ``--help`` prints the usage and the flags, then ``help_text`` (the function's documentation);
    ``--version`` prints ``name version``.
    """
    from .args import parse_args

    args = parse_args(name, list(sys.argv[1:] if argv is None else argv))
    if isinstance(args, int):
        return args
    if args.help:
        text = help_text() if callable(help_text) else help_text
        head = usage(name, config_model)
        _write(head + ("\n" + text.rstrip("\n") + "\n" if text.strip() else ""))
        return 0
    if args.version:
        _write(f"{name} {version or 'unknown'}\n")
        return 0
    if args.doc:
        _write(doc_json(name, config_model, help_text, version))
        return 0
    if args.paths or args.fn_config:
        return _run_files(process, config_model, name, args.paths, args.fn_config, args.output)
    out = sys.stdout.buffer  # the ResourceList's alone: a print in the run goes to stderr
    # The new texts of a big run wait for the gate out of memory (krmlib._base.spill): nothing
    # of this run is used once it is written.
    _spill.start()
    try:
        with _stdout_to_stderr():
            # No name keeps the input text alive once the items are split from it (memory).
            rl = run_resource_list(process, config_model, decode(read_stdin()))
    except KrmError as exc:
        rl = ResourceList()
        rl.results.from_error(exc)
    try:
        rl, pieces = _output(rl)
        if not _write_pieces(pieces, out):
            return 1
    finally:
        _spill.stop()
    if argv is None:
        _close_stdout()
    return exit_code(rl)


def _close_stdout() -> None:
    """After the ResourceList: whatever a thread, an ``atexit`` handler or a C library still
    writes to file descriptor 1 goes to stderr, not after the output kpt reads."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        real = sys.__stdout__
        if real is not None and sys.stdout is real and real.fileno() == 1:
            real.flush()
            os.dup2(sys.stderr.fileno(), 1)


def doc_json(
    name: str,
    config_model: type[FunctionConfig] | None = None,
    help_text: str | Callable[[], str] = "",
    version: str = "",
) -> str:
    """``--doc``: the function's documentation as one JSON object, for tools (go/fn's
    ``--doc``): ``name``, ``version``, ``summary`` (the first line of the text that is not a
    heading), ``config`` (``apiVersion`` and ``kind`` of the typed config, null without one),
    ``usage`` (the head of ``--help``) and ``doc`` (the whole ``help_text``)."""
    import json

    text = help_text() if callable(help_text) else help_text
    summary = next(
        (line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"), ""
    )
    config = None
    if config_model is not None:
        config = {"apiVersion": config_model.API_VERSION, "kind": config_model.KIND or None}
    doc = {
        "name": name,
        "version": version or None,
        "summary": summary,
        "config": config,
        "usage": usage(name, config_model),
        "doc": text,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def usage(name: str, config_model: type[FunctionConfig] | None = None) -> str:
    """The usage line and the flags every function takes (the head of ``--help``), with the
    config's own typed form (``API_VERSION`` and ``KIND`` of ``config_model``)."""
    from .args import USAGE

    if config_model is None:
        config = "this function takes none"
    elif config_model.KIND:
        config = f"typed {config_model.API_VERSION} {config_model.KIND}, or a ConfigMap"
    else:
        config = "a ConfigMap"
    return USAGE.format(name=name, config=config)


def _write(text: str) -> None:
    _write_pieces([text])


def _write_pieces(pieces: Iterable[Piece], out: Any = None) -> bool:
    """Write to stdout (``out``: its binary buffer, taken before the run); False (and one
    message on stderr, no traceback) when stdout refuses (a full disk, ``> /dev/full``, a
    closed pipe)."""
    out = sys.stdout.buffer if out is None else out
    try:
        for piece in pieces:
            out.write(piece_data(piece))
        out.flush()
    except OSError as exc:
        # What is left in the buffer goes nowhere: stdout becomes /dev/null, so the flush at
        # exit does not fail a second time with a traceback.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "krmfn"
        sys.stderr.write(f"{name}: error: cannot write the output: {exc.strerror or exc}\n")
        return False
    return True


def _run_files(
    process: Process,
    config_model: type[FunctionConfig] | None,
    name: str,
    paths: list[str],
    fn_config: str | None,
    output: str | None,
) -> int:
    """Standalone mode: read YAML files and folders, print a stream (or a ResourceList)."""
    rl = ResourceList(form="stream")
    try:
        for obj in read_files(paths or ["-"]):
            rl.items.append(obj)
        if fn_config:
            from . import tree as _tree

            docs = _tree.read_stream(_tree.read_file_text(fn_config), fn_config)
            if len(docs) != 1:
                raise KrmError(f"{fn_config}: expected exactly one config object")
            rl.function_config = docs[0]
    except (KrmError, OSError) as exc:
        message = exc.message if isinstance(exc, KrmError) else str(exc)
        sys.stderr.write(f"{name}: error: {message}\n")
        return 1
    from . import gate as _gate
    from . import watch as _watch

    before = _watch.Snapshot(rl)
    with _stdout_to_stderr(), _watch.watching():
        _process(process, config_model, rl)
    refused = _gate.check(rl, before)
    if refused:  # nothing written that the reader would refuse: the results only
        rl = _failed([*rl.results, *refused])
        rl.form = "stream"
    if output == "resourcelist":
        if not _write_pieces([rl.to_yaml()]):
            return 1
    else:
        if not _write_pieces([rl.to_stream()]):
            return 1
        for result in rl.results.sorted():
            sys.stderr.write(f"{name}: {result}\n")
    return exit_code(rl)


def read_files(paths: Sequence[str]) -> list[KubeObject]:
    """Objects from YAML files and package folders; ``-`` is stdin (a ResourceList, a List or
    a stream). A folder is read as kpt reads a package (``krmlib._io.reader``: ``.krmignore``,
    hidden entries, links to files, subpackages), each object with kpt's path and index
    annotations relative to it; a file's objects are annotated with its name."""
    from . import reader as _reader
    from . import tree as _tree

    objects: list[KubeObject] = []
    for raw in paths:
        if raw == "-":
            objects.extend(_reader.read_input(decode(read_stdin())).items)
        elif os.path.isdir(raw):
            for _rel, documents in _tree.read_tree(raw):
                objects.extend(obj for _text, obj in documents)
        else:
            found = _tree.read_stream(_tree.read_file_text(raw), raw)
            for index, obj in enumerate(found):
                _tree.annotate(obj, os.path.basename(raw), index, None)
            objects.extend(found)
    return objects


def exit_code(rl: ResourceList) -> int:
    """1 when the ResourceList written has an error result, this function's or one kept from
    its input (an earlier function's), else 0 (issue 27.8)."""
    if rl.results.has_errors:
        return 1
    earlier = rl._input_results  # the earlier results, kept as written
    if "error" not in earlier:
        return 0
    try:
        results = KubeObject.from_yaml("results:\n" + earlier).get("results")
    except Exception:  # unreadable: it was checked with the input; nothing to add
        return 0
    return int(
        isinstance(results, list)
        and any(isinstance(r, dict) and r.get("severity") == "error" for r in results)
    )
