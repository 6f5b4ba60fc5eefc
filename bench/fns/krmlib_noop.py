"""Reference function: krmlib reads the ResourceList and writes it back, touching nothing."""

import sys
from typing import Any

from krmlib import ResourceList, run


def process(rl: ResourceList, config: Any) -> None:
    """Nothing: the floor every function pays for reading and writing the package."""


if __name__ == "__main__":
    sys.exit(run(process, None, name="krmlib-noop", help_text=__doc__ or ""))
