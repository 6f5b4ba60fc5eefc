"""``krmfn prepare-all``: the TKO preparer loop over every deployment package of a tree.

A run is passes over the deployment packages, children before parents, until a pass changes
nothing. A package is prepared in-process (its exec plugins are the only subprocesses) and written
back through ``krmlib.packages.Package``; a package whose files did not change since it was last
prepared is not prepared again, and one whose Deployment is prepared is only read. The catalog is
read once per run. With ``--jobs N`` packages that are not nested in one another run side by side in
N worker processes (forked after the catalog is read, so they share it; a process with other
threads does not fork, and prepares them one at a time).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Any, NamedTuple

from krmfn.registry import command_options, lock_wait_note
from krmfn.tko import (
    PREPARED,
    TOPOLOGY,
    find_deployment,
    is_approved,
    is_deployment_package,
    is_prepared,
    preparer_step,
)
from krmlib import (
    Items,
    KrmError,
    KubeObject,
    ResourceList,
    Results,
    parse_config,
    read_named_file,
    read_roots,
    text_of,
)
from krmlib.packages import (
    Package,
    command_read_root,
    die_with_parent,
    fork_safe,
    internal_error,
    read_documents,
    read_package,
    read_tree_file,
    remove_leftovers,
    tree_lock,
    unfinished_folders,
    walk_tree,
)

from .catalog import cached_catalogs, load_catalog
from .client import catalog_read_only
from .config import Config
from .executors import containers_allowed
from .package import PackageView
from .process import catalog_folder, process
from .tree import packages_under

USAGE = """usage: krmfn prepare-all ROOT [--catalog DIR] [--max-iterations N] [--jobs N]
                         [--shard K/N] [--check] [--no-wait] [--no-lock] [-o table|json|yaml]
                         [-q | -v]

Prepare every deployment package under ROOT (a folder whose Kptfile pipeline runs
krmfn-preparer, or that holds a Deployment resource), children before parents, in passes until
no package changes. The catalog (default ROOT/catalog) is read once, skipped as a package, and
overrides each package's spec.catalog. Prints one row per deployment: ID, TEMPLATE, SITE,
PREPARED, APPROVED and, for a package not prepared, REASON (what it waits for, or the error).
Progress goes to stderr, one line a package.

  --catalog DIR         the template and site catalog (default ROOT/catalog when it exists)
  --max-iterations N    the preparer's pass cap inside each package
  --jobs N, -j N        packages prepared side by side (default: the number of cores)
  --shard K/N           prepare only shard K of N (1 <= K <= N): the top-level deployments
                        (those in no other deployment package) whose path under ROOT hashes
                        to K, with everything nested in them; shards may run at once on one
                        tree (each locks its own deployments); finish with --check on ROOT
  --check               change nothing; exit 1 when a package would change or is not prepared
                        (PREPARED and the counts tell each package's state on disk)
  --no-wait             refuse at once when another krmfn command is writing ROOT (default:
                        wait for it, with a message)
  --no-lock             write without the tree's lock where the file system refuses flock
                        (default: refuse to write there); only when no other command writes ROOT
  -o, --output FORMAT   table (default), json or yaml
  -q, --quiet           no progress on stderr
  -v, --verbose         progress with the files each package changed, and per-package seconds

Exit code: 0 when every deployment is prepared (and, with --check, nothing would change), 1
otherwise, 2 for a usage error. A ROOT without a deployment package is an error under --check
and a warning otherwise. Writes are crash-safe (docs/durability.md): every file is replaced
atomically, a new child package appears whole, a package is marked prepared only after what it
points to is on disk, and one command writes a tree at a time; after a kill, running the
command again finishes the job. A package that fails (malformed files, an I/O error, a worker
that died, a folder that cannot be listed) fails alone, with its reason (on stderr too, with -q).
SIGINT, SIGTERM and SIGHUP stop the run with one line and exit 130, 143 and 129; the workers
and plugins stop with it, and whatever ends the command, nothing of it is left running. Files
named by a config (the catalog, preparer configs, exec plugins) are read inside ROOT or the
package tree; KRMFN_ALLOW_READ=DIR allows more. Nothing is written outside ROOT.
"""

WAITING = "waiting"


class Outcome:
    """What preparing one package did (made in a worker process, pickled back)."""

    __slots__ = (
        "approved",
        "changed",
        "errors",
        "found",
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
        self.found = False  # it holds a Deployment resource with its templateId

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
    problem: str = ""  # the package cannot be read as one (its Kptfile): the error to report
    # packages known to hold no Deployment: a child a Placement lists among them is half-made
    empty: frozenset[Path] = frozenset()


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
    # A Deployment as create or a Placement makes it (with its templateId): a child listed by
    # a Placement without one was half made (a kill of an older version), see _missing_children.
    outcome.found = deployment is not None and outcome.template != "-"


def prepare_package(task: Task) -> Outcome:
    """Prepare one package in-process and write back what changed (with ``check``: only tell).
    Every failure is the package's error (an I/O error names the file), never the run's."""
    start = time.perf_counter()
    outcome = Outcome(relative(task.root, task.folder))
    try:
        if task.problem:
            raise KrmError(task.problem)
        # A look at the Deployment first: most packages of a rerun are prepared already.
        own = read_package(task.folder, subpackages=False, annotate=False, tree=True)
        _describe(outcome, find_deployment(own))
        missing = _missing_children(task, own)
        if outcome.prepared and not missing:
            outcome.ran = False
            return outcome
        _prepare(task, outcome, missing)
    except KrmError as exc:
        outcome.errors = [str(exc)]
    except OSError as exc:
        where = exc.filename or task.folder
        outcome.errors = [f"cannot read or write {where}: {exc.strerror or exc}"]
    except Exception as exc:  # a bug: this package's error, the others go on
        outcome.errors = [internal_error(exc)]
    finally:
        outcome.errors = [_readable(e) for e in outcome.errors]
        outcome.seconds = time.perf_counter() - start
        if not outcome.prepared:
            outcome.reason = _reason(outcome)
    return outcome


_REPR = re.compile(r"<KubeObject \S+ (\S+) ([^>]*)>")


def _readable(message: str) -> str:
    """An error for a person: an item named ``Kind/name``, never as Python shows it."""
    return _REPR.sub(lambda m: f"{m.group(1)}/{m.group(2)}", message)


def _missing_children(task: Task, own: list[KubeObject]) -> list[str]:
    """The child folders the package's Placements list that are not complete on disk: no
    Kptfile (a kill before they were made, by an older version), or no Deployment (half made)."""
    missing = []
    for obj in own:
        if not obj.is_kind(TOPOLOGY, "Placement") or not obj.may_mention("deployments"):
            continue
        status = obj.to_dict().get("status")
        records = status.get("deployments") if isinstance(status, dict) else None
        for record in records if isinstance(records, list) else []:
            folder = record.get("folder") if isinstance(record, dict) else None
            if not isinstance(folder, str) or not folder:
                continue
            child = task.folder / folder
            if child in task.empty or not (child / "Kptfile").is_file():
                missing.append(folder)
    return list(dict.fromkeys(missing))


def _repair(pkg: Package, missing: Sequence[str]) -> None:
    """Make the package prepare its missing or half-made children again: their files are left
    out (rewritten whole by the Placement) and the marks that say they are done are taken off
    the Placements listing them and the Deployment (approval is kept)."""
    view = PackageView.of(pkg.items)
    prefixes = tuple(f"{folder}/" for folder in missing)
    pkg.items[:] = [o for o in pkg.items if not view.file_of(o).startswith(prefixes)]
    for obj in view.own(Items(pkg.items)):
        placement = obj.is_kind(TOPOLOGY, "Placement")
        if (placement or find_deployment([obj]) is obj) and PREPARED in obj.annotations:
            del obj.annotations[PREPARED]


def _prepare(task: Task, outcome: Outcome, missing: Sequence[str] = ()) -> None:
    pkg = Package.read(task.folder, package_path=True, tree=True)
    if missing:
        _repair(pkg, missing)
    config = package_config(pkg, task.catalog, task.max_iterations)
    rl = ResourceList(items=Items(pkg.items))
    with containers_allowed(), catalog_read_only() if task.check else contextlib.nullcontext():
        process(rl, config)
    results = rl.results.sorted()
    outcome.errors = [r.message for r in results if r.severity == "error"]
    waits = [r.message for r in results if r.severity == "info" and WAITING in r.message]
    if outcome.errors:
        return  # nothing written: the package stays as it was
    deployment = find_deployment(PackageView.of(rl.items).own(rl.items))
    # The Deployment's file says "prepared": it is written after every other file.
    last = [pkg.file_of(deployment)] if deployment is not None else []
    outcome.changed = pkg.write(rl.items, dry_run=task.check, last=last)
    if not task.check:  # --check tells the state on disk (read before), and what would change
        _describe(outcome, deployment)
    elif deployment is not None and is_prepared(deployment) and not outcome.prepared:
        outcome.reason = "a run would prepare it"
    if deployment is None or not is_prepared(deployment):
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


def deployment_packages(root: Path, skip: Path | None) -> list[tuple[Path, str]]:
    """The deployment packages under ``root`` (:func:`krmfn.tko.is_deployment_package`),
    children first, each with the problem that keeps it from being read (``""`` for none): a
    package whose Kptfile cannot be read is listed with its error, to fail alone."""
    out = []
    unlistable: list[tuple[Path, str]] = []
    for folder in packages_under(root, skip, unlistable):
        try:
            text = read_tree_file(folder / "Kptfile", str(folder / "Kptfile"))
            kptfile = read_documents(text, "Kptfile")
            runs = bool(kptfile) and preparer_step(kptfile[0]) is not None
            if runs or is_deployment_package(
                read_package(folder, subpackages=False, annotate=False, tree=True)
            ):
                out.append((folder, ""))
        except KrmError as exc:
            out.append((folder, str(exc)))
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
            out.append((folder, f"cannot read {folder / 'Kptfile'}: {reason}"))
    # A folder that cannot be listed may hold packages: an error of its own, never left out.
    out.extend((folder, f"cannot list the folder {folder}: {why}") for folder, why in unlistable)
    return out


# --- shards ------------------------------------------------------------------------------------


def parse_shard(text: str) -> tuple[int, int] | None:
    """``K/N`` as (K, N), 1 <= K <= N; None when it is not that."""
    match = re.fullmatch(r"([0-9]+)/([0-9]+)", text)
    if match is None:
        return None
    k, n = int(match.group(1)), int(match.group(2))
    return (k, n) if 1 <= k <= n else None


def shard_of(rel: str, count: int) -> int:
    """The shard (1..count) of a top-level deployment at ``rel`` (its path under ROOT, ``/``
    separated): from the path alone (SHA-256, the same on every machine and Python), so each
    shard decides alone, and a deployment added to the tree moves no other one."""
    import hashlib  # prepare-all --shard only: not a start-up import

    digest = hashlib.sha256(rel.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def top_level(folders: Sequence[Path]) -> list[Path]:
    """The folders no other of ``folders`` contains, in path order."""
    known = set(folders)
    return sorted((f for f in known if not any(a in known for a in f.parents)), key=str)


def shard_deployments(root: Path, skip: Path | None, shard: tuple[int, int]) -> list[Path]:
    """The top-level deployment packages under ``root`` that belong to ``shard`` (K, N). A
    Placement's children are made inside its package, so they stay in their parent's shard."""
    found = [folder for folder, _problem in deployment_packages(root, skip)]
    k, n = shard
    return [f for f in top_level(found) if shard_of(relative(root, f), n) == k]


def _inside(folder: Path, within: Sequence[Path]) -> bool:
    return any(folder == w or w in folder.parents for w in within)


@contextlib.contextmanager
def shard_lock(
    root: Path,
    skip: Path | None,
    shard: tuple[int, int],
    on_wait: Callable[[], None],
    lock: dict[str, bool],
    half_made: list[str],
) -> Iterator[list[Path]]:
    """A shard's locks, yielding its top-level deployments. ROOT is locked shared (a run of the
    whole tree, which locks it exclusively, excludes every shard; shards do not exclude each
    other), then each of the shard's deployments exclusively (shared under --check), in path
    order: two runs whose shards overlap (another N, the same K twice) wait for each other and
    never deadlock. A killed run's leftovers are finished in the shard's own deployments only
    (another shard's files being written look the same); under --check their half-made folders
    are listed in ``half_made``."""
    exclusive, wait, use = lock["exclusive"], lock["wait"], lock["lock"]
    with contextlib.ExitStack() as stack:
        with contextlib.ExitStack() as shared:
            shared.enter_context(
                tree_lock(root, exclusive=False, wait=wait, on_wait=on_wait, lock=use)
            )
            owned = shard_deployments(root, skip, shard)
            if root not in owned:
                stack.enter_context(shared.pop_all())  # held until the shard ends
        # ROOT itself the one deployment: locked as a whole-tree run locks it (a second lock
        # of ROOT, exclusive beside our shared one, would wait for ourselves)
        for folder in owned:
            stack.enter_context(
                tree_lock(folder, exclusive=exclusive, wait=wait, on_wait=on_wait, lock=use)
            )
        for folder in owned:
            if exclusive:
                remove_leftovers(folder)
            else:
                half_made.extend(relative(root, Path(f)) for f in unfinished_folders(folder))
        yield owned


def fingerprint(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """The package's files (subpackages included) by name, size and modification time, under
    krmlib's tree rules (``walk_tree``: no links, no hidden entries; a folder that cannot be
    listed is left to the next read, which names it)."""
    found = []
    for current, _dirs, files in walk_tree(folder, unlistable=[]):
        for name in files:
            try:
                info = os.lstat(current / name)
            except OSError:
                continue
            found.append((os.fspath(current / name), info.st_size, info.st_mtime_ns))
    return tuple(sorted(found))


class Progress:
    """One line on stderr per package: pass, count, elapsed, the package and what happened."""

    def __init__(self, level: int, start: float, check: bool) -> None:
        self.level = level
        self.start = start
        self.verb = "would change" if check else "changed"

    def say(self, text: str) -> None:
        if self.level > 0 and not _tell(text):
            self.level = 0  # stderr refuses (closed, full): the run goes on without progress

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
    if jobs <= 1 or len(tasks) <= 1 or not fork_safe():  # workers fork: one thread only
        for task in tasks:
            outcome = prepare_package(task)
            report(outcome)
            yield outcome
        return
    waiting = list(tasks)
    while waiting:  # a new pool after a worker died: the packages left go on
        running: dict[Future[Outcome], Task] = {}
        broken = False
        pool = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=get_context("fork"),
            initializer=_worker_start,
            initargs=(os.getpid(),),
        )
        try:
            while (waiting or running) and not broken:
                blocked: list[str] = []
                for task in list(waiting):
                    if len(running) >= jobs:
                        break
                    key = str(task.folder)
                    busy = [*(str(t.folder) for t in running.values()), *blocked]
                    if any(_related(key, other) for other in busy):
                        blocked.append(key)
                        continue
                    waiting.remove(task)
                    try:
                        running[pool.submit(prepare_package, task)] = task
                    except OSError as exc:  # no process could be started (fork refused)
                        why = exc.strerror or str(exc)
                        raise KrmError(f"cannot start the worker processes: {why}") from None
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    task = running.pop(future)
                    try:
                        outcome = future.result()
                    except BrokenProcessPool:
                        broken = True
                        outcome = _died(task)
                    report(outcome)
                    yield outcome
            for task in running.values() if broken else ():
                outcome = _died(task)
                report(outcome)
                yield outcome
        except BaseException:  # a signal, an error starting the pool, the caller stopped
            _stop(pool)
            raise
        pool.shutdown()


def _worker_start(parent: int) -> None:
    """In each worker: killed when prepare-all ends, whatever ends it (a worker left waiting on
    the pool's queue would never end), the tree's lock closed (krmlib closes it in every fork),
    and the signals left to prepare-all, which stops the pool. A signal prepare-all started with
    ignored (``nohup``) stays ignored here."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group: prepare-all stops us
    for name in ("SIGTERM", "SIGHUP"):
        if signal.getsignal(getattr(signal, name)) is not signal.SIG_IGN:
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    die_with_parent(parent)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop the pool now: its workers killed (each file they were writing is old or new; their
    plugins die with them), the packages not started dropped."""
    processes: Any = getattr(pool, "_processes", None) or {}
    for worker in list(processes.values()):
        with contextlib.suppress(Exception):
            worker.kill()
    pool.shutdown(wait=True, cancel_futures=True)


def _died(task: Task) -> Outcome:
    """A package whose worker process died (killed, out of memory): its files are each old or
    new; a rerun prepares it."""
    outcome = Outcome(relative(task.root, task.folder))
    outcome.errors = [
        "the worker process preparing it died (killed or crashed, this package's or one beside "
        "it); each file is old or new; run prepare-all again"
    ]
    outcome.reason = _reason(outcome)
    return outcome


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
    within: Sequence[Path] | None = None,
) -> tuple[list[Outcome], Summary]:
    """The passes over the tree (the caller holds the tree's lock); with ``within`` (a shard's
    top-level deployments, the caller holding their locks) only the packages in them."""
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
    empty: frozenset[Path] = frozenset()
    for number in range(1, cap + 1):
        found = deployment_packages(root, skip)
        if within is not None:
            found = [(f, why) for f, why in found if _inside(f, within)]
        folders = [f for f, _problem in found]
        problems = dict(found)
        todo = [f for f in folders if check or seen.get(f) != fingerprint(f)]
        tasks = [Task(root, f, catalog, max_iterations, check, problems[f], empty) for f in todo]
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
        # Packages without a made Deployment: if a parent lists one as its child, it is half
        # made (an older version killed mid-run); the parents look again in the next pass.
        now = frozenset(f for f, o in last.items() if not o.found and not o.errors)
        known = set(folders)
        again = {a for f in now - empty for a in f.parents if a in known}
        empty = now
        for folder in again:
            seen.pop(folder, None)
        if (changed == 0 and not again) or check:
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
    parser.add_argument("--shard")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--no-wait", action="store_true", dest="no_wait")
    parser.add_argument("--no-lock", action="store_true", dest="no_lock")
    parser.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table")
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("root", nargs="?")
    return parser


def main(argv: list[str]) -> int:
    opts = command_options("prepare-all", _parser(), argv, USAGE)
    if isinstance(opts, int):
        return opts
    problem = _usage_problem(opts)
    if problem:
        sys.stderr.write(f"krmfn prepare-all: {problem}\n")
        return 2
    root = Path(opts.root).resolve()
    catalog = Path(opts.catalog).resolve() if opts.catalog else root / "catalog"
    given = catalog if catalog.is_dir() else None
    verbosity = 0 if opts.quiet else (2 if opts.verbose else 1)
    allowed = [root] if given is None else [root, given]

    def waiting() -> None:
        _tell(lock_wait_note("prepare-all", root))

    lock = {"exclusive": not opts.check, "wait": not opts.no_wait, "lock": not opts.no_lock}
    half_made: list[str] = []
    shard = parse_shard(opts.shard) if opts.shard is not None else None
    skip = given.resolve() if given is not None else None
    try:
        # One writer per tree; --check only reads (shared: it waits for a writer to finish).
        with (
            tree_lock(root, on_wait=waiting, **lock)
            if shard is None
            else shard_lock(root, skip, shard, waiting, lock, half_made)
        ) as within:
            # a shard's leftovers and half-made folders: shard_lock, in its deployments only
            if shard is None and not opts.check:
                remove_leftovers(root)  # what a killed run left: finished or removed
            elif shard is None:  # a folder a killed run put in place but did not finish
                half_made = _half_made(root, given)
            with command_read_root(*allowed), cached_catalogs():
                outcomes, summary = prepare_all(
                    root,
                    given,
                    opts.max_iterations,
                    jobs=max(1, opts.jobs),
                    check=opts.check,
                    verbosity=verbosity,
                    within=within,
                )
    except KrmError as exc:
        return _fail(str(exc), opts.output)
    except OSError as exc:
        return _fail(f"{exc.filename or root}: {exc.strerror or exc}", opts.output)
    sys.stdout.write(render(outcomes, summary, opts.output, opts.verbose))
    if verbosity > 0 or opts.check:
        _tell(summary_line(summary) + (f" (shard {opts.shard})" if shard is not None else ""))
    for outcome in [o for o in outcomes if o.errors] if verbosity == 0 else []:
        _tell(f"krmfn prepare-all: {outcome.id}: error: {'; '.join(outcome.errors)}")
    if verbosity == 0 and not summary.converged:
        _tell(f"krmfn prepare-all: error: still changing after {summary.passes} passes")
    for folder in half_made:
        _tell(
            f"prepare-all --check: {folder} is half made (a killed run put it in place with "
            "files still pending); prepare-all finishes it"
        )
    if not outcomes and shard is not None:  # a shard may hold no deployment: not an error
        if verbosity > 0:
            _tell(f"krmfn prepare-all: shard {opts.shard}: no top-level deployment of it")
    elif not outcomes:
        severity = "error" if opts.check else "warning"
        _tell(f"krmfn prepare-all: {severity}: no deployment package under {root}")
        if opts.check:
            return 1
    bad = [o for o in outcomes if not o.prepared or o.errors or (opts.check and o.changed)]
    if opts.check and bad and opts.output == "table":
        _tell("prepare-all --check: not clean: " + ", ".join(o.id for o in bad))
    return 1 if bad or half_made or not summary.converged else 0


def _tell(text: str) -> bool:
    """A line on stderr; False when stderr refuses it (closed, full): never the run's end."""
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        return False
    return True


def _half_made(root: Path, catalog: Path | None) -> list[str]:
    """The folders under ``root`` (and the catalog, a provisioned site included) that a killed
    run published with files still under pending names, relative to ``root``."""
    found: list[Path] = []
    for place in dict.fromkeys([root, *([catalog] if catalog is not None else [])]):
        found.extend(Path(f) for f in unfinished_folders(place) if Path(f) not in found)
    return [relative(root, f) if f.is_relative_to(root) else str(f) for f in found]


def _fail(message: str, form: str) -> int:
    """The run could not be done (the lock, an I/O error outside any package): one message on
    stderr, and with ``-o json``/``yaml`` a document saying so on stdout."""
    _tell(f"krmfn prepare-all: error: {message}")
    if form != "table":
        doc: dict[str, Any] = {"packages": [], "summary": None, "error": message}
        if form == "json":
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        else:
            import yaml

            sys.stdout.write(str(yaml.safe_dump(doc, sort_keys=False)))
    return 1


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
    if opts.shard is not None and parse_shard(opts.shard) is None:
        return f"--shard takes K/N with 1 <= K <= N (1/4 to 4/4), not {opts.shard}"
    return ""
