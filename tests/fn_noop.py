"""A krmlib function that reads every item and changes nothing (round-trip tests run it)."""

import sys

from krmlib import ResourceList, run


def process(rl: ResourceList, config: None) -> None:
    for obj in rl.items:
        obj.get("metadata")


if __name__ == "__main__":
    sys.exit(run(process, None, name="noop"))
