"""``krmfn specialize``: Nephio's specialization of every NF package of a tree, without a cluster.

What the management cluster does between Porch's renders (the generic specializer calling
ipam-fn, vlan-fn and configinject-fn), done from git: passes over the packages until a pass
changes nothing. A pass renders each package that changed since its last render (``kpt fn render
--allow-exec``, the package's own pipeline, written back through krmlib's atomic writer),
allocates every claim of the tree at once (the address space and the ledger, :mod:`.engine`),
writes the ledger, then answers the claims and injects the Dependencies of each package.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from krmfn.registry import command_options, lock_wait_note
from krmlib import (
    Conditions,
    KrmError,
    KubeObject,
    ResourceList,
    get_conditions,
    get_readiness_gates,
)
from krmlib.packages import (
    Package,
    TooMuchOutput,
    kptfile_folders,
    read_documents,
    read_file_text,
    read_objects,
    read_tree_bytes,
    remove_leftovers,
    run_program,
    tree_lock,
    walk_tree,
    write_file,
)

from .claims import IP, VLAN, Answer, apply_answer, orphan_conditions, read_claim
from .engine import Allocator, LedgerConflict
from .inject import DEPENDENCY, Sibling, inject
from .ledger import format_ledger, read_ledger
from .space import read_space

USAGE = """usage: krmfn specialize ROOT [--network DIR] [--ledger FILE] [--max-passes N] [--check]
                         [--no-wait] [-o table|json] [-q]

Specialize every kpt package under ROOT as Nephio's management cluster would, from git alone:
render each package's pipeline with kpt (kpt fn render --allow-exec), fill every IPClaim and
VLANClaim from the address space (the Network, IPPrefix and IpamInventory objects under
--network) and the ledger, inject each Dependency from the sibling package it names, and render
again, in passes, until a pass changes nothing. Prints one row per package: PACKAGE, READY
(every readiness gate True; without gates, every condition), CLAIMS, INJECTED and REASON.
Progress goes to stderr, one line a package and pass.

  --network DIR       the address space (default ROOT/network; skipped as a package)
  --ledger FILE       the allocations, one line each (default DIR/ledger.yaml)
  --max-passes N      give up after N passes (default 8)
  --check             change nothing: specialize a copy and exit 1 naming every package that
                      would change or is not ready (a hand edit that breaks a gate or an
                      allocation), and the ledger when it would change
  --no-wait           refuse at once when another krmfn command is writing ROOT
  -o, --output FORMAT table (default) or json
  -q, --quiet         no progress on stderr

Exit code: 0 when every package is ready (and, with --check, nothing would change), 1
otherwise, 2 for a usage error. Writes are crash-safe (docs/durability.md): the ledger is
written before the claims that use it, every file is replaced atomically, one command writes a
tree at a time; after a kill, running the command again finishes the job.
"""


class Outcome:
    """One package's state after the run."""

    __slots__ = ("changed", "claims", "errors", "injected", "path", "ready", "reason")

    def __init__(self, path: str) -> None:
        self.path = path
        self.ready = False
        self.claims = 0
        self.injected = 0
        self.reason = ""
        self.errors: list[str] = []
        self.changed: list[str] = []

    def to_dict(self) -> dict[str, Any]:
        return {
            "package": self.path,
            "ready": self.ready,
            "claims": self.claims,
            "injected": self.injected,
            "reason": self.reason,
            "errors": list(self.errors),
            "changed": sorted(set(self.changed)),
        }


def find_packages(root: Path, skip: Path) -> list[Path]:
    """Every outermost kpt package under ``root`` (not ``root`` itself, nothing under ``skip``;
    hidden folders and links left out by krmlib's tree rules), sorted."""
    found: list[Path] = []
    for folder in sorted(kptfile_folders(root, skip)):
        if folder != root and not any(p in folder.parents for p in found):
            found.append(folder)
    return found


RENDER_TIMEOUT = 600.0  # seconds for one package's kpt fn render


def render(folder: Path) -> tuple[list[str], str]:
    """Run the package's pipeline with kpt (through ``krmlib.packages.run_program``, the one way a
    program runs: the input check's gate first, the group killed past the timeout) and write
    the result back atomically: (files written, error message). The functions the Kptfiles
    name (``exec: krmfn-<fn>``) are found beside this Python first (:func:`main` puts its folder
    first on PATH)."""
    try:
        done = run_program(
            ["kpt", "fn", "render", "--allow-exec", str(folder), "-o", "stdout"],
            b"",
            timeout=RENDER_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return [], f"kpt fn render took over {RENDER_TIMEOUT:.0f} s and was stopped"
    except TooMuchOutput:
        return [], "kpt fn render printed more than krmlib's output cap"
    except OSError as exc:
        return [], f"cannot run kpt: {exc.strerror or exc}"
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        lines = [line for line in stderr.splitlines() if line.strip()]
        return [], "kpt fn render failed: " + " | ".join(lines[-6:])
    rl = ResourceList.parse(done.stdout.decode("utf-8"))
    package = Package.read(folder)
    return package.write(list(rl.items)), ""


def is_ready(kptfile: KubeObject | None) -> tuple[bool, str]:
    """(ready, what it waits for): every readiness gate's condition True; a package without
    gates: every condition True."""
    if kptfile is None:
        return False, "no Kptfile"
    status = {c.type: c for c in get_conditions(kptfile)}
    gates = get_readiness_gates(kptfile)
    wanted = gates or list(status)
    for type_ in wanted:
        c = status.get(type_)
        if c is None or c.status != "True":
            why = "missing" if c is None else (c.message or c.status)
            return False, f"{type_}: {why}"
    return True, ""


class Run:
    """One specialization of a tree (in place, or of a copy under --check)."""

    def __init__(self, root: Path, network: Path, ledger: Path, quiet: bool) -> None:
        self.root = root
        self.network = network
        self.ledger_path = ledger
        self.quiet = quiet
        self.packages = find_packages(root, network)
        self.outcomes = {p: Outcome(self.rel(p)) for p in self.packages}
        self.ledger_changed = False

    def rel(self, folder: Path) -> str:
        return folder.relative_to(self.root).as_posix()

    def say(self, text: str) -> None:
        if not self.quiet:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def run(self, max_passes: int) -> bool:
        """True when a pass changed nothing (the fixpoint)."""
        space_objects = read_objects(self.network) if self.network.is_dir() else []
        space = read_space([o for o in space_objects if o.kind != "IpamLedger"])
        dirty = set(self.packages)
        for number in range(1, max_passes + 1):
            changed = False
            rendered: set[Path] = set()
            for folder in self.packages:
                if folder not in dirty:
                    continue
                out = self.outcomes[folder]
                written, error = render(folder)
                out.errors = [error] if error else []
                out.changed += written
                changed = changed or bool(written)
                if written:
                    rendered.add(folder)  # rendered again next pass: the pipeline's fixpoint
                self.say(
                    f"pass {number} render {out.path}: "
                    + (error or f"{len(written)} files written")
                )
            dirty = self.specialize(space, number)
            if not changed and not dirty:
                return True
            dirty |= rendered
        return False

    def _ledger(self) -> tuple[list[Any], list[Any]]:
        if not self.ledger_path.exists():
            return [], []
        text = read_file_text(str(self.ledger_path), self.rel(self.ledger_path))
        return read_ledger(read_documents(text, str(self.ledger_path)), self.rel(self.ledger_path))

    def specialize(self, space: Any, number: int) -> set[Path]:
        """Allocate and inject across the tree; the packages written."""
        packages = {f: Package.read(f) for f in self.packages}
        ip, vlan = self._ledger()
        try:
            allocator = Allocator(space, ip, vlan)
        except LedgerConflict as exc:
            raise KrmError(f"{self.rel(self.ledger_path)}: {exc}") from None
        claims = []
        objects: dict[Path, list[KubeObject]] = {}
        for folder, package in packages.items():
            mine = [o for o in package.items if (o.api_version, o.kind) in (IP, VLAN)]
            objects[folder] = mine
            for obj in mine:
                try:
                    claims.append(read_claim(obj, self.rel(folder)))
                except KrmError as exc:
                    self.outcomes[folder].errors.append(str(exc))
        owners: dict[str, str] = {}
        for c in claims:
            if c.owner in owners:
                raise KrmError(f"two claims named {c.name} in package {c.package}")
            owners[c.owner] = c.package
        answers = allocator.allocate(claims)
        if allocator.changed:
            ip_entries, vlan_entries = allocator.entries()
            text = format_ledger(ip_entries, vlan_entries)
            old = read_file_text(str(self.ledger_path), "") if self.ledger_path.exists() else ""
            if text != old:
                write_file(self.ledger_path, text)  # before the claims that use it
                self.ledger_changed = True
                self.say(
                    f"pass {number} ledger {self.rel(self.ledger_path)}: {len(ip_entries)} IP "
                    f"and {len(vlan_entries)} VLAN allocations"
                )
        siblings: dict[str, list[Sibling]] = {}  # by folder name (Porch's packageName)
        for f, p in packages.items():
            repo = self.rel(f.parent) if f.parent != self.root else "."
            siblings.setdefault(f.name, []).append(Sibling(self.rel(f), f.name, repo, p.items))
        dirty: set[Path] = set()
        by_owner = {(c.package, c.name, c.kind): c for c in claims}
        for folder, package in packages.items():
            out = self.outcomes[folder]
            kptfile = package.kptfile()
            if kptfile is None:
                out.errors.append("no Kptfile")
                continue
            conditions = Conditions(kptfile)
            problems: list[str] = []
            for obj in objects[folder]:
                claim = by_owner.get(
                    (self.rel(folder), obj.name, "ip" if obj.kind == "IPClaim" else "vlan")
                )
                if claim is None:
                    continue
                answer: Answer = answers[claim.owner]
                if not apply_answer(obj, answer, conditions):
                    problems.append(f"{obj.kind} {obj.name}: {answer}")
            orphan_conditions(conditions, objects[folder], {IP, VLAN})
            items, waiting = inject(package.items, conditions, siblings, self.rel(folder))
            conditions.flush()
            written = package.write(items)
            out.claims = len(objects[folder])
            out.injected = sum(
                len(o.get("status.injected") or [])
                for o in items
                if (o.api_version, o.kind) == DEPENDENCY
            )
            out.errors = [e for e in out.errors if e.startswith("kpt fn render")] + problems
            out.reason = "; ".join(waiting)
            out.changed += written
            if written:
                dirty.add(folder)
                self.say(f"pass {number} specialize {out.path}: {len(written)} files written")
        return dirty

    def finish(self) -> list[Outcome]:
        for folder in self.packages:
            out = self.outcomes[folder]
            kptfiles = (
                [o for o in read_objects(folder / "Kptfile")]
                if (folder / "Kptfile").exists()
                else []
            )
            ready, why = is_ready(kptfiles[0] if kptfiles else None)
            out.ready = ready and not out.errors
            if not ready and not out.reason:
                out.reason = why
            if out.errors:
                out.reason = "; ".join(out.errors)
        return [self.outcomes[f] for f in self.packages]


def table(outcomes: list[Outcome]) -> str:
    rows = [("PACKAGE", "READY", "CLAIMS", "INJECTED", "REASON")]
    for o in outcomes:
        rows.append((o.path, "yes" if o.ready else "no", str(o.claims), str(o.injected), o.reason))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "".join(
        ("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4]).rstrip() + "\n"
        for r in rows
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="krmfn specialize", add_help=False)
    parser.add_argument("root", nargs="?")
    parser.add_argument("--network")
    parser.add_argument("--ledger")
    parser.add_argument("--max-passes", type=int, default=8)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--no-wait", action="store_true")
    parser.add_argument("-o", "--output", choices=("table", "json"), default="table")
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("-h", "--help", action="store_true")
    return parser


def _files(folder: Path) -> dict[str, bytes]:
    """The files of the tree by relative path, under krmlib's tree rules (no links, no hidden
    entries: ``.git`` among them)."""
    out: dict[str, bytes] = {}
    for current, _dirs, files in walk_tree(folder):
        for name in files:
            path = current / name
            out[path.relative_to(folder).as_posix()] = read_tree_bytes(path)
    return out


def specialize(
    root: Path, network: Path, ledger: Path, max_passes: int, quiet: bool
) -> tuple[list[Outcome], bool, bool]:
    run = Run(root, network, ledger, quiet)
    converged = run.run(max_passes)
    return run.finish(), converged, run.ledger_changed


def check(
    root: Path, network: Path, ledger: Path, max_passes: int, quiet: bool
) -> tuple[list[Outcome], bool, list[str]]:
    """Specialize a copy; (outcomes, converged, what would change outside packages)."""
    with tempfile.TemporaryDirectory(prefix="krmfn-specialize-check-") as tmp:
        copy = Path(tmp) / root.name
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        outcomes, converged, _ = specialize(
            copy,
            copy / network.relative_to(root),
            copy / ledger.relative_to(root),
            max_passes,
            quiet,
        )
        before, after = _files(root), _files(copy)
    other: list[str] = []
    for o in outcomes:
        prefix = o.path + "/"
        o.changed = sorted(
            name[len(prefix) :]
            for name in set(before) | set(after)
            if name.startswith(prefix) and before.get(name) != after.get(name)
        )
    rel = ledger.relative_to(root).as_posix()
    if before.get(rel) != after.get(rel):
        other.append(rel)
    return outcomes, converged, other


def main(argv: list[str]) -> int:
    opts = command_options("specialize", _parser(), argv, USAGE)
    if isinstance(opts, int):
        return opts
    if opts.max_passes < 1:
        sys.stderr.write("krmfn specialize: --max-passes must be at least 1\n")
        return 2
    root = Path(opts.root).resolve()
    # the functions the Kptfiles name (exec: krmfn-<fn>) are this installation's
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    if not root.is_dir():
        sys.stderr.write(f"krmfn specialize: error: {opts.root}: not a folder\n")
        return 1
    network = Path(opts.network).resolve() if opts.network else root / "network"
    ledger = Path(opts.ledger).resolve() if opts.ledger else network / "ledger.yaml"
    for path, what in ((network, "--network"), (ledger, "--ledger")):
        if not path.is_relative_to(root):
            sys.stderr.write(f"krmfn specialize: {what} {path} must lie inside ROOT\n")
            return 2

    def waiting() -> None:
        sys.stderr.write(lock_wait_note("specialize", root) + "\n")

    started = time.process_time()
    other: list[str] = []
    try:
        with tree_lock(root, exclusive=not opts.check, wait=not opts.no_wait, on_wait=waiting):
            if opts.check:
                outcomes, converged, other = check(root, network, ledger, opts.max_passes, True)
            else:
                remove_leftovers(root)
                outcomes, converged, _ = specialize(
                    root, network, ledger, opts.max_passes, opts.quiet
                )
    except KrmError as exc:
        sys.stderr.write(f"krmfn specialize: error: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(
            f"krmfn specialize: error: {exc.filename or root}: {exc.strerror or exc}\n"
        )
        return 1
    bad = [o for o in outcomes if not o.ready or o.errors or (opts.check and o.changed)]
    if opts.output == "json":
        doc = {
            "packages": [o.to_dict() for o in outcomes],
            "converged": converged,
            "ready": sum(o.ready for o in outcomes),
            "total": len(outcomes),
            "wouldChange": other if opts.check else [],
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        sys.stdout.write(table(outcomes))
    if not opts.quiet or opts.check:
        cpu = time.process_time() - started
        sys.stderr.write(
            f"specialize: {sum(o.ready for o in outcomes)} of {len(outcomes)} packages ready"
            + ("" if converged else ", not converged")
            + f" ({cpu:.2f}s CPU in this process)\n"
        )
    if opts.check and (bad or other):
        names = [f"{o.path} ({', '.join(o.changed) or o.reason or 'not ready'})" for o in bad] + [
            f"{p} would change" for p in other
        ]
        sys.stderr.write("specialize --check: not clean: " + "; ".join(names) + "\n")
        return 1
    if not outcomes:
        sys.stderr.write(f"krmfn specialize: no package under {root}\n")
        return 1 if opts.check else 0
    return 1 if bad or not converged else 0
