"""The runner: stdin → process → stdout, ``--help``/``--version``, and standalone file mode."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

from .errors import KrmError, internal_error
from .object import KubeObject
from .resourcelist import CheckFailed, ResourceList, Span
from .results import Result

if TYPE_CHECKING:  # the config layer loads only when a function has a config to parse
    from .config import FunctionConfig

C = TypeVar("C", bound="FunctionConfig")
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
    return rl.to_yaml(), (1 if rl.results.has_errors else 0)


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
    the check had run first."""
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
    rl = _process(process, config_model, rl)
    failure = rl.check_failure(final=True)
    return _failed(failure) if failure else rl


def _failed(results: list[Result]) -> ResourceList:
    rl = ResourceList()
    for result in results:
        rl.results.add(result)
    return rl


def _process(
    process: Process, config_model: type[FunctionConfig] | None, rl: ResourceList
) -> ResourceList:
    try:
        config = None
        if config_model is not None:
            from .config import parse_config

            config = parse_config(config_model, rl.function_config)
        process(rl, config)
    except KrmError as exc:
        rl.results.from_error(exc)
    except Exception as exc:  # a bug: say so as a result (the traceback only with KRMFN_DEBUG)
        rl.results.error(internal_error(exc))
    return rl


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
    from ._args import parse_args

    args = parse_args(name, list(sys.argv[1:] if argv is None else argv))
    if isinstance(args, int):
        return args
    if args.help:
        text = help_text() if callable(help_text) else help_text
        _write(usage(name) + ("\n" + text.rstrip("\n") + "\n" if text.strip() else ""))
        return 0
    if args.version:
        _write(f"{name} {version or 'unknown'}\n")
        return 0
    if args.paths or args.fn_config:
        return _run_files(process, config_model, name, args.paths, args.fn_config, args.output)
    try:
        # No name keeps the input text alive once the items are split from it (memory).
        rl = run_resource_list(process, config_model, decode(sys.stdin.buffer.read()))
    except KrmError as exc:
        rl = ResourceList()
        rl.results.from_error(exc)
    try:  # serialise fully before writing (unedited items stay spans of the input until then)
        pieces = list(rl.pieces())
    except Exception as exc:
        rl = ResourceList()
        rl.results.error(internal_error(exc))
        pieces = list(rl.pieces())
    _write_pieces(pieces)
    return 1 if rl.results.has_errors else 0


def usage(name: str) -> str:
    """The usage line and the flags every function takes (the head of ``--help``)."""
    from ._args import USAGE

    return USAGE.format(name=name)


def _write(text: str) -> None:
    _write_pieces([text])


def _write_pieces(pieces: Iterable[str | Span]) -> None:
    out = sys.stdout.buffer
    for piece in pieces:
        text = piece if isinstance(piece, str) else piece[0][piece[1] : piece[2]]
        out.write(text.encode("utf-8"))
    out.flush()


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
            from . import _reader

            docs = _reader.read_stream(_reader.read_file_text(fn_config), fn_config)
            if len(docs) != 1:
                raise KrmError(f"{fn_config}: expected exactly one config object")
            rl.function_config = docs[0]
    except (KrmError, OSError) as exc:
        message = exc.message if isinstance(exc, KrmError) else str(exc)
        sys.stderr.write(f"{name}: error: {message}\n")
        return 1
    _process(process, config_model, rl)
    if output == "resourcelist":
        _write(rl.to_yaml())
    else:
        _write(rl.to_stream())
        for result in rl.results.sorted():
            sys.stderr.write(f"{name}: {result}\n")
    return 1 if rl.results.has_errors else 0


def read_files(paths: Sequence[str]) -> list[KubeObject]:
    """Objects from YAML files and package folders; ``-`` is stdin (a ResourceList, a List or
    a stream). A folder is read as kpt reads a package (``krmlib._reader``: ``.krmignore``,
    hidden entries, links to files, subpackages), each object with kpt's path and index
    annotations relative to it; a file's objects are annotated with its name."""
    from . import _reader

    objects: list[KubeObject] = []
    for raw in paths:
        if raw == "-":
            objects.extend(_reader.read_input(decode(sys.stdin.buffer.read())).items)
        elif os.path.isdir(raw):
            for _rel, documents in _reader.read_tree(raw):
                objects.extend(obj for _text, obj in documents)
        else:
            found = _reader.read_stream(_reader.read_file_text(raw), raw)
            for index, obj in enumerate(found):
                _reader.annotate(obj, os.path.basename(raw), index, None)
            objects.extend(found)
    return objects
