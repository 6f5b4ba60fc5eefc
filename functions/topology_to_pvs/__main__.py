"""Entry point of krmfn-topology-to-pvs."""

import sys
from pathlib import Path

from krmlib import run

from .config import Config
from .process import process


def _help() -> str:
    return (Path(__file__).parent / "README.md").read_text(encoding="utf-8")


def main() -> int:
    return run(process, Config, name="krmfn-topology-to-pvs", help_text=_help)


if __name__ == "__main__":
    sys.exit(main())
