#!/usr/bin/env python3
"""Preparation plugin for free5gc SMF: a KRM function (run by krmfn-preparer with its Python).

The functionConfig is the preparer's ConfigMap: the target's apiVersion/kind/name plus the
configured properties (here maxSessions). It fills the SMF's defaults and writes its status.
"""

import sys

from krmlib import KrmError, ResourceList, run


def process(rl: ResourceList, config: None) -> None:
    data = rl.function_config.get("data", {}) if rl.function_config else {}
    smf = rl.items.find(data.get("apiVersion"), data.get("kind", "SMF"), data.get("name", ""))
    if smf is None:
        raise KrmError(f"SMF {data.get('name')!r} not found")
    sessions = int(data.get("maxSessions") or 1000)
    smf.set("spec.maxSessions", sessions)
    smf.set("spec.dnn", smf.get("spec.dnn", "internet"))
    smf.set("status.sessionCapacity", sessions)


if __name__ == "__main__":
    sys.exit(run(process, None, name="oran-cu-smf-plugin"))
