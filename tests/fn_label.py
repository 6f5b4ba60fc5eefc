"""A krmlib function that adds one label to the item named in argv[1] (round-trip tests run it)."""

import sys

from krmlib import ResourceList, run

TARGET = sys.argv[1] if len(sys.argv) > 1 else ""


def process(rl: ResourceList, config: None) -> None:
    for obj in rl.items.where(name=TARGET):
        obj.labels["krmfn.dev/touched"] = "yes"


if __name__ == "__main__":
    sys.exit(run(process, None, name="label", argv=[]))
