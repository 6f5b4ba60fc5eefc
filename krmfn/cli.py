"""The umbrella command ``krmfn``: runs a function by name, and the multi-package commands."""

from __future__ import annotations

import contextlib
import difflib
import importlib
import sys

from . import __version__
from .registry import BY_NAME, FUNCTIONS

COMMANDS = {
    "prepare-all": (
        "krmfn.preparer.prepare_all",
        "ROOT [--catalog DIR] [--jobs N] [--check] [-o table|json|yaml] [-q|-v]",
    ),
    "deployment": (
        "krmfn.merger.commands",
        "create TEMPLATE [--catalog DIR] [--merge FILE...] ... OUT_DIR | approve DIR...",
    ),
    "specialize": (
        "krmfn.ipam_allocator.specialize",
        "ROOT [--network DIR] [--ledger FILE] [--check] [-o table|json] [-q]",
    ),
    "deployments": (
        "krmfn.merger.listing",
        "list ROOT [--prepared|--unprepared] [--template P] ... [-o table|yaml|json]",
    ),
}


def usage() -> str:
    functions = "".join(f"  {f.name:<20} {f.summary}\n" for f in FUNCTIONS)
    commands = "".join(f"  {name} {args}\n" for name, (_, args) in COMMANDS.items())
    return (
        "usage: krmfn [-h] [--version] COMMAND [ARGS...]\n"
        "       krmfn help COMMAND\n"
        "\n"
        "Functions (each also installed as krmfn-<name>; stdin/stdout ResourceList filters):\n"
        f"{functions}"
        "\n"
        "Commands over package trees:\n"
        f"{commands}"
        "\n"
        "Run `krmfn help COMMAND` (or `krmfn COMMAND --help`) for each.\n"
    )


def _quiet_stdout() -> None:
    """stdout becomes /dev/null: what is left in its buffer goes nowhere, and the flush at exit
    does not fail a second time."""
    import os

    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _flushed(command: str) -> bool:
    """stdout written out; when it refuses (a full disk, ``> /dev/full``): one message on
    stderr, no traceback at exit."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        _quiet_stdout()
        sys.stderr.write(f"krmfn {command}: error: cannot write the output: {exc.strerror}\n")
        return False
    return True


class Stopped(BaseException):
    """SIGINT, SIGTERM or SIGHUP arrived: the command stops (not an ``Exception``: no handler
    of a package's errors takes it for one)."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


_STOPPING = ("SIGINT", "SIGTERM", "SIGHUP")


def _stop_on_signals() -> None:
    """SIGINT, SIGTERM and SIGHUP raise :class:`Stopped` in the main thread, once: the command
    stops its workers and plugins (each file is old or new) and exits 128 + the signal. A
    signal ignored when the command started (``nohup``) stays ignored."""
    import signal

    def stop(number: int, _frame: object) -> None:
        for name in _STOPPING:  # the stop itself is never interrupted by a second signal
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        raise Stopped(number)

    for name in _STOPPING:
        number = getattr(signal, name)
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, stop)


def _standard_fds() -> None:
    """fds 0, 1 and 2 open (on /dev/null when the command started without one), so that no file
    or lock the command opens takes their number, and stderr is a stream to write to."""
    import os

    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)  # the lowest free: fd
    if sys.stderr is None:
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")  # noqa: SIM115
    if sys.stdout is None:
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(usage())
        return 0
    if args[0] == "--version":
        sys.stdout.write(f"krmfn {__version__}\n")
        return 0
    if args[0] == "help":
        if len(args) == 1:
            sys.stdout.write(usage())
            return 0
        args = [args[1], "--help"]
    command, rest = args[0], args[1:]
    if command in BY_NAME:
        return BY_NAME[command].main(rest)
    if command in COMMANDS:
        _standard_fds()
        _stop_on_signals()
        try:
            module = importlib.import_module(COMMANDS[command][0])
            code = int(module.main([command, *rest]))
        except Stopped as exc:
            import signal

            _quiet_stdout()
            name = signal.Signals(exc.number).name
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(
                    f"krmfn {command}: stopped by {name}; each file is its old or its new "
                    "content; run the command again to finish\n"
                )
            return 128 + exc.number
        except OSError as exc:  # an I/O error (stdout refused mid-way): a message, exit 1
            _quiet_stdout()
            where = f"{exc.filename}: " if exc.filename else "cannot write the output: "
            sys.stderr.write(f"krmfn {command}: error: {where}{exc.strerror or exc}\n")
            return 1
        return code if _flushed(command) else 1
    known = [*BY_NAME, *COMMANDS, "help"]
    close = difflib.get_close_matches(command, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    sys.stderr.write(f"krmfn: unknown command {command!r}{hint}\n\n{usage()}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
