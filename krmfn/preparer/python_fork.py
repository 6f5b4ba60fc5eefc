"""Exec plugins that are Python scripts for this very interpreter, run in a fork of this process.

Starting a Python and importing krmlib costs more than most plugins' own work. When the command
of an exec plugin would start the interpreter that runs the preparer on a script (``plugin.py``,
which the preparer runs with its own Python; ``python3 plugin.py`` with the same interpreter;
a script whose ``#!`` line names it, directly or as ``/usr/bin/env python3`` found on ``PATH``),
the script runs in a forked child of this process instead: what is imported already stays
imported. The fork, its session, working folder, pipes, limits and the input check's gate are
``krmlib.packages.run_program``'s (``child=``), which starts the command as a process instead when
this process has more than one thread. What is left here: which commands qualify
(:func:`python_script`) and the child's interpreter state (:func:`child_of`): the interpreter's
signal handlers and standard streams, ``sys.argv``, ``sys.path[0]``, then ``runpy.run_path`` as
``__main__`` and the exit status as the interpreter gives it. ``KRMFN_PLUGIN_FORK=0`` turns it off;
so does a process started with interpreter options other than ``-u`` and ``-B``, and one whose
``PYTHON*``, locale or ``HOME`` variables changed since it started (a new interpreter would start
differently).
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import functools
import gc
import importlib
import io
import os
import shutil
import signal
import sys
import threading
import zipfile
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

FORK_ENV = "KRMFN_PLUGIN_FORK"
_OFF = frozenset({"0", "false", "no", "off"})
_HARMLESS_OPTIONS = frozenset({"-u", "-B"})  # no effect on what a script sees
_SHEBANG_LIMIT = 256  # what Linux reads of a #! line


class Script(NamedTuple):
    """A Python script to run as ``python PATH ARGS...`` would: ``path`` as the interpreter
    gets it (``sys.argv[0]``, relative to the working folder or absolute)."""

    path: str
    args: tuple[str, ...]


def fork_enabled() -> bool:
    """Forking is on (``KRMFN_PLUGIN_FORK`` not 0), possible (POSIX) and faithful (this
    interpreter started without options that change what a script sees). Whether it is safe
    (one thread) is ``krmlib.packages.run_program``'s to say, at the fork."""
    if os.environ.get(FORK_ENV, "1").strip().lower() in _OFF or not hasattr(os, "fork"):
        return False
    return not _interpreter_options() and _startup_settings(os.environ) == _startup_settings(
        _startup_environment()
    )


def _startup_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables a starting interpreter reads (``PYTHON*``, locale, home): a fork is only
    faithful while they are what this interpreter started with."""
    return {
        k: v for k, v in environ.items() if k.startswith(("PYTHON", "LC_")) or k in _STARTUP_VARS
    }


_STARTUP_VARS = frozenset({"LANG", "LANGUAGE", "HOME"})
_IMPORT_ENVIRONMENT = dict(os.environ)


@functools.cache
def _startup_environment() -> dict[str, str]:
    """The environment this process started with (Linux keeps it; elsewhere: as it was when
    this module was imported)."""
    try:
        with open("/proc/self/environ", "rb") as handle:
            raw = handle.read()
    except OSError:
        return _IMPORT_ENVIRONMENT
    pairs = (os.fsdecode(entry).partition("=") for entry in raw.split(b"\0") if entry)
    return {name: value for name, _, value in pairs}


def _interpreter_options() -> list[str]:
    """The options this interpreter was started with (``-u`` and ``-B`` left out)."""
    options = []
    for arg in sys.orig_argv[1:]:
        if not arg.startswith("-") or arg in ("-", "-c", "-m") or arg.startswith(("-c", "-m")):
            break
        if arg not in _HARMLESS_OPTIONS:
            options.append(arg)
    return options


def python_script(argv: Sequence[str], cwd: str | None) -> Script | None:
    """The script ``argv`` would run with this interpreter, or None (a fresh process then)."""
    if not argv or not fork_enabled():
        return None
    program = argv[0]
    if same_interpreter(program):
        if len(argv) < 2 or argv[1].startswith("-"):
            return None  # options, -c, -m or stdin: for a fresh interpreter
        script = Script(argv[1], tuple(argv[2:]))
    elif os.path.isabs(program) and _shebang_interpreter(program) is not None:
        script = Script(program, tuple(argv[1:]))
    else:
        return None
    path = os.path.join(cwd or os.getcwd(), script.path)
    if not os.path.isfile(path) or _is_zip(path):
        return None  # a folder or a zip application: the interpreter's own business
    return script


def same_interpreter(program: str) -> bool:
    """``program`` is this interpreter: the same file after symbolic links, and the same
    virtual environment (the ``pyvenv.cfg`` found from the path as named)."""
    if not os.path.isabs(program):
        return False
    return _identity(program) == _identity(sys.executable)


def _identity(program: str) -> tuple[str, str | None]:
    path = os.path.abspath(program)
    folder = os.path.dirname(path)
    venv = next(
        (d for d in (folder, os.path.dirname(folder)) if os.path.isfile(f"{d}/pyvenv.cfg")), None
    )
    return os.path.realpath(path), venv


def _shebang_interpreter(program: str) -> str | None:
    """The interpreter an executable script's ``#!`` line starts when it is this one: an
    absolute path without arguments, or ``env NAME`` (NAME found on ``PATH``)."""
    if not os.access(program, os.X_OK):
        return None
    try:
        with open(program, "rb") as handle:
            head = handle.read(_SHEBANG_LIMIT)
    except OSError:
        return None
    line, newline, _ = head.partition(b"\n")
    if not line.startswith(b"#!") or not newline:
        return None
    try:
        words = line[2:].decode().split()
    except UnicodeDecodeError:
        return None
    if len(words) == 1:
        interpreter: str | None = words[0]
    elif len(words) == 2 and os.path.basename(words[0]) == "env" and not words[1].startswith("-"):
        interpreter = shutil.which(words[1]) if os.access(words[0], os.X_OK) else None
    else:
        return None  # interpreter options: a fresh interpreter
    if interpreter is None or not same_interpreter(interpreter):
        return None
    return interpreter


def _is_zip(path: str) -> bool:
    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return True  # unreadable: let the interpreter say so


# --- the child ----------------------------------------------------------------------------------


def child_of(script: Script, argv: Sequence[str]) -> Callable[[], int]:
    """What the forked child runs (``krmlib.packages.run_program(..., child=...)`` forks it, set up
    as the process would be: session, working folder, pipes on fds 0, 1 and 2): the interpreter's
    own state made fresh, then ``script`` as ``__main__``; it returns the exit status."""
    _warm()

    def run() -> int:  # pragma: no cover - runs in the forked child
        gc.freeze()  # the parent's objects are not collected (nor finalized) here
        _KEPT.append(sys.modules["__main__"])
        _reset_signals()
        _standard_streams()
        sys.orig_argv = list(argv)
        return contextvars.Context().run(_run_main, script)

    return run


# What a krmlib function imports when it runs (``krmlib.run``) and the preparer does not: imported
# once here, so each child has it already (the child would import the same modules).
_WARM_MODULES = ("krmlib._io.runner", "krmlib._io.args", "runpy", "pkgutil")


@functools.cache
def _warm() -> None:
    for name in _WARM_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _reset_signals() -> None:
    """Signal handlers as a freshly started interpreter has them: handlers this process set are
    back to the default, SIGINT raises KeyboardInterrupt (unless ignored), SIGPIPE and SIGXFSZ
    are ignored."""
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)
    for number in signal.valid_signals():
        if number in (signal.SIGKILL, signal.SIGSTOP):
            continue
        with contextlib.suppress(ValueError, OSError, RuntimeError):
            if callable(signal.getsignal(number)):
                signal.signal(number, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


def _standard_streams() -> None:
    """sys.stdin, sys.stdout and sys.stderr on fds 0, 1 and 2, made as the interpreter makes them
    (its encoding and error handlers; stderr line-buffered; ``PYTHONUNBUFFERED`` honoured). The
    parent's stream objects stay referenced: they are never flushed here."""
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    kept = [sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__]
    made = []
    for fd, name, like in (
        (0, "<stdin>", sys.__stdin__),
        (1, "<stdout>", sys.__stdout__),
        (2, "<stderr>", sys.__stderr__),
    ):
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        raw.name = name
        buffer: io.BufferedIOBase | io.FileIO
        if fd == 0:
            buffer = io.BufferedReader(raw)
        elif unbuffered:
            buffer = raw
        else:
            buffer = io.BufferedWriter(raw)
        encoding = getattr(like, "encoding", None) or "utf-8"
        errors = getattr(like, "errors", None) or ("backslashreplace" if fd == 2 else "strict")
        stream = io.TextIOWrapper(
            buffer,
            encoding=encoding,
            errors=errors,
            newline="\n",
            line_buffering=fd == 2 and not unbuffered,
            write_through=unbuffered and fd != 0,
        )
        stream.mode = "r" if fd == 0 else "w"  # type: ignore[misc]
        made.append(stream)
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made  # type: ignore[misc]
    _KEPT.extend(kept)


_KEPT: list[object] = []


def _run_main(script: Script) -> int:  # pragma: no cover - runs in the forked child
    """``python SCRIPT ARGS`` from here on (``runpy.run_path``): the exit status."""
    import runpy

    path = os.path.abspath(script.path)
    try:
        os.close(os.open(path, os.O_RDONLY))
    except OSError as exc:
        sys.stderr.write(
            f"{sys.executable}: can't open file {path!r}: [Errno {exc.errno}] {exc.strerror}\n"
        )
        return _finish(2)
    sys.argv = [script.path, *script.args]
    if not sys.flags.safe_path:
        sys.path[:1] = [os.path.dirname(os.path.realpath(path))]
    atexit._clear()  # the parent's exit handlers are not the script's
    code = 0
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = _exit_status(exc)
    except BaseException as exc:  # as the interpreter: the traceback on stderr, status 1
        ours = (__file__, runpy.run_path.__code__.co_filename)  # runpy may be frozen
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in ours:
            tb = tb.tb_next  # the script's frames only, as the interpreter shows them
        sys.excepthook(type(exc), exc.with_traceback(tb), tb)
        if isinstance(exc, KeyboardInterrupt):
            _finish(1)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)  # as the interpreter: killed by SIGINT
        code = 1
    return _finish(code)


def _exit_status(exc: SystemExit) -> int:
    """``sys.exit(code)`` as the interpreter ends with it: None 0, an int as is, anything else
    printed on stderr with status 1."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    with contextlib.suppress(Exception):
        sys.stderr.write(f"{exc.code}\n")
    return 1


def _finish(code: int) -> int:
    """What the interpreter does at exit: wait for threads, run exit handlers, flush the
    streams (a failed flush: status 120)."""
    shutdown: Callable[[], None] | None = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        with contextlib.suppress(Exception):
            shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            code = 120
    return code


__all__ = ["FORK_ENV", "Script", "child_of", "fork_enabled", "python_script", "same_interpreter"]
