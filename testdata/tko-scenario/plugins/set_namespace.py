#!/usr/bin/env python3
"""Stands in for gcr.io/kpt-fn/set-namespace in the scenario where no container runtime is
at hand (the image executor itself is tested where one is): a KRM function that sets
``metadata.namespace`` to the ``namespace`` property on the workload resources and names the
``v1 Namespace`` bookmarked ``nephio.org/bookmark: namespace``."""

import sys

from krmlib import ResourceList, run


def process(rl: ResourceList, config: None) -> None:
    data = rl.function_config.get("data", {}) if rl.function_config else {}
    namespace = data["namespace"]
    for obj in rl.items:
        if obj.is_local_config or obj.group.endswith("nephio.org") or obj.group == "kpt.dev":
            continue
        if obj.is_kind("v1", "Namespace"):
            if obj.annotations.get("nephio.org/bookmark") == "namespace":
                obj.set("metadata.name", namespace)
            continue
        obj.set("metadata.namespace", namespace)


if __name__ == "__main__":
    sys.exit(run(process, None, name="set-namespace", argv=[]))
