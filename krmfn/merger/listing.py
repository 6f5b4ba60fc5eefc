"""``krmfn deployments list ROOT``: the deployment packages of a tree, filtered (TKO's
``tko deployment list``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from krmfn.tko import (
    find_deployment,
    is_approved,
    is_deployment_package,
    is_prepared,
    metadata_of,
)
from krmfn.tko.patterns import id_pattern, value_pattern
from krmlib import KrmError, KubeObject, text_of
from krmlib.packages import kptfile_folders, read_package

from .listed import shown

USAGE = """usage: krmfn deployments list ROOT [--prepared | --unprepared]
         [--approved | --unapproved] [--template PATTERN] [--site PATTERN] [--parent ID]
         [--metadata K=PATTERN]... [--catalog DIR] [-o table|yaml|json]

Every deployment package under ROOT (a folder with a Kptfile that runs the preparer or holds
a deployment.nephio.org Deployment resource, as krmfn prepare-all finds them; the catalog,
ROOT/catalog unless --catalog says otherwise, and hidden folders are skipped), with its id
(folder relative to ROOT), template, site, parent, prepared and approved state and metadata
(the Deployment's spec.metadata, overridden by the package's metadata.nephio.org resources).
Filters combine: --template and --site take TKO's id patterns (`*` within one path segment,
`**` across `/` and `:`), --metadata a value pattern (`*` any text), --parent an exact parent
id. A package that cannot be read is an error on stderr (the others are listed; exit 1).
"""


class Row:
    """One deployment package as listed."""

    __slots__ = ("approved", "id", "metadata", "parent", "prepared", "site", "template")

    def __init__(
        self,
        id: str,
        template: str,
        site: str,
        parent: str,
        prepared: bool,
        approved: bool,
        metadata: dict[str, str],
    ) -> None:
        self.id = id
        self.template = template
        self.site = site
        self.parent = parent
        self.prepared = prepared
        self.approved = approved
        self.metadata = metadata

    def to_dict(self) -> dict[str, object]:
        """The row for ``-o json`` and ``-o yaml``, keys in column order."""
        return {
            "id": self.id,
            "template": self.template,
            "site": self.site,
            "parent": self.parent,
            "prepared": self.prepared,
            "approved": self.approved,
            "metadata": dict(self.metadata),
        }


def rows_under(root: Path, catalog: Path | None, errors: list[str] | None = None) -> list[Row]:
    """The deployment packages under ``root``; a package that cannot be read goes to
    ``errors`` (raised when no list is given)."""
    rows = []
    skip = catalog.resolve() if catalog is not None else None
    unlistable: list[tuple[Path, str]] = []
    folders = kptfile_folders(root, unlistable=unlistable)  # the tree rules: no links or hidden
    for where, why in unlistable:  # never left out in silence
        named = where.relative_to(root).as_posix() if where != root else "."
        if errors is None:
            raise KrmError(f"{named}: cannot list the folder: {why}")
        errors.append(f"{named}: cannot list the folder: {why}")
    for folder in folders:
        rel = folder.relative_to(root)
        if skip is not None and folder.resolve().is_relative_to(skip):
            continue
        try:
            objects = read_package(folder, subpackages=False, tree=True)
            if not is_deployment_package(objects):
                continue
        except KrmError as exc:
            if errors is None:
                raise
            errors.append(f"{rel.as_posix() or '.'}: {exc}")
            continue
        deployment = find_deployment(objects)
        spec = (deployment.get("spec") if deployment is not None else None) or {}
        spec = spec if isinstance(spec, dict) else {}
        own_metadata = spec.get("metadata") if isinstance(spec.get("metadata"), dict) else {}
        metadata = {
            str(k): _written(deployment, ("spec", "metadata", str(k)), v)
            for k, v in (own_metadata or {}).items()
        }
        metadata.update(metadata_of(objects))
        rows.append(
            Row(
                id=rel.as_posix() or ".",
                template=_written(deployment, ("spec", "templateId"), spec.get("templateId")),
                site=_written(deployment, ("spec", "siteId"), spec.get("siteId")),
                parent=_written(
                    deployment, ("spec", "parentDeploymentId"), spec.get("parentDeploymentId")
                ),
                prepared=deployment is not None and is_prepared(deployment),
                approved=deployment is not None and is_approved(deployment),
                metadata=dict(sorted(metadata.items())),
            )
        )
    return rows


def _written(obj: KubeObject | None, path: tuple[str, ...], value: object) -> str:
    """A listed field as written (``templateId: 0123`` is ``0123``), never a Python repr."""
    if obj is not None and isinstance(value, int | float) and not isinstance(value, bool):
        return text_of(obj, path) or shown(value)
    return shown(value)


def selected(rows: Sequence[Row], opts: argparse.Namespace, wanted: Mapping[str, str]) -> list[Row]:
    out = []
    for row in rows:
        if opts.prepared is not None and row.prepared != opts.prepared:
            continue
        if opts.approved is not None and row.approved != opts.approved:
            continue
        if opts.template and not id_pattern(opts.template).fullmatch(row.template):
            continue
        if opts.site and not id_pattern(opts.site).fullmatch(row.site):
            continue
        if opts.parent is not None and row.parent != opts.parent:
            continue
        if any(
            key not in row.metadata or not value_pattern(p).fullmatch(row.metadata[key])
            for key, p in wanted.items()
        ):
            continue
        out.append(row)
    return out


def write_table(rows: Sequence[Row]) -> None:
    header = ("ID", "TEMPLATE", "SITE", "PARENT", "PREPARED", "APPROVED")
    cells = [
        (
            r.id,
            r.template or "-",
            r.site or "-",
            r.parent or "-",
            "yes" if r.prepared else "no",
            "yes" if r.approved else "no",
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]
    for line in [header, *cells]:
        sys.stdout.write("  ".join(c.ljust(widths[i]) for i, c in enumerate(line)).rstrip() + "\n")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="krmfn deployments list", add_help=False)
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("root", nargs="?")
    parser.add_argument("--prepared", dest="prepared", action="store_const", const=True)
    parser.add_argument("--unprepared", dest="prepared", action="store_const", const=False)
    parser.add_argument("--approved", dest="approved", action="store_const", const=True)
    parser.add_argument("--unapproved", dest="approved", action="store_const", const=False)
    parser.add_argument("--template")
    parser.add_argument("--site")
    parser.add_argument("--parent")
    parser.add_argument("--metadata", action="append", default=[])
    parser.add_argument("--catalog")
    parser.add_argument("-o", "--output", choices=("table", "yaml", "json"), default="table")
    return parser


def main(argv: list[str]) -> int:
    args = list(argv)
    if args[:1] == ["deployments"]:
        args = args[1:]
    if args[:1] == ["list"]:
        args = args[1:]
    elif args and not args[0].startswith("-"):
        sys.stderr.write(f"krmfn deployments: unknown subcommand {args[0]!r}\n{USAGE}")
        return 2
    try:
        opts = _parser().parse_args(args)
    except SystemExit:
        return 2
    if opts.help or not opts.root:
        sys.stdout.write(USAGE)
        return 0 if opts.help else 2
    wanted: dict[str, str] = {}
    for pair in opts.metadata:
        key, sep, value = str(pair).partition("=")
        if not sep or not key:
            sys.stderr.write(f"krmfn deployments list: --metadata {pair!r}: expected K=PATTERN\n")
            return 2
        wanted[key] = value
    root = Path(opts.root)
    if not root.is_dir():
        sys.stderr.write(f"krmfn deployments list: {opts.root} is not a folder\n")
        return 2
    catalog = Path(opts.catalog) if opts.catalog else root / "catalog"
    errors: list[str] = []
    try:
        found = rows_under(root, catalog if catalog.is_dir() else None, errors)
    except (KrmError, OSError) as exc:
        sys.stderr.write(f"krmfn deployments list: error: {exc}\n")
        return 1
    rows = selected(found, opts, wanted)
    for error in errors:
        sys.stderr.write(f"krmfn deployments list: error: {error}\n")
    if opts.output == "table":
        write_table(rows)
    elif opts.output == "json":
        sys.stdout.write(json.dumps([r.to_dict() for r in rows], indent=2) + "\n")
    else:
        sys.stdout.write(yaml.safe_dump([r.to_dict() for r in rows], sort_keys=False))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
