"""Reference function: reads every Interface's spec (as interface-expander must), edits nothing."""

import sys
from typing import Any

from krmlib import ResourceList, run


def process(rl: ResourceList, config: Any) -> None:
    """Read the fields interface-expander reads; report how many Interfaces there are."""
    count = 0
    for obj in rl.items.where(api_version="req.nephio.org/v1alpha1", kind="Interface"):
        obj.get("spec.networkInstance.name")
        obj.get("spec.cniType")
        count += 1
    rl.results.info(f"{count} Interfaces read")


if __name__ == "__main__":
    sys.exit(run(process, None, name="krmlib-read-interfaces", help_text=__doc__ or ""))
