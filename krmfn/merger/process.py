"""``process``: merge the configured inputs into the package's items."""

from __future__ import annotations

from krmfn.tko.merge import merge_planned, plan
from krmlib import Items, KrmError, ResourceList

from .config import Config
from .inputs import Inputs, read_inputs


def process(rl: ResourceList, config: Config) -> None:
    inputs = read_inputs(config, rl.items, rl.function_config)
    if not inputs.objects:
        rl.results.warning(
            "nothing to merge: spec.resources and spec.files are empty", rl.function_config
        )
        return
    try:
        _merge(rl, inputs, config.from_package)
    except KrmError as exc:
        raise inputs.locate(exc, rl.function_config) from None


def _merge(rl: ResourceList, inputs: Inputs, from_package: bool) -> None:
    planned = plan(inputs.objects, from_package)
    if not inputs.package_files:
        merge_planned(rl.items, planned, from_package=from_package, results=rl.results, file_dir="")
        return
    # Inputs read from files of this package are not targets: merge into the other items.
    originals = list(rl.items)
    targets = Items(obj for obj in originals if not inputs.is_source(obj))
    count = len(targets)
    merge_planned(targets, planned, from_package=from_package, results=rl.results, file_dir="")
    merged = list(targets)
    replaced = iter(merged[:count])
    objects = [obj if inputs.is_source(obj) else next(replaced) for obj in originals]
    rl.items.replace_all([*objects, *merged[count:]])
