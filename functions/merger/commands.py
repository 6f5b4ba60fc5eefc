"""``krmfn deployment create TEMPLATE_DIR --merge FILE... [--site ID] OUT_DIR``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from krmlib import KrmError

USAGE = "krmfn deployment create TEMPLATE_DIR [--merge FILE...] [--site ID] OUT_DIR"
DESCRIPTION = """Create a deployment package from a template package plus merges (TKO's
`tko deployment create --merge`): OUT_DIR becomes a copy of TEMPLATE_DIR whose Kptfile is named
after OUT_DIR, with the resources of every --merge file (or folder) merged in, in order
(nephio.org/merge and nephio.org/rename apply; nephio.org/prepare is kept as written), and a
deployment.nephio.org/v1alpha1 Deployment `deployment` with spec.templateId (the template's own,
else the template folder's name) and spec.siteId (--site). OUT_DIR must not exist or be empty."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="krmfn deployment create", usage=USAGE, description=DESCRIPTION
    )
    parser.add_argument("paths", nargs="*", metavar="TEMPLATE_DIR OUT_DIR")
    parser.add_argument(
        "--merge",
        nargs="+",
        action="extend",
        default=[],
        metavar="FILE",
        help="YAML file or folder of resources to merge (repeatable, in order)",
    )
    parser.add_argument("--site", metavar="ID", help="spec.siteId of the Deployment resource")
    return parser


def main(argv: list[str]) -> int:
    args = list(argv)
    if args[:1] == ["deployment"]:
        args = args[1:]
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(f"usage: {USAGE}\n\n{DESCRIPTION}\n")
        return 0
    if args[0] != "create":
        sys.stderr.write(f"krmfn deployment: unknown subcommand {args[0]!r}\nusage: {USAGE}\n")
        return 2
    parser = _parser()
    opts = parser.parse_intermixed_args(args[1:])
    paths: list[str] = list(opts.paths)
    merges: list[str] = list(opts.merge)
    if len(paths) == 1 and merges and args[-1] == merges[-1]:
        paths.append(merges.pop())  # `--merge a.yaml b.yaml OUT_DIR`: the last word is OUT_DIR
    if len(paths) != 2:
        parser.error("expected TEMPLATE_DIR and OUT_DIR")
    from .api import create_deployment

    template, out = Path(paths[0]), Path(paths[1])
    try:
        create_deployment(template, [Path(m) for m in merges], out, site_id=opts.site)
    except KrmError as exc:
        sys.stderr.write(f"krmfn deployment create: error: {exc}\n")
        return 1
    sys.stdout.write(f"created {out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
