"""Entry point of krmfn-interface-expander."""

import sys
from pathlib import Path

from krmlib import run

from .config import Config
from .expand import process


def _help() -> str:
    return (Path(__file__).parent / "README.md").read_text(encoding="utf-8")


def main() -> int:
    return run(process, Config, name="krmfn-interface-expander", help_text=_help)


if __name__ == "__main__":
    sys.exit(main())
