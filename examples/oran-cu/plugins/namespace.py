#!/usr/bin/env python3
"""Preparation plugin for workload Namespace requirements: a KRM function.

Adds the core v1 Namespace the requirement asks for (same name, its spec.labels) next to it,
or updates the labels of the one already there. The preparer then marks the requirement prepared.
"""

import sys

from krmlib import KrmError, KubeObject, ResourceList, run


def process(rl: ResourceList, config: None) -> None:
    data = rl.function_config.get("data", {}) if rl.function_config else {}
    want = rl.items.find(data.get("apiVersion"), "Namespace", data.get("name", ""))
    if want is None:
        raise KrmError(f"Namespace requirement {data.get('name')!r} not found")
    labels = want.get("spec.labels", {}) or {}
    namespace = rl.items.find("v1", "Namespace", want.name)
    if namespace is None:
        namespace = KubeObject.from_dict(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": want.name}}
        )
        folder = (want.path or "").rpartition("/")[0]
        namespace.set_path(f"{folder}/namespace.yaml" if folder else "namespace.yaml")
        rl.items.append(namespace, after=want)
    for key, value in labels.items():
        namespace.labels[key] = str(value)


if __name__ == "__main__":
    sys.exit(run(process, None, name="oran-cu-namespace-plugin"))
