"""``krmfn deployment create`` and ``krmfn deployment approve`` (TKO's deployment commands)."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from krmfn.tko import APPROVED, TRUE, find_deployment, is_approved, is_prepared
from krmlib import KrmError, KubeObject
from krmlib.packages import Package, make_folders, read_files, remove_leftovers, tree_lock

USAGE = """krmfn deployment create TEMPLATE [--catalog DIR] [--merge FILE...] [--stdin]
                               [--site ID] [--parent DIR] [--metadata K=V]...
                               [--prepared] [--approved] [--no-wait] [--no-lock] OUT_DIR
       krmfn deployment approve [--no-wait] [--no-lock] DIR..."""
DESCRIPTION = """create: a deployment package from a template plus merges (TKO's
`tko deployment create`). TEMPLATE is a template package folder, or a catalog id
(`demo/hello-world:v1.0.0`) looked up in --catalog (the Kptfile annotation catalog.nephio.org/id).
OUT_DIR becomes a copy of the template whose Kptfile is named after OUT_DIR (without the catalog
annotations), with the resources of every --merge file (or folder), then of --stdin (a YAML
stream or a ResourceList), merged in, in order (nephio.org/merge and nephio.org/rename apply;
nephio.org/prepare is kept as written), and a deployment.nephio.org/v1alpha1 Deployment
`deployment` with spec.templateId (the catalog id, else the template's own, else the folder's
name), spec.siteId (--site), spec.parentDeploymentId (the id of the --parent deployment
package), spec.metadata (--metadata), nephio.org/prepared and nephio.org/approved ("true" with
--prepared, --approved). An unknown template, site (when the catalog is known: --catalog, or
the one holding TEMPLATE) or parent is an error. OUT_DIR must not exist or be empty.

approve: mark prepared deployment packages nephio.org/approved: "true" (TKO's
`tko deployment approve`); an unprepared one is an error, an approved one is left as it is.

Both are crash-safe (docs/durability.md): the new package appears whole or not at all, the
Deployment's file is replaced atomically, and each takes the lock of the tree it writes (the
folder of OUT_DIR, the package approved): a second command waits with a message, or refuses
with --no-wait; where the file system refuses flock they refuse to write unless --no-lock says
so. An I/O error is one message naming the file, exit 1."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="krmfn deployment create", usage=USAGE, description=DESCRIPTION
    )
    parser.add_argument("paths", nargs="*", metavar="TEMPLATE OUT_DIR")
    parser.add_argument(
        "--merge",
        nargs="+",
        action="extend",
        default=[],
        metavar="FILE",
        help="YAML file or folder of resources to merge (repeatable, in order)",
    )
    parser.add_argument("--stdin", "-i", action="store_true", help="merge resources from stdin")
    parser.add_argument("--site", "-s", metavar="ID", help="spec.siteId of the Deployment")
    parser.add_argument("--catalog", metavar="DIR", help="the template and site catalog")
    parser.add_argument("--parent", metavar="DIR", help="the parent deployment package")
    parser.add_argument(
        "--metadata",
        "-m",
        action="append",
        default=[],
        metavar="K=V",
        help="deployment metadata (repeatable)",
    )
    parser.add_argument("--prepared", action="store_true", help="mark it prepared")
    parser.add_argument("--approved", action="store_true", help="mark it approved")
    parser.add_argument(
        "--no-wait", action="store_true", help="refuse when another command writes the tree"
    )
    parser.add_argument(
        "--no-lock", action="store_true", help="write unlocked where the file system refuses flock"
    )
    return parser


def _waiting(command: str, folder: Path) -> None:
    sys.stderr.write(
        f"krmfn deployment {command}: another krmfn command is writing {folder}; waiting for it "
        "(--no-wait refuses instead)\n"
    )
    sys.stderr.flush()


def main(argv: list[str]) -> int:
    args = list(argv)
    if args[:1] == ["deployment"]:
        args = args[1:]
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(f"usage: {USAGE}\n\n{DESCRIPTION}\n")
        return 0
    if args[0] == "approve":
        return approve_main(args[1:])
    if args[0] != "create":
        sys.stderr.write(f"krmfn deployment: unknown subcommand {args[0]!r}\nusage: {USAGE}\n")
        return 2
    return create_main(args[1:])


def create_main(args: list[str]) -> int:
    parser = _parser()
    opts = parser.parse_intermixed_args(args)
    paths: list[str] = list(opts.paths)
    merges: list[str] = list(opts.merge)
    if len(paths) == 1 and merges and args[-1] == merges[-1]:
        paths.append(merges.pop())  # `--merge a.yaml b.yaml OUT_DIR`: the last word is OUT_DIR
    if len(paths) != 2:
        parser.error("expected TEMPLATE and OUT_DIR")
    metadata: dict[str, str] = {}
    for pair in opts.metadata:
        key, sep, value = str(pair).partition("=")
        if not sep or not key:
            parser.error(f"--metadata {pair!r}: expected KEY=VALUE")
        metadata[key] = value
    out = Path(paths[1])
    parent = out.resolve().parent
    try:
        stdin = _read_stdin() if opts.stdin else []
        make_folders(parent)  # each new folder's parent fsynced
        # One writer per tree: the folder the new package goes in.
        waiting = partial(_waiting, "create", parent)
        with tree_lock(parent, wait=not opts.no_wait, on_wait=waiting, lock=not opts.no_lock):
            # What a killed create left: its holder removed, a published package finished.
            remove_leftovers(parent, recursive=False)
            if out.is_dir() and remove_leftovers(out):
                # A killed create had put the package in place: finished now, it is whole.
                sys.stdout.write(f"created {out} (finished what a killed run had put in place)\n")
                return 0
            _create(opts, paths, merges, metadata, stdin)
    except (KrmError, OSError) as exc:
        return _error("create", exc)
    sys.stdout.write(f"created {out}\n")
    return 0


def _error(command: str, exc: KrmError | OSError) -> int:
    if isinstance(exc, OSError):
        message = f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
    else:
        message = str(exc)
    sys.stderr.write(f"krmfn deployment {command}: error: {message}\n")
    return 1


def _create(
    opts: argparse.Namespace,
    paths: list[str],
    merges: list[str],
    metadata: dict[str, str],
    stdin: list[KubeObject],
) -> None:
    from .api import create_deployment

    create_deployment(
        paths[0],
        [Path(m) for m in merges],
        Path(paths[1]),
        site_id=opts.site,
        parent=Path(opts.parent) if opts.parent else None,
        metadata=metadata,
        prepared=opts.prepared,
        approved=opts.approved,
        catalog=Path(opts.catalog) if opts.catalog else None,
        merge_objects=stdin,
    )


def _read_stdin() -> list[KubeObject]:
    try:  # to its end, whatever the descriptor's flags (krmlib's reader of stdin)
        objects = read_files(["-"])
    except KrmError as exc:
        raise KrmError(f"--stdin: {exc}") from None
    if not objects:
        raise KrmError("--stdin: no resources on standard input")
    return objects


def approve(folder: Path) -> str:
    """Approve one prepared deployment package: ``approved``, ``already approved``; an
    unprepared package or a folder without a Deployment is an error."""
    if not (folder / "Kptfile").is_file():
        raise KrmError(f"{folder}: not a package folder")
    package = Package.read(folder, subpackages=False, tree=True)
    deployment = find_deployment(package.items)
    if deployment is None:
        raise KrmError(f"{folder}: no deployment.nephio.org Deployment resource")
    if not is_prepared(deployment):
        raise KrmError(f"{folder}: not prepared yet (only a prepared deployment is approved)")
    if is_approved(deployment):
        return "already approved"
    deployment.annotations[APPROVED] = TRUE
    package.write(package.items)  # only the Deployment's file changes, replaced atomically
    return "approved"


def approve_main(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write("usage: krmfn deployment approve [--no-wait] [--no-lock] DIR...\n")
        return 0 if args else 2
    wait = "--no-wait" not in args
    lock = "--no-lock" not in args
    code = 0
    for arg in [a for a in args if a not in ("--no-wait", "--no-lock")]:
        folder = Path(arg)
        try:
            if not folder.is_dir():
                raise KrmError(f"{folder}: not a package folder")
            # One writer per tree: the package approved.
            waiting = partial(_waiting, "approve", folder)
            with tree_lock(folder, wait=wait, on_wait=waiting, lock=lock):
                remove_leftovers(folder)  # what a killed run left in the package
                done = approve(folder)
            sys.stdout.write(f"{done}: {arg}\n")
        except (KrmError, OSError) as exc:
            code = _error("approve", exc)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
