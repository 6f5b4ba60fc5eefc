"""The command line every function takes (private: the runner's argument parsing).

Hand-written rather than argparse: it runs at every start-up, and a mistyped flag gets a
"did you mean" like a mistyped config key.
"""

from __future__ import annotations

import sys

USAGE = """\
usage: {name} [-h] [--version] [--fn-config FILE] [--output {{stream,resourcelist}}] [PATH ...]

A kpt KRM function: reads a ResourceList on stdin and writes it on stdout (kpt fn eval --exec,
kpt fn render). Given PATHs or --fn-config, it reads YAML files and folders instead and prints
a YAML stream, with the results on stderr.

options:
  PATH                  YAML files or folders ('-' is stdin)
  --fn-config FILE      the functionConfig ({config})
  --output FORMAT       stream (default with PATHs) or resourcelist
  -h, --help            this help, then the function's documentation
  --doc                 the function's documentation as one JSON object (name, version,
                        summary, config apiVersion and kind, usage, doc), as go/fn's --doc
  --version             the version of the function

environment:
  KRMLIB_DEBUG=1        on an internal error, also the whole traceback on stderr
"""

FLAGS = ("--help", "--doc", "--version", "--fn-config", "--output")
OUTPUTS = ("stream", "resourcelist")


class Args:
    __slots__ = ("doc", "fn_config", "help", "output", "paths", "version")

    def __init__(
        self,
        help: bool = False,
        version: bool = False,
        fn_config: str | None = None,
        output: str | None = None,
        paths: list[str] | None = None,
    ) -> None:
        self.help = help
        self.version = version
        self.fn_config = fn_config
        self.output = output
        self.paths: list[str] = [] if paths is None else paths
        self.doc = False


def parse_args(name: str, argv: list[str]) -> Args | int:
    """The parsed arguments, or the exit code (2) after a message on stderr."""
    args = Args()
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        flag, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg in ("-h", "--help"):
            args.help = True
        elif arg == "--version":
            args.version = True
        elif arg == "--doc":
            args.doc = True
        elif flag in ("--fn-config", "--output"):
            if not eq and not rest:
                return _error(name, f"{flag} needs a value")
            value = inline if eq else rest.pop(0)
            if flag == "--output":
                if value not in OUTPUTS:
                    return _error(name, f"--output {value!r}: expected stream or resourcelist")
                args.output = value
            else:
                args.fn_config = value
        elif arg == "--":
            args.paths.extend(rest)
            break
        elif arg.startswith("-") and arg != "-":
            import difflib  # only for a mistyped flag

            close = difflib.get_close_matches(flag, FLAGS, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return _error(name, f"unknown argument {arg}{hint}")
        else:
            args.paths.append(arg)
    return args


def _error(name: str, message: str) -> int:
    sys.stderr.write(f"{name}: {message} (see --help)\n")
    return 2
