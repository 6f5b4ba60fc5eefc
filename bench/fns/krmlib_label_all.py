"""Reference function: one label on every item that is not local config (applyset-style)."""

import sys
from typing import Any

from krmlib import ResourceList, is_local_config, run


def process(rl: ResourceList, config: Any) -> None:
    """Edit every applied item: the worst case for a function that touches the whole package."""
    for obj in rl.items.where_not(is_local_config):
        obj.labels["bench.krmfn.dev/part-of"] = "bench"


if __name__ == "__main__":
    sys.exit(run(process, None, name="krmlib-label-all", help_text=__doc__ or ""))
