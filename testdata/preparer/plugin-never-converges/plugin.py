"""A plugin that never finishes: bumps a counter and leaves its target unprepared."""

import sys

from krmlib import ResourceList, run


def process(rl: ResourceList, config: None) -> None:
    data = rl.function_config.get("data", {}) if rl.function_config else {}
    target = rl.items.find(data["apiVersion"], data["kind"], data["name"])
    assert target is not None
    target.set("status.attempts", int(target.get("status.attempts", 0)) + 1)
    target.annotations["nephio.org/prepared"] = "false"


if __name__ == "__main__":
    sys.exit(run(process, None, name="never-converges"))
