"""Entry point of krmfn-preparer."""

import sys
from pathlib import Path

from krmlib import run

from .config import Config
from .loop import process


def main() -> int:
    return run(
        process,
        Config,
        name="krmfn-preparer",
        help_text=(Path(__file__).parent / "README.md").read_text,
    )


if __name__ == "__main__":
    sys.exit(main())
