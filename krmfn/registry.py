"""The functions of krmfn, each declared once: its name, what it does, its process and config.

Everything that lists the functions reads this: the ``krmfn`` command and each ``krmfn-<name>``
console script, ``--help`` (the function's README.md), the smoke, bad-input and golden tests, the
catalog metadata test. A new function is one line here, one folder ``krmfn/<name>/`` (with
``README.md``, ``metadata.yaml`` and the one-line ``__main__.py``), a ``[project.scripts]`` entry
(``krmfn.start:<name>``: :mod:`krmfn.start`) and ``testdata/<name>/`` cases.

Nothing here imports a function until it runs: ``krmfn --help`` stays cheap.
"""

from __future__ import annotations

import atexit
import gc
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import __version__

if TYPE_CHECKING:
    import argparse
    from pathlib import Path


class Function:
    """One function: its name and summary. The folder is the package (``interface-expander``
    is ``krmfn/interface_expander/``), its process is ``process`` in ``process.py`` and its config
    ``Config`` in ``config.py``: a convention, so nothing here names code by a string.

    A plain slotted class, not a dataclass: this module is on every function's start-up path
    (ARCHITECTURE.md, "Records"). Nothing assigns to a Function after it is made.
    """

    __slots__ = ("name", "summary")

    def __init__(self, name: str, summary: str) -> None:
        self.name = name
        self.summary = summary

    def __str__(self) -> str:
        return self.name

    @property
    def package(self) -> str:
        """The import name: ``krmfn.interface_expander``."""
        return f"{__package__}.{self.name.replace('-', '_')}"

    @property
    def script(self) -> str:
        """The console script: ``krmfn-interface-expander``."""
        return f"krmfn-{self.name}"

    @property
    def folder(self) -> Path:
        from pathlib import Path  # for --help and the tests: pathlib is not a start-up cost

        return Path(__file__).resolve().parent / self.name.replace("-", "_")

    def docs(self) -> str:
        """The function's documentation (its README.md: what ``--help`` and ``kpt fn doc`` show)."""
        return (self.folder / "README.md").read_text(encoding="utf-8")

    def load(self) -> tuple[Callable[[Any, Any], None], type[Any]]:
        """(process, config class), imported now."""
        process = _module(f"{self.package}.process").process
        config = _module(f"{self.package}.config").Config
        return process, config

    def main(self, argv: list[str] | None = None) -> int:
        """Run as the console script (stdin → stdout, or files; ``--help``, ``--version``)."""
        from krmlib import run

        process, config = self.load()
        return run(
            process, config, name=self.script, help_text=self.docs, version=__version__, argv=argv
        )


def _module(name: str) -> Any:
    # __import__: logged by `-X importtime` under the module's name (importlib.import_module is not)
    return __import__(name, fromlist=["_"])


FUNCTIONS: tuple[Function, ...] = (
    Function(
        "interface-expander",
        "Interface requirements -> IP/VLAN allocations and Kptfile conditions",
    ),
    Function(
        "preparer",
        "TKO preparation loop (plugins by GVK, topology Placement)",
    ),
    Function(
        "merger",
        "merge resources into a package (nephio.org/merge, rename, prepare)",
    ),
    Function(
        "topology-to-pvs",
        "NFTopology -> Porch PackageVariantSets, NFDeployed, SMF-waits-for-UPF",
    ),
    Function(
        "applyset-labeler",
        "make the package a KEP-3659 ApplySet",
    ),
    Function(
        "nad-generator",
        "NetworkAttachmentDefinitions once an Interface's claims are ready (Nephio's nad-fn)",
    ),
    Function(
        "dnn-generator",
        "IPClaims for DataNetwork pools, their prefixes into its status (Nephio's dnn-fn)",
    ),
    Function(
        "nfdeploy",
        "the NFDeployment's spec from its requirements, the readiness gate (Nephio's nfdeploy-fn)",
    ),
    Function(
        "ipam-allocator",
        "IPClaim and VLANClaim status from an address space and a ledger in git (ipam-fn, vlan-fn)",
    ),
)

BY_NAME = {function.name: function for function in FUNCTIONS}


def entry_point(package: str, module: str = "") -> Callable[[], int]:
    """``main`` of ``<package>.__main__`` and the console script (:mod:`krmfn.start`) of the
    function in ``package``;
    run at once (its exit status the process's) when ``module`` is ``"__main__"`` (``python -m
    krmfn.<name>``), so each ``__main__.py`` is the one line that calls this."""
    function = next(f for f in FUNCTIONS if f.package == package)

    def main() -> int:
        # The cyclic collector off from here (the console scripts turned it off before the
        # function's package loaded: krmfn.start): krmlib's runner turns it off for the run
        # anyway, and ``python -m`` of a package that loads on first use (the merger,
        # ipam-allocator) would collect over the modules as they import (issue 37).
        gc.disable()
        # At exit, no last collection over every object the run made (about 5% of a small
        # run's instructions, issue 37): the output is written and flushed by then.
        atexit.register(gc.freeze)
        return function.main(sys.argv[1:])

    if module == "__main__":
        sys.exit(main())
    return main


# --- the tree commands' shared start (``krmfn prepare-all``, ``krmfn specialize``) --------------


def command_options(
    command: str, parser: argparse.ArgumentParser, argv: list[str], usage: str
) -> argparse.Namespace | int:
    """The options of ``krmfn <command> ... ROOT`` (``argv`` may start with the command's name,
    as ``krmfn`` passes it), or the exit status when there is nothing to run: 2 for options
    argparse refused (it said why), 0 after the usage on stdout for ``--help``, 2 after it on
    stderr without ROOT. ``parser`` has ``-h/--help`` as a flag and ``root`` optional."""
    args = list(argv)
    if args[:1] == [command]:
        args = args[1:]
    try:
        opts = parser.parse_args(args)
    except SystemExit:
        return 2
    if opts.help or not opts.root:
        (sys.stdout if opts.help else sys.stderr).write(usage)
        return 0 if opts.help else 2
    return opts


def lock_wait_note(command: str, root: Path) -> str:
    """What a tree command says while it waits for another writer's lock on ``root``."""
    return (
        f"krmfn {command}: another krmfn command is writing {root}; waiting for it "
        "(--no-wait refuses instead)"
    )
