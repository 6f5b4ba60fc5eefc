"""``krmfn prepare-all``: the TKO preparer loop over every deployment package of a tree."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from krmfn.tko import find_deployment, is_prepared

from krmlib import Items, KrmError, KubeObject, ResourceList, parse_config

from .config import Config
from .executors import containers_allowed
from .loop import process
from .package import PackageView
from .tree import LoadedPackage, packages_under, preparer_step

USAGE = """usage: krmfn prepare-all ROOT [--catalog DIR] [--max-iterations N]

Prepare every deployment package under ROOT (a folder whose Kptfile pipeline runs
krmfn-preparer), children before parents, in passes until no package changes. The catalog
(default ROOT/catalog) is skipped and overrides each package's spec.catalog. Prints a table of
deployments (id, template, site, prepared); exit code 1 when any stays unprepared or fails.
"""


@dataclass
class Outcome:
    changed: list[str]
    errors: list[str]


def package_config(pkg: LoadedPackage, catalog: Path | None, max_iterations: int | None) -> Config:
    """The preparer's config from the package's Kptfile step, with the command's overrides."""
    kptfile = pkg.kptfile()
    step = preparer_step(kptfile) if kptfile is not None else None
    source: KubeObject | None = None
    if step is not None and step.get("configPath"):
        path = pkg.folder / str(step["configPath"])
        try:
            source = ResourceList.parse(path.read_text(encoding="utf-8")).items[0]
        except (OSError, IndexError) as exc:
            raise KrmError(f"{path}: cannot read the preparer config: {exc}") from None
    elif step is not None and isinstance(step.get("configMap"), dict):
        source = KubeObject.from_dict(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "function-input"},
                "data": {str(k): str(v) for k, v in step["configMap"].items()},
            }
        )
    config = parse_config(Config, source)
    update: dict[str, object] = {}
    if catalog is not None:
        update["catalog"] = str(catalog)
    if max_iterations is not None:
        update["max_iterations"] = max_iterations
    return config.model_copy(update=update) if update else config


def prepare_package(folder: Path, catalog: Path | None, max_iterations: int | None) -> Outcome:
    """Run the preparer in-process on one package and write back what changed."""
    try:
        pkg = LoadedPackage.read(folder)
        config = package_config(pkg, catalog, max_iterations)
        rl = ResourceList(items=Items(pkg.items))
        with containers_allowed():
            process(rl, config)
    except KrmError as exc:
        return Outcome([], [str(exc)])
    errors = [str(r) for r in rl.results.sorted() if r.severity == "error"]
    if errors:
        return Outcome([], errors)
    return Outcome(pkg.write(list(rl.items)), [])


def deployment_row(root: Path, folder: Path) -> tuple[str, str, str, str]:
    pkg = LoadedPackage.read(folder)
    own = PackageView.of(pkg.items).own(Items(pkg.items))
    deployment = find_deployment(own)
    spec = deployment.get("spec", {}) if deployment is not None else {}
    spec = spec if isinstance(spec, dict) else {}
    prepared = "yes" if deployment is not None and is_prepared(deployment) else "no"
    rel = folder.relative_to(root).as_posix() if folder != root else "."
    return rel, str(spec.get("templateId", "-")), str(spec.get("siteId", "-")), prepared


def print_table(rows: list[tuple[str, str, str, str]]) -> None:
    header = ("ID", "TEMPLATE", "SITE", "PREPARED")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        line = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row))
        sys.stdout.write(line.rstrip() + "\n")


def prepare_all(root: Path, catalog: Path | None, max_iterations: int | None) -> int:
    skip = catalog.resolve() if catalog is not None else None
    cap = max_iterations or 16
    failed: dict[Path, list[str]] = {}
    for number in range(1, cap + 1):
        packages = [p for p in packages_under(root, skip) if _is_deployment_package(p)]
        changed = 0
        failed = {}
        for index, folder in enumerate(packages, 1):
            outcome = prepare_package(folder, catalog, max_iterations)
            rel = folder.relative_to(root).as_posix() if folder != root else "."
            if outcome.errors:
                failed[folder] = outcome.errors
            if outcome.changed:
                changed += 1
                sys.stderr.write(
                    f"pass {number} [{index}/{len(packages)}] {rel}: "
                    f"{len(outcome.changed)} file(s) changed\n"
                )
        sys.stderr.write(f"pass {number}: {len(packages)} package(s), {changed} changed\n")
        if changed == 0:
            break
    else:
        sys.stderr.write(f"prepare-all: still changing after {cap} passes\n")
    for folder, errors in failed.items():
        for error in errors:
            sys.stderr.write(f"{folder.relative_to(root).as_posix()}: {error}\n")
    packages = [p for p in packages_under(root, skip) if _is_deployment_package(p)]
    rows = sorted(deployment_row(root, p) for p in packages)
    print_table(rows)
    return 1 if failed or any(r[3] != "yes" for r in rows) else 0


def _is_deployment_package(folder: Path) -> bool:
    try:
        kptfile = KubeObject.from_yaml((folder / "Kptfile").read_text(encoding="utf-8"))
        return preparer_step(kptfile) is not None
    except (OSError, KrmError):
        return False


def main(argv: list[str]) -> int:
    args = list(argv)
    if args and args[0] == "prepare-all":
        args = args[1:]
    parser = argparse.ArgumentParser(prog="krmfn prepare-all", add_help=False)
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("--catalog")
    parser.add_argument("--max-iterations", type=int, dest="max_iterations")
    parser.add_argument("root", nargs="?")
    try:
        opts = parser.parse_args(args)
    except SystemExit:
        return 2
    if opts.help or not opts.root:
        sys.stdout.write(USAGE)
        return 0 if opts.help else 2
    root = Path(opts.root).resolve()
    if not root.is_dir():
        sys.stderr.write(f"krmfn prepare-all: {opts.root} is not a folder\n")
        return 2
    if opts.max_iterations is not None and opts.max_iterations < 1:
        sys.stderr.write("krmfn prepare-all: --max-iterations must be at least 1\n")
        return 2
    catalog = Path(opts.catalog).resolve() if opts.catalog else root / "catalog"
    return prepare_all(root, catalog if catalog.is_dir() else None, opts.max_iterations)
