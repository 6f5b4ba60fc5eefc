"""A plugin that records its functionConfig in the target and adds a ConfigMap."""

import sys

from krmlib import KubeObject, ResourceList, run


def process(rl: ResourceList, config: None) -> None:
    data = rl.function_config.get("data", {}) if rl.function_config else {}
    target = rl.items.find(data["apiVersion"], data["kind"], data["name"])
    assert target is not None
    target.set("status.config", dict(sorted(data.items())))
    target.set("status.args", sys.argv[1:])
    extra = KubeObject.from_dict(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"{target.name}-size"},
            "data": {"size": data["size"]},
        }
    )
    extra.set_path("widget-size.yaml")
    rl.items.append(extra, after=target)


if __name__ == "__main__":
    sys.exit(run(process, None, name="exec-plugin", argv=[]))
