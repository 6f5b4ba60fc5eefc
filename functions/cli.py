"""The umbrella command ``krmfn``: runs a function by name, and the multi-package commands."""

from __future__ import annotations

import importlib
import sys

FUNCTIONS = {
    "interface-expander": "krmfn.interface_expander.__main__",
    "preparer": "krmfn.preparer.__main__",
    "merger": "krmfn.merger.__main__",
    "topology-to-pvs": "krmfn.topology_to_pvs.__main__",
    "applyset-labeler": "krmfn.applyset_labeler.__main__",
}

COMMANDS = {
    "prepare-all": "krmfn.preparer.commands",
    "deployment": "krmfn.merger.commands",
    "deployments": "krmfn.merger.listing",
}

USAGE = """usage: krmfn COMMAND [ARGS...]

Functions (each also installed as krmfn-<name>; stdin/stdout ResourceList filters):
  interface-expander   Interface requirements -> IP/VLAN allocations and Kptfile conditions
  preparer             TKO preparation loop (plugins by GVK, topology Placement)
  merger               merge resources into a package (nephio.org/merge, rename, prepare)
  topology-to-pvs      NFTopology -> Porch PackageVariantSets, NFDeployed, SMF-waits-for-UPF
  applyset-labeler     make the package a KEP-3659 ApplySet

Commands over package trees:
  prepare-all ROOT [--catalog DIR] [--max-iterations N]
  deployment create TEMPLATE --merge FILE... [--site ID] [--catalog DIR] ... OUT_DIR
  deployment approve DIR...
  deployments list ROOT [--prepared|--unprepared] [--template P] ... [-o table|yaml|json]

Run `krmfn COMMAND --help` for each.
"""


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    command, rest = args[0], args[1:]
    if command in FUNCTIONS:
        module = importlib.import_module(FUNCTIONS[command])
        sys.argv = [f"krmfn-{command}", *rest]
        return int(module.main())
    if command in COMMANDS:
        try:
            module = importlib.import_module(COMMANDS[command])
        except ModuleNotFoundError:
            sys.stderr.write(f"krmfn {command}: not built yet\n")
            return 1
        return int(module.main([command, *rest]))
    sys.stderr.write(f"krmfn: unknown command {command!r}\n{USAGE}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
