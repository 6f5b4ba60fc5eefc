"""The ``krmlib`` command (private: its console script is the interface).

``krmlib new NAME [DIR]`` writes a new function project (``krmlib._io.scaffold``);
``krmlib --version`` prints the installed krmlib's version.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

USAGE = """\
usage: krmlib [-h] [--version] COMMAND ...

krmlib: a comment- and format-preserving Python SDK for kpt KRM functions.

commands:
  new NAME [DIR]   create a function project NAME in DIR (default: ./NAME): a console
                   script NAME, its process and typed config, a README that is its --help,
                   golden test cases and their pytest file, a Dockerfile, a kpt package
                   example; then `pip install -e DIR` and `pytest DIR`

options:
  -h, --help       this help
  --version        the version of krmlib
"""


def version() -> str:
    """The installed distribution's version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("krmlib")
    except PackageNotFoundError:  # run from a source tree without installing
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    if args[0] == "--version":
        sys.stdout.write(f"krmlib {version()}\n")
        return 0
    if args[0] == "new":
        return _new(args[1:])
    import difflib

    close = difflib.get_close_matches(args[0], ["new", "--version", "--help"], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    sys.stderr.write(f"krmlib: unknown command {args[0]!r}{hint} (see --help)\n")
    return 2


def _new(args: list[str]) -> int:
    if any(a in ("-h", "--help") for a in args):
        sys.stdout.write(USAGE)
        return 0
    if not 1 <= len(args) <= 2 or any(a.startswith("-") for a in args):
        sys.stderr.write("krmlib: usage: krmlib new NAME [DIR] (see --help)\n")
        return 2
    from pathlib import Path

    from krmlib._base.errors import KrmError

    from .scaffold import ScaffoldError, new_project

    name = args[0]
    target = Path(args[1]) if len(args) == 2 else Path(name)
    try:
        written = new_project(name, target, version())
    except (ScaffoldError, KrmError) as exc:
        sys.stderr.write(f"krmlib: {exc}\n")
        return 1
    sys.stdout.write(
        f"created {target}/ ({len(written)} files). Next:\n"
        f"  pip install -e {target}\n"
        f"  pytest {target}\n"
        f"  kpt fn eval {target}/example --exec {name}"
        f" --fn-config {target}/example/fn-config.yaml\n"
        f"  kpt fn render {target}/example --allow-exec\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
