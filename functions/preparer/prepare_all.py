"""``krmfn prepare-all``: the TKO preparer loop over every deployment package of a tree.

A run is passes over the deployment packages, children before parents, until a pass changes
nothing. A package is prepared in-process (its exec plugins are the only subprocesses) and written
back through ``krmlib.Package``; a package whose files did not change since it was last prepared
is not prepared again, and one whose Deployment is prepared is only read. The catalog is read once
per run. With ``--jobs N`` packages that are not nested in one another run side by side in N
worker processes (forked after the catalog is read, so they share it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Any, NamedTuple

from krmfn.tko import find_deployment, is_approved, is_prepared

from krmlib import (
    Items,
    KrmError,
    KubeObject,
    Package,
    ResourceList,
    Results,
    command_read_root,
    is_kptfile,
    parse_config,
    read_documents,
    read_named_file,
    read_package,
    read_roots,
    text_of,
)

from .catalog import cached_catalogs, load_catalog
from .client import catalog_read_only
from .config import Config
from .executors import containers_allowed
from .loop import catalog_folder, process
from .package import PackageView
from .tree import packages_under, preparer_step

USAGE = """usage: krmfn prepare-all ROOT [--catalog DIR] [--max-iterations N] [--jobs N]
                         [--check] [-o table|json|yaml] [-q | -v]

Prepare every deployment package under ROOT (a folder whose Kptfile pipeline runs
krmfn-preparer), children before parents, in passes until no package changes. The catalog
(default ROOT/catalog) is read once, skipped as a package, and overrides each package's
spec.catalog. Prints one row per deployment: ID, TEMPLATE, SITE, PREPARED, APPROVED and, for a
package not prepared, REASON (what it waits for, or the error). Progress goes to stderr, one
line a package.

  --catalog DIR         the template and site catalog (default ROOT/catalog when it exists)
  --max-iterations N    the preparer's pass cap inside each package
  --jobs N, -j N        packages prepared side by side (default: the number of cores)
  --check               change nothing; exit 1 when a package would change or is not prepared
  -o, --output FORMAT   table (default), json or yaml
  -q, --quiet           no progress on stderr
  -v, --verbose         progress with the files each package changed, and per-package seconds

Exit code: 0 when every deployment is prepared (and, with --check, nothing would change), 1
otherwise, 2 for a usage error. Files named by a config (the catalog, preparer configs, exec
plugins) are read inside ROOT or the package tree; KRMFN_ALLOW_READ=DIR allows more. Nothing is
written outside ROOT.
"""

WAITING = "waiting"


class Outcome:
    """What preparing one package did (made in a worker process, pickled back)."""

    __slots__ = (
        "approved",
        "changed",
        "errors",
        "id",
        "prepared",
        "ran",
        "reason",
        "seconds",
        "site",
        "template",
    )

    def __init__(
        self,
        id: str,
        template: str = "-",
        site: str = "-",
        prepared: bool = False,
        approved: bool = False,  # the Deployment's nephio.org/approved (TKO's approval)
        reason: str = "",
        changed: list[str] | None = None,
        errors: list[str] | None = None,
        seconds: float = 0.0,
        ran: bool = True,  # False: already prepared, only read
    ) -> None:
        self.id = id
        self.template = template
        self.site = site
        self.prepared = prepared
        self.approved = approved
        self.reason = reason
        self.changed: list[str] = [] if changed is None else changed
        self.errors: list[str] = [] if errors is None else errors
        self.seconds = seconds
        self.ran = ran

    def to_dict(self) -> dict[str, Any]:
        """The package's entry in ``-o json`` and ``-o yaml``."""
        return {
            "id": self.id,
            "template": self.template,
            "site": self.site,
            "prepared": self.prepared,
            "approved": self.approved,
            "reason": self.reason,
            "changed": list(self.changed),
            "errors": list(self.errors),
            "seconds": self.seconds,
            "ran": self.ran,
        }


class Task(NamedTuple):
    root: Path
    folder: Path
    catalog: Path | None
    max_iterations: int | None
    check: bool


def relative(root: Path, folder: Path) -> str:
    return folder.relative_to(root).as_posix() if folder != root else "."


def package_config(pkg: Package, catalog: Path | None, max_iterations: int | None) -> Config:
    """The preparer's config from the package's Kptfile step, with the command's overrides."""
    kptfile = pkg.kptfile()
    step = preparer_step(kptfile) if kptfile is not None else None
    source: KubeObject | None = None
    if step is not None and step.get("configPath"):
        path = pkg.folder / str(step["configPath"])
        what = "the preparer config"
        found = read_documents(read_named_file(path, read_roots(pkg.folder), what), str(path))
        if not found:
            raise KrmError(f"{path}: cannot read the preparer config: no object in it")
        source = found[0]
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


def _describe(outcome: Outcome, deployment: KubeObject | None) -> None:
    spec = deployment.get("spec", {}) if deployment is not None else {}
    spec = spec if isinstance(spec, dict) else {}
    # As written (0123 stays 0123), never a Python repr of a map (issue 27.2, 27.7).
    template = text_of(deployment, "spec.templateId") if deployment is not None else ""
    site = text_of(deployment, "spec.siteId") if deployment is not None else ""
    outcome.template, outcome.site = template or "-", site or "-"
    outcome.prepared = deployment is not None and is_prepared(deployment)
    outcome.approved = deployment is not None and is_approved(deployment)


def prepare_package(task: Task) -> Outcome:
    """Prepare one package in-process and write back what changed (with ``check``: only tell)."""
    start = time.perf_counter()
    outcome = Outcome(relative(task.root, task.folder))
    try:
        # A look at the Deployment first: most packages of a rerun are prepared already.
        _describe(
            outcome, find_deployment(read_package(task.folder, subpackages=False, annotate=False))
        )
        if outcome.prepared:
            outcome.ran = False
            return outcome
        _prepare(task, outcome)
    except KrmError as exc:
        outcome.errors = [str(exc)]
    finally:
        outcome.seconds = time.perf_counter() - start
        if not outcome.prepared:
            outcome.reason = _reason(outcome)
    return outcome


def _prepare(task: Task, outcome: Outcome) -> None:
    pkg = Package.read(task.folder, package_path=True)
    config = package_config(pkg, task.catalog, task.max_iterations)
    rl = ResourceList(items=Items(pkg.items))
    with containers_allowed(), catalog_read_only() if task.check else contextlib.nullcontext():
        process(rl, config)
    results = rl.results.sorted()
    outcome.errors = [r.message for r in results if r.severity == "error"]
    waits = [r.message for r in results if r.severity == "info" and WAITING in r.message]
    if outcome.errors:
        return  # nothing written: the package stays as it was
    outcome.changed = pkg.write(rl.items, dry_run=task.check)
    _describe(outcome, find_deployment(PackageView.of(rl.items).own(rl.items)))
    if not outcome.prepared:
        notes = list(dict.fromkeys(waits))
        folder = catalog_folder(config, task.folder)
        if config.catalog and (folder is None or not folder.is_dir()):
            notes.append(f"catalog {config.catalog!r} not found (from the package upwards)")
        outcome.reason = "; ".join(notes)


def _reason(outcome: Outcome) -> str:
    if outcome.errors:
        text = "error: " + "; ".join(outcome.errors)
        return text + (" (nothing written)" if outcome.ran else "")
    if outcome.reason:
        return outcome.reason
    if outcome.template == "-" and outcome.site == "-" and not outcome.changed:
        return "no Deployment resource yet"
    return "not prepared (no plugin said why)"


# --- the tree ------------------------------------------------------------------------------------


def deployment_packages(root: Path, skip: Path | None) -> list[Path]:
    """The folders under ``root`` whose Kptfile runs the preparer, children first."""
    out = []
    for folder in packages_under(root, skip):
        try:
            kptfile = read_documents((folder / "Kptfile").read_text(encoding="utf-8"), "Kptfile")
        except (OSError, KrmError):
            continue
        if kptfile and is_kptfile(kptfile[0]) and preparer_step(kptfile[0]) is not None:
            out.append(folder)
    return out


def fingerprint(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """The package's files (subpackages included) by name, size and modification time."""
    found = []
    for current, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            try:
                info = os.lstat(os.path.join(current, name))
            except OSError:
                continue
            found.append((os.path.join(current, name), info.st_size, info.st_mtime_ns))
    return tuple(sorted(found))


class Progress:
    """One line on stderr per package: pass, count, elapsed, the package and what happened."""

    def __init__(self, level: int, start: float, check: bool) -> None:
        self.level = level
        self.start = start
        self.verb = "would change" if check else "changed"

    def say(self, text: str) -> None:
        if self.level > 0:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def package(self, number: int, done: int, total: int, outcome: Outcome) -> None:
        if self.level == 0:
            return
        if outcome.errors:
            what = "failed: " + "; ".join(outcome.errors)
        elif outcome.changed:
            what = f"{self.verb} {len(outcome.changed)} file(s)"
            if self.level > 1:
                what += " (" + ", ".join(outcome.changed) + ")"
        elif not outcome.ran:
            what = "prepared already"
        else:
            what = "unchanged"
        if not outcome.prepared and not outcome.errors:
            what += f"; not prepared: {outcome.reason}"
        seconds = f" in {outcome.seconds:.2f}s" if self.level > 1 else ""
        elapsed = time.perf_counter() - self.start
        self.say(f"pass {number} [{done}/{total}] {elapsed:.1f}s {outcome.id}: {what}{seconds}")


def _related(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def run_pass(
    tasks: Sequence[Task], jobs: int, report: Callable[[Outcome], None]
) -> Iterator[Outcome]:
    """Prepare ``tasks`` (children first); a package starts once no package nested in it is
    waiting or running, and never beside one it is nested in."""
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            outcome = prepare_package(task)
            report(outcome)
            yield outcome
        return
    waiting = list(tasks)
    running: dict[Future[Outcome], str] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork")) as pool:
        while waiting or running:
            blocked: list[str] = []
            for task in list(waiting):
                if len(running) >= jobs:
                    break
                key = str(task.folder)
                busy = [*running.values(), *blocked]
                if any(_related(key, other) for other in busy):
                    blocked.append(key)
                    continue
                waiting.remove(task)
                running[pool.submit(prepare_package, task)] = key
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                del running[future]
                outcome = future.result()
                report(outcome)
                yield outcome


# --- the command ---------------------------------------------------------------------------------


class Summary:
    __slots__ = (
        "changed",
        "check",
        "converged",
        "failed",
        "jobs",
        "packages",
        "passes",
        "prepared",
        "seconds",
    )

    def __init__(
        self,
        packages: int = 0,
        prepared: int = 0,
        changed: int = 0,
        failed: int = 0,
        passes: int = 0,
        seconds: float = 0.0,
        jobs: int = 1,
        check: bool = False,
        converged: bool = True,
    ) -> None:
        self.packages = packages
        self.prepared = prepared
        self.changed = changed
        self.failed = failed
        self.passes = passes
        self.seconds = seconds
        self.jobs = jobs
        self.check = check
        self.converged = converged

    def to_dict(self) -> dict[str, Any]:
        """The ``summary`` of ``-o json`` and ``-o yaml``."""
        return {
            "packages": self.packages,
            "prepared": self.prepared,
            "changed": self.changed,
            "failed": self.failed,
            "passes": self.passes,
            "seconds": self.seconds,
            "jobs": self.jobs,
            "check": self.check,
            "converged": self.converged,
        }


def prepare_all(
    root: Path,
    catalog: Path | None,
    max_iterations: int | None,
    *,
    jobs: int = 1,
    check: bool = False,
    verbosity: int = 1,
) -> tuple[list[Outcome], Summary]:
    start = time.perf_counter()
    progress = Progress(verbosity, start, check)
    skip = catalog.resolve() if catalog is not None else None
    summary = Summary(jobs=jobs, check=check)
    last: dict[Path, Outcome] = {}
    seen: dict[Path, tuple[tuple[str, int, int], ...]] = {}
    changed_once: set[Path] = set()
    cap = 1 if check else (max_iterations or 16)
    if catalog is not None:
        load_catalog(catalog, [], Results())  # read once, before the workers fork
    for number in range(1, cap + 1):
        folders = deployment_packages(root, skip)
        todo = [f for f in folders if check or seen.get(f) != fingerprint(f)]
        tasks = [Task(root, f, catalog, max_iterations, check) for f in todo]
        done = 0

        def report(outcome: Outcome, total: int = len(tasks), number: int = number) -> None:
            nonlocal done
            done += 1
            progress.package(number, done, total, outcome)

        changed = 0
        for outcome in run_pass(tasks, jobs, report):
            folder = root / outcome.id if outcome.id != "." else root
            last[folder] = outcome
            if outcome.changed:
                changed += 1
                changed_once.add(folder)
            if not check:
                seen[folder] = fingerprint(folder)
        for folder in set(last) - set(folders):
            del last[folder]
        summary.passes = number
        progress.say(f"pass {number}: {len(tasks)} package(s) run, {changed} changed")
        if changed == 0 or check:
            break
    else:
        summary.converged = False
        progress.say(f"prepare-all: still changing after {cap} passes")
    outcomes = sorted(last.values(), key=lambda o: o.id)
    for outcome in outcomes if check else []:
        if outcome.changed:
            change = f"would change {', '.join(outcome.changed)}"
            outcome.reason = f"{change}; {outcome.reason}" if outcome.reason else change
    summary.packages = len(outcomes)
    summary.prepared = sum(o.prepared for o in outcomes)
    summary.failed = sum(bool(o.errors) for o in outcomes)
    summary.changed = len(changed_once)
    summary.seconds = time.perf_counter() - start
    return outcomes, summary


def render(outcomes: list[Outcome], summary: Summary, form: str, verbose: bool) -> str:
    if form == "json":
        doc = {"packages": [o.to_dict() for o in outcomes], "summary": summary.to_dict()}
        return json.dumps(doc, indent=2) + "\n"
    if form == "yaml":
        import yaml

        doc = {"packages": [o.to_dict() for o in outcomes], "summary": summary.to_dict()}
        return str(yaml.safe_dump(doc, sort_keys=False))
    header = ["ID", "TEMPLATE", "SITE", "PREPARED", "APPROVED"]
    if verbose:
        header.append("SECONDS")
    header.append("REASON")
    rows = [header]
    for o in outcomes:
        row = [o.id, o.template, o.site, "yes" if o.prepared else "no"]
        row.append("yes" if o.approved else "no")
        if verbose:
            row.append(f"{o.seconds:.2f}")
        row.append(o.reason or "-")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    lines = [
        "  ".join([*(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)), r[-1]]).rstrip()
        for r in rows
    ]
    return "\n".join(lines) + "\n"


def summary_line(summary: Summary) -> str:
    verb = "would change" if summary.check else "changed"
    return (
        f"prepare-all: {summary.packages} deployment(s), {summary.prepared} prepared, "
        f"{summary.packages - summary.prepared} not prepared, {summary.failed} failed, "
        f"{summary.changed} {verb}; {summary.passes} pass(es) in {summary.seconds:.1f}s "
        f"with {summary.jobs} job(s)"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="krmfn prepare-all", add_help=False)
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("--catalog")
    parser.add_argument("--max-iterations", type=int, dest="max_iterations")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table")
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("root", nargs="?")
    return parser


def main(argv: list[str]) -> int:
    args = list(argv)
    if args and args[0] == "prepare-all":
        args = args[1:]
    try:
        opts = _parser().parse_args(args)
    except SystemExit:
        return 2
    if opts.help or not opts.root:
        (sys.stdout if opts.help else sys.stderr).write(USAGE)
        return 0 if opts.help else 2
    problem = _usage_problem(opts)
    if problem:
        sys.stderr.write(f"krmfn prepare-all: {problem}\n")
        return 2
    root = Path(opts.root).resolve()
    catalog = Path(opts.catalog).resolve() if opts.catalog else root / "catalog"
    given = catalog if catalog.is_dir() else None
    verbosity = 0 if opts.quiet else (2 if opts.verbose else 1)
    allowed = [root] if given is None else [root, given]
    try:
        with command_read_root(*allowed), cached_catalogs():
            outcomes, summary = prepare_all(
                root,
                given,
                opts.max_iterations,
                jobs=max(1, opts.jobs),
                check=opts.check,
                verbosity=verbosity,
            )
    except KrmError as exc:
        sys.stderr.write(f"krmfn prepare-all: error: {exc}\n")
        return 1
    sys.stdout.write(render(outcomes, summary, opts.output, opts.verbose))
    if verbosity > 0 or opts.check:
        sys.stderr.write(summary_line(summary) + "\n")
    bad = [o for o in outcomes if not o.prepared or o.errors or (opts.check and o.changed)]
    if opts.check and bad and opts.output == "table":
        sys.stderr.write("prepare-all --check: not clean: " + ", ".join(o.id for o in bad) + "\n")
    return 1 if bad or not summary.converged else 0


def _usage_problem(opts: argparse.Namespace) -> str:
    if not Path(opts.root).is_dir():
        return f"{opts.root} is not a folder"
    if opts.max_iterations is not None and opts.max_iterations < 1:
        return "--max-iterations must be at least 1"
    if opts.jobs < 1:
        return "--jobs must be at least 1"
    if opts.quiet and opts.verbose:
        return "-q and -v exclude each other"
    if opts.catalog and not Path(opts.catalog).is_dir():
        return f"--catalog {opts.catalog} is not a folder"
    return ""
