"""The merge inputs of the function: inline resources and files."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from krmlib import ConfigError, FunctionPackage, Items, KrmError, KubeObject, read_roots
from krmlib.packages import check_readable, read_objects

from .config import Config

if TYPE_CHECKING:  # pathlib only when the config names files
    from pathlib import Path


class Inputs:
    """The merge inputs: a slotted class, not a NamedTuple, whose postponed annotations would
    make ``typing.ForwardRef``s, compiled at start-up (issue 37)."""

    __slots__ = ("inline", "objects", "package_files")

    def __init__(
        self, objects: list[KubeObject], inline: int = 0, package_files: tuple[str, ...] = ()
    ) -> None:
        self.objects = objects
        self.inline = inline  # the first ``inline`` objects come from spec.resources
        # Package files that hold merge inputs: their items are sources, not merge targets.
        self.package_files = package_files

    def locate(self, exc: KrmError, function_config: KubeObject | None) -> KrmError:
        """An error about an inline input, told as an error of the config that holds it."""
        index = next((i for i, o in enumerate(self.objects) if o is exc.obj), None)
        if index is None or index >= self.inline:
            return exc
        field = f"spec.resources[{index}]" + (f".{exc.field}" if exc.field else "")
        return ConfigError(exc.message, obj=function_config, field=field)

    def is_source(self, obj: KubeObject) -> bool:
        path = obj.path
        if path is None:
            return False
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.package_files)


def read_inputs(config: Config, items: Items, function_config: KubeObject | None) -> Inputs:
    objects = [_inline(data, index, function_config) for index, data in enumerate(config.resources)]
    if not config.files:
        return Inputs(objects, len(objects))
    from pathlib import Path

    base, where, folder = package_folder(items)
    package_files: list[str] = []
    for index, name in enumerate(config.files):
        path = base / name
        field = config.field_path(f"files[{index}]")
        if not path.exists():
            raise ConfigError(
                f"merge file {name!r} not found in {where}; files work in exec mode "
                "only, an image cannot see the host: use spec.resources there",
                obj=function_config,
                field=field,
            )
        try:
            check_readable(path, read_roots(folder), "merge file")
            found = read_objects(
                path, tree=True
            )  # the path as named: a link is refused, not followed
        except KrmError as exc:
            raise ConfigError(
                f"merge file {name!r}: {exc}", obj=function_config, field=field
            ) from None
        if not found:
            raise ConfigError(
                f"merge file {name!r} holds no resources", obj=function_config, field=field
            )
        objects.extend(found)
        inside = os.path.relpath(path.resolve(), base.resolve())
        if not inside.startswith(".."):
            package_files.append(Path(inside).as_posix())
    return Inputs(objects, len(config.resources), tuple(package_files))


def package_folder(items: Items) -> tuple[Path, str, Path | None]:
    """The folder of the package being rendered (kpt names it in exec mode), else the current
    folder (and the package folder alone, None when kpt named none)."""
    from pathlib import Path

    folder = FunctionPackage.of(items).folder
    if folder:
        return Path(folder), "the package folder", Path(folder)
    return Path.cwd(), "the current folder (no item carries kpt's package-path)", None


def _inline(data: dict[str, object], index: int, function_config: KubeObject | None) -> KubeObject:
    obj = KubeObject.from_dict(data)
    try:
        obj.validate()
    except KrmError as exc:
        raise ConfigError(
            f"spec.resources[{index}]: {exc.message}",
            obj=function_config,
            field=f"spec.resources[{index}].{exc.field}" if exc.field else None,
        ) from None
    return obj
