"""Entry point of krmfn-merger."""

from __future__ import annotations

import sys
from pathlib import Path

from krmlib import run


def _help() -> str:
    return (Path(__file__).parent / "README.md").read_text(encoding="utf-8")


def main() -> int:
    from .config import Config
    from .process import process

    return run(process, Config, name="krmfn-merger", help_text=_help)


if __name__ == "__main__":
    sys.exit(main())
