"""The benchmark: every krmfn function against kpt's own cost on generated packages.

``python bench/run.py`` (what ``make bench`` runs) generates (or reuses) the packages of
``bench/generate.py``, measures, prints one Markdown report and writes it to ``bench/RESULTS.md``.
See ``bench/README.md`` for what each row means. Missing a target is reported, not an error: the
exit code is 0 unless the harness itself cannot run (no kpt, a baseline failing).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
if str(ROOT) not in sys.path:  # `python bench/run.py` puts bench/, not the repository, on the path
    sys.path.insert(0, str(ROOT))

from bench import generate  # noqa: E402

CONFIGS = BENCH_DIR / "configs"
FNS = BENCH_DIR / "fns"
BIN = Path(sys.executable).parent
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
DEFAULT_SIZES = (1000, 10000, 50000)
QUICK_SIZES = (1000, 10000)
TARGET_SIZE = 10000
SCALE_FROM, SCALE_TO = 10000, 50000

# Targets of ../shared/spec/performance.md (issue 8), tightened by issues 17 and 37: in CPU time
# (user + sys of the function and the children it waited for: the forked input check) against
# `kpt fn source` run with GOMAXPROCS=1, the minimum of the alternating runs; 5x the
# ResourceList's size at 10k and lower at 50k.
MAX_TIME_RATIO = 0.35
MAX_TIME_RATIOS = {"merger": 0.25, "topology-to-pvs": 0.25, "applyset-labeler": 0.25}
MAX_MEMORY_RATIO = 5.0
MAX_STARTUP_CPU_MS = 30.0  # CPU of a 1-item run over `python -c pass` (issue 37)
KPT_ENV = {"GOMAXPROCS": "1"}  # kpt (Go) on one thread: no CPU spent spinning on a busy machine
# Start-up over `cat` (issue 17.3): with no config or a ConfigMap, and when a typed config is
# validated (issue 17.3 allowed a heavier validator for it).
MAX_STARTUP_MS = 60.0
MAX_STARTUP_TYPED_MS = 100.0
MAX_SCALING = 5.5
MAX_IMAGE_MB = 80.0  # issue 17.5, each image (uncompressed, as the container tool reports it)
# The section bench/scaling.py writes (T(100k)/T(10k) per function, issue 37 item 5)
SCALING_BLOCK = re.compile(r"<!-- scaling: begin.*?<!-- scaling: end -->\n?", re.DOTALL)

FUNCTIONS = (
    "interface-expander",
    "topology-to-pvs",
    "applyset-labeler",
    "merger",
    "preparer",
    "nad-generator",
)
# Measured for start-up only (`--sizes '' --functions ...`): their sized packages are
# bench/specializer_cpu.py's, not generate.py's mixed one.
STARTUP_ONLY = ("dnn-generator", "nfdeploy", "ipam-allocator")
# Reference functions on krmlib alone (bench/fns): the library's floor under the functions.
REFERENCES = {
    "noop": "krmlib_noop.py",
    "read-interfaces": "krmlib_read_interfaces.py",
    "label-all": "krmlib_label_all.py",
}
DEFAULT_REFERENCES = ("noop", "read-interfaces")
# Functions measured on a package of another shape (bench/generate.py --shape), against that
# package's own `kpt fn source` and size: nad-generator needs a specialized package (issue 26).
# The first shape is the one its targets are judged on; the others are reported (a row
# "<function> (<shape>)") without a target.
SHAPES = {"nad-generator": ("nephio", "nephio-dense")}
EVAL_SUFFIX = " (kpt fn eval)"
TIMED_OUT = -9


@dataclass
class Sample:
    seconds: float
    peak_bytes: int
    returncode: int
    stderr: str = ""
    cpu_seconds: float = 0.0  # user + system of the command and the processes it waited for


@dataclass
class Row:
    size: int
    what: str
    samples: list[Sample] = field(default_factory=list)
    note: str = ""
    # time / the time of a `kpt fn source` run just before it (alternating runs: the load of a
    # shared machine changes between minutes, not between neighbouring runs)
    paired: list[float] = field(default_factory=list)
    rl_bytes: int = 0  # the size of its input when not the size's package (SHAPES)

    @property
    def ratio(self) -> float | None:
        """CPU over the CPU of the kpt fn source run just before, the minimum of the pairs
        (sharing a machine only adds CPU): the verdict's figure."""
        return min(self.paired) if self.paired else None

    @property
    def ratio_median(self) -> float | None:
        return statistics.median(self.paired) if self.paired else None

    @property
    def ok(self) -> bool:
        return bool(self.samples) and all(s.returncode == 0 for s in self.samples)

    @property
    def timed_out(self) -> bool:
        return any(s.returncode == TIMED_OUT for s in self.samples)

    @property
    def seconds(self) -> float:
        return statistics.median(s.seconds for s in self.samples)

    @property
    def cpu_seconds(self) -> float:
        return statistics.median(s.cpu_seconds for s in self.samples)

    @property
    def cpu_min(self) -> float:
        return min(s.cpu_seconds for s in self.samples)

    @property
    def peak_mb(self) -> float:
        return statistics.median(s.peak_bytes for s in self.samples) / 1e6


@dataclass
class Function:
    """Something measured like a function: a command that filters a ResourceList."""

    name: str
    command: list[str]
    config: Path | None
    reference: bool = False

    @property
    def exec_arg(self) -> str:
        return shlex.join(self.command)


@dataclass
class Startup:
    name: str
    eval_seconds: float = 0.0
    over_cat_ms: float = 0.0  # wall: the median of the rounds' differences with cat
    import_ms: float = 0.0
    cpu_over_python_ms: float = float("nan")  # CPU of a 1-item run minus `python -c pass`'s
    top_imports: list[tuple[str, float]] = field(default_factory=list)
    note: str = ""
    # CPU (kpt's process and its children, user + sys) over `kpt fn eval --exec cat`'s: the
    # minimum over the rounds of each, one minus the other (sharing a machine only adds CPU):
    # the verdict's figure (issue 37)
    over_cat_cpu_ms: float = float("nan")
    over_cat_quiet_ms: float = float("nan")  # wall, the median over the quietest rounds


@dataclass
class Report:
    sizes: list[int]
    reps: int
    rows: list[Row] = field(default_factory=list)
    rl_bytes: dict[int, int] = field(default_factory=dict)
    startups: list[Startup] = field(default_factory=list)
    not_built: list[str] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    python_pass_ms: float = 0.0
    python_pass_cpu_ms: float = 0.0
    cat_eval_seconds: float = 0.0
    cat_eval_cpu_ms: float = 0.0  # the minimum over the start-up rounds
    quiet_rounds: int = 0  # the rounds whose cat ran fastest (wall): a third of them
    startup_reps: int = 0
    bytecode: str = ""  # how the measured packages had their bytecode (start-up)
    images: dict[str, float | None] = field(default_factory=dict)  # function -> MB

    def find(self, size: int, what: str) -> Row | None:
        return next((r for r in self.rows if r.size == size and r.what == what), None)


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


# Measuring ------------------------------------------------------------------------------------


def measure(
    command: Sequence[str],
    stdin: Path | None = None,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
) -> Sample:
    """Wall time and peak RSS of one run.

    Peak RSS comes from wait4, through GNU time when it is installed: a child forked from this
    Python process would otherwise inherit its high-water mark across exec. For a command that
    starts others (kpt) it is the largest single process of the tree, not their sum.
    """
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r", suffix=".rss") as rss,
    ):
        wrapped = list(command)
        if command[0] == "kpt":
            env = {**(env if env is not None else os.environ), **KPT_ENV}
        if TIME is not None:
            wrapped = [TIME, "-f", "%M", "-o", rss.name, "--", *wrapped]
        source = stdin.open("rb") if stdin is not None else None
        try:
            start = time.perf_counter()
            proc = subprocess.Popen(
                wrapped,
                stdin=source if source is not None else subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=env,
                start_new_session=True,
            )
            killer = threading.Timer(timeout, _kill_group, (proc.pid,))
            killer.start()
            _, status, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - start
            killer.cancel()
            proc.returncode = os.waitstatus_to_exitcode(status)
        finally:
            if source is not None:
                source.close()
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
        peak = usage.ru_maxrss * 1024
        if TIME is not None:
            lines = rss.read().split()
            peak = int(lines[-1]) * 1024 if lines and lines[-1].isdigit() else 0
    cpu = usage.ru_utime + usage.ru_stime
    if seconds >= timeout:
        return Sample(seconds, peak, TIMED_OUT, f"timed out after {timeout:.0f} s", cpu)
    return Sample(seconds, peak, proc.returncode, text, cpu)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def repeat(
    row: Row,
    command: Sequence[str],
    stdin: Path | None,
    args: argparse.Namespace,
    *,
    prepare: Path | None = None,
    package: Path | None = None,
    pair: Sequence[str] | None = None,
) -> Row:
    """Run ``command`` ``args.reps`` times into ``row`` (once when a run is slower than --slow).

    With ``prepare``/``package``, ``package`` is a fresh copy of ``prepare`` before each run
    (kpt fn eval writes its output back into the package); the copy is not timed. With ``pair``
    (the baseline's command), the baseline runs just before each run (alternating rounds) and the
    row keeps the CPU ratio of each pair.
    """
    for rep in range(args.reps):
        if prepare is not None and package is not None:
            if package.exists():
                shutil.rmtree(package)
            shutil.copytree(prepare, package)
        reference = measure(pair, None, timeout=args.timeout) if pair else None
        sample = measure(command, stdin, timeout=args.timeout)
        row.samples.append(sample)
        status = "" if sample.returncode == 0 else f" (exit {sample.returncode})"
        paired = ""
        if reference is not None and reference.returncode == 0 and reference.cpu_seconds > 0:
            row.paired.append(sample.cpu_seconds / reference.cpu_seconds)
            paired = f" ({row.paired[-1]:.2f}x the CPU of the kpt fn source run before it)"
        log(
            f"  [{row.size}] {row.what}: {sample.cpu_seconds:.3f} s CPU, {sample.seconds:.3f} s "
            f"wall, {sample.peak_bytes / 1e6:.0f} MB{status}{paired}"
        )
        if sample.returncode != 0:
            row.note = f"exit {sample.returncode}: {_last_line(sample.stderr)}"
            break
        if sample.seconds > args.slow and rep == 0:
            row.note = f"1 run (slower than {args.slow:.0f} s)"
            break
    return row


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[-1] if lines else "no stderr")[:120].replace("|", "\\|")


# Setup ----------------------------------------------------------------------------------------


def is_built(command: Sequence[str]) -> tuple[bool, str]:
    """A function is built when ``--help`` exits 0 and does not say "not built yet"."""
    try:
        done = subprocess.run(
            [*command, "--help"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    said = done.stdout + done.stderr
    if done.returncode != 0 or "not built yet" in said:
        return False, _last_line(said)
    return True, ""


def find_functions(args: argparse.Namespace, report: Report) -> list[Function]:
    found: list[Function] = []
    for name in args.functions:
        config = CONFIGS / f"{name}.yaml"
        fn = Function(name, [str(BIN / f"krmfn-{name}")], config if config.is_file() else None)
        built, why = is_built(fn.command)
        if built:
            found.append(fn)
        else:
            report.not_built.append(name)
            log(f"{name}: not built ({why})")
    for name in args.reference:
        command = [sys.executable, str(FNS / REFERENCES[name])]
        found.append(Function(f"krmlib {name}", command, None, reference=True))
    return found


def with_config(rl: Path, config: Path | None, out: Path) -> Path:
    """The ResourceList with ``config`` as functionConfig, as kpt fn eval appends it."""
    if config is None:
        return rl
    body = "".join(
        f"  {line}" if line.strip() else line
        for line in config.read_text().splitlines(keepends=True)
        if not line.startswith("#")
    )
    if not out.is_file() or out.stat().st_mtime < max(rl.stat().st_mtime, config.stat().st_mtime):
        with out.open("w", encoding="utf-8") as sink, rl.open(encoding="utf-8") as source:
            shutil.copyfileobj(source, sink)
            sink.write("functionConfig:\n" + body)
    return out


def eval_command(fn: Function | None, package: Path) -> list[str]:
    command = ["kpt", "fn", "eval", "--exec", fn.exec_arg if fn else "cat"]
    if fn is not None and fn.config is not None:
        command += ["--fn-config", str(fn.config)]
    return [*command, str(package)]


# The runs -------------------------------------------------------------------------------------


def predicted_too_slow(report: Report, size: int, what: str, timeout: float) -> str:
    """Why not to run ``what`` at ``size``: it timed out, or would, at the last size below; or,
    under kpt, the function alone timed out at this size."""
    alone = report.find(size, what.removesuffix(EVAL_SUFFIX))
    if what.endswith(EVAL_SUFFIX) and alone and alone.timed_out:
        return "skipped: the function alone timed out"
    smaller = [r for r in report.rows if r.what == what and r.size < size and r.samples]
    if not smaller:
        return ""
    last = max(smaller, key=lambda r: r.size)
    if last.timed_out:
        return f"skipped: timed out at {last.size:,}"
    predicted = last.seconds * size / last.size
    if last.ok and predicted > timeout:
        return f"skipped: {last.seconds:.0f} s at {last.size:,} predicts {predicted:.0f} s"
    return ""


def bench_size(size: int, args: argparse.Namespace, report: Report, work: Path) -> None:
    log(f"size {size}: generating")
    target = generate.generate(size)
    pkg, rl = target / generate.PKG_NAME, target / generate.RL_NAME
    report.rl_bytes[size] = rl.stat().st_size
    copy = work / "pkg"

    source = ["kpt", "fn", "source", str(pkg)]

    def add(
        what: str,
        command: Sequence[str],
        stdin: Path | None,
        under_kpt: bool,
        paired: bool = False,
        shaped: Path | None = None,  # the target of another shape (SHAPES)
    ) -> Row:
        row = Row(size, what)
        report.rows.append(row)
        row.note = predicted_too_slow(report, size, what, args.timeout)
        if shaped is not None:
            row.rl_bytes = (shaped / generate.RL_NAME).stat().st_size
        if row.note:
            log(f"  [{size}] {what}: {row.note}")
            return row
        prepare = pkg if shaped is None else shaped / generate.PKG_NAME
        if under_kpt:
            return repeat(row, command, stdin, args, prepare=prepare, package=copy)
        pair = ["kpt", "fn", "source", str(prepare)] if paired else None
        return repeat(row, command, stdin, args, pair=pair)

    base = add("kpt fn source", source, None, False)
    if not base.ok:
        raise SystemExit(f"kpt fn source failed: {base.note}")
    add("cat ResourceList", ["cat", str(rl)], None, False)
    add("kpt fn eval --exec cat", eval_command(None, copy), None, True)
    for fn in report.functions:
        shapes = SHAPES.get(fn.name)
        if shapes is not None:
            for number, shape in enumerate(shapes):
                shaped = generate.generate(size, shape=shape)
                what = f"kpt fn source ({shape})"
                if report.find(size, what) is None:
                    add(
                        what,
                        ["kpt", "fn", "source", str(shaped / generate.PKG_NAME)],
                        None,
                        False,
                        shaped=shaped,
                    )
                name = fn.name if number == 0 else f"{fn.name} ({shape})"
                fn_rl = with_config(
                    shaped / generate.RL_NAME, fn.config, shaped / f"rl-{fn.name}.yaml"
                )
                add(name, fn.command, fn_rl, False, paired=True, shaped=shaped)
                if args.eval and number == 0:
                    add(fn.name + EVAL_SUFFIX, eval_command(fn, copy), None, True, shaped=shaped)
            continue
        fn_rl = with_config(rl, fn.config, target / f"rl-{fn.name}.yaml")
        add(fn.name, fn.command, fn_rl, False, paired=args.paired)
        if args.eval and not fn.reference:
            add(fn.name + EVAL_SUFFIX, eval_command(fn, copy), None, True)


IMPORT_LINE = re.compile(r"^import time:\s*(\d+)\s*\|\s*(\d+)\s*\|( *)(\S+)")


def parse_importtime(stderr: str) -> tuple[float, list[tuple[str, float]]]:
    """From ``-X importtime`` output: total ms, and ms per top-level package (self times summed,
    so ``yaml`` is what PyYAML's own modules cost, whoever imported them), largest first."""
    total = 0.0
    per_package: dict[str, float] = {}
    for line in stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if match is None:
            continue
        self_ms = int(match.group(1)) / 1000
        total += self_ms
        package = match.group(4).split(".")[0]
        per_package[package] = per_package.get(package, 0.0) + self_ms
    return total, sorted(per_package.items(), key=lambda pair: (-pair[1], pair[0]))


_WHERE_IMPORTED = (
    "import importlib.util as u\n"
    "for n in ('krmlib', 'krmfn'):\n"
    "    print(*u.find_spec(n).submodule_search_locations)\n"
)


def ensure_bytecode() -> str:
    """Compile krmlib and krmfn where they are imported from, as a wheel install and the images
    have them (an editable install under PYTHONDONTWRITEBYTECODE has no .pyc: every run would
    compile them from source, ~45 ms of CPU). What it did, for the report."""
    import compileall

    # Where the console scripts import them from (not this process's path: it has the sources).
    where = subprocess.run(
        [sys.executable, "-c", _WHERE_IMPORTED],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        check=False,
    )
    folders = where.stdout.split()
    if where.returncode or not folders:
        return "unknown (krmlib/krmfn not found)"
    before = {f: len(list(Path(f).rglob("*.pyc"))) for f in folders}
    ok = all(compileall.compile_dir(f, quiet=1) for f in folders)
    made = sum(len(list(Path(f).rglob("*.pyc"))) - before[f] for f in folders)
    if not ok:
        return "no (compileall failed: imports compile from source)"
    return f"yes ({made} .pyc written first)" if made else "yes (already compiled)"


def bench_startup(args: argparse.Namespace, report: Report, work: Path) -> None:
    """Each function and ``cat`` under ``kpt fn eval --exec`` on a one-resource package, in
    alternating rounds (every command once per round, in a rotated order); a function's figure is
    the median over the rounds of its time minus the time of ``cat`` in the same round, so a load
    that changes between minutes on a shared machine falls out of the difference."""
    log("start-up: 1-resource package")
    report.bytecode = ensure_bytecode()
    report.startup_reps = args.startup_reps
    target = generate.generate(1)
    pkg, rl = target / generate.PKG_NAME, target / generate.RL_NAME
    copy = work / "pkg"
    reps = argparse.Namespace(**{**vars(args), "reps": args.startup_reps})
    python = repeat(Row(1, "python -c pass"), [sys.executable, "-c", "pass"], None, reps)
    report.python_pass_ms = python.seconds * 1000
    commands: list[tuple[Function | None, Row]] = [(None, Row(1, "kpt fn eval --exec cat"))]
    commands += [(fn, Row(1, fn.name + EVAL_SUFFIX)) for fn in report.functions]
    over: dict[str, list[float]] = {fn.name: [] for fn in report.functions}
    rounds: list[dict[str, Sample]] = []  # each round's samples, by name ("cat" for cat)
    for round_ in range(args.startup_reps):
        turn = round_ % len(commands)
        times: dict[str, float] = {}
        rounds.append({})
        for fn, row in commands[turn:] + commands[:turn]:
            if row.note:
                continue
            if copy.exists():
                shutil.rmtree(copy)
            shutil.copytree(pkg, copy)
            sample = measure(eval_command(fn, copy), None, timeout=args.timeout)
            row.samples.append(sample)
            if sample.returncode != 0:
                row.note = f"exit {sample.returncode}: {_last_line(sample.stderr)}"
                continue
            times[fn.name if fn else "cat"] = sample.seconds
            rounds[-1][fn.name if fn else "cat"] = sample
        if "cat" not in times:
            continue
        for name, seconds in times.items():
            if name != "cat":
                over[name].append((seconds - times["cat"]) * 1000)
        log(
            f"  [start-up round {round_ + 1}] "
            + ", ".join(f"{n} {v * 1000:.0f} ms" for n, v in times.items())
        )
    cat = commands[0][1]
    report.cat_eval_seconds = cat.seconds if cat.samples else 0.0
    with_cat = [r for r in rounds if "cat" in r]
    cat_cpu = [r["cat"].cpu_seconds for r in with_cat]
    report.cat_eval_cpu_ms = min(cat_cpu) * 1000 if cat_cpu else 0.0
    quiet = sorted(with_cat, key=lambda r: r["cat"].seconds)[: max(1, len(with_cat) // 3)]
    report.quiet_rounds = len(quiet) if with_cat else 0
    for fn, row in commands[1:]:
        assert fn is not None
        startup = Startup(fn.name)
        report.startups.append(startup)
        if row.note or not over[fn.name]:
            startup.note = row.note or cat.note or "not measured"
        else:
            startup.eval_seconds = row.seconds
            startup.over_cat_ms = statistics.median(over[fn.name])
            cpu = [r[fn.name].cpu_seconds for r in with_cat if fn.name in r]
            startup.over_cat_cpu_ms = min(cpu) * 1000 - report.cat_eval_cpu_ms
            walls = [(r[fn.name].seconds - r["cat"].seconds) * 1000 for r in quiet if fn.name in r]
            startup.over_cat_quiet_ms = statistics.median(walls) if walls else float("nan")
        fn_rl = with_config(rl, fn.config, target / f"rl-{fn.name}.yaml")
        env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
        sample = measure(fn.command, fn_rl, timeout=args.timeout, env=env)
        startup.import_ms, startup.top_imports = parse_importtime(sample.stderr)
    startup_cpu(args, report, rl, target)


def startup_cpu(args: argparse.Namespace, report: Report, rl: Path, target: Path) -> None:
    """CPU of each function on the 1-item ResourceList over ``python -c pass``: alternating
    rounds (the interpreter, then every function), the minimum of each (issue 37: at most 30 ms)."""
    bare = [sys.executable, "-c", "pass"]
    cpu: dict[str, list[float]] = {"": []}
    for _ in range(args.startup_reps):
        cpu[""].append(measure(bare, None, timeout=args.timeout).cpu_seconds)
        for fn in report.functions:
            fn_rl = with_config(rl, fn.config, target / f"rl-{fn.name}.yaml")
            sample = measure(fn.command, fn_rl, timeout=args.timeout)
            if sample.returncode == 0:
                cpu.setdefault(fn.name, []).append(sample.cpu_seconds)
    report.python_pass_cpu_ms = min(cpu[""]) * 1000
    for startup in report.startups:
        if cpu.get(startup.name):
            startup.cpu_over_python_ms = min(cpu[startup.name]) * 1000 - report.python_pass_cpu_ms


# The report -----------------------------------------------------------------------------------


def machine() -> list[tuple[str, str]]:
    cpu = platform.processor() or platform.machine()
    memory = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024**2:.1f} GiB"
                break
    except OSError:
        pass
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return [
        ("CPU", cpu),
        ("cores", str(os.cpu_count())),
        ("memory", memory or "unknown"),
        ("OS", f"{platform.system()} {platform.release()}"),
        ("Python", platform.python_version()),
        ("kpt", generate.kpt_version()),
        ("commit", commit or "unknown"),
        ("date", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")),
    ]


def fmt_ratio(value: float) -> str:
    return f"{value:.2f}x"


def table(report: Report) -> list[str]:
    lines = [
        "| size | what | CPU s (min) | CPU s (median) | x kpt fn source CPU (min) "
        "| (median) | peak MB | RSS / RL size | wall s (median) | note |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in report.rows:
        base = report.find(row.size, "kpt fn source")
        rl_mb = (row.rl_bytes or report.rl_bytes[row.size]) / 1e6
        if not row.samples:
            lines.append(f"| {row.size:,} | {row.what} | | | | | | | | {row.note} |")
            continue
        ratio, median = cpu_ratios(row, base)
        note = row.note or ("" if row.ok else "failed")
        if row.timed_out:  # killed: the time is a lower bound and the memory unknown
            lines.append(
                f"| {row.size:,} | {row.what} | > {row.cpu_min:.0f} | | > {fmt_ratio(ratio)} "
                f"| | | | > {row.seconds:.0f} | {note} |"
            )
            continue
        memory = row.peak_mb / rl_mb
        lines.append(
            f"| {row.size:,} | {row.what} | {row.cpu_min:.3f} | {row.cpu_seconds:.3f} "
            f"| {fmt_ratio(ratio)} | {fmt_ratio(median)} | {row.peak_mb:.0f} "
            f"| {fmt_ratio(memory)} | {row.seconds:.3f} | {note} |"
        )
    for name in report.not_built:
        lines.append(f"| | {name} | | | | | | | | not built |")
    return lines


def cpu_ratios(row: Row, base: Row | None) -> tuple[float, float]:
    """(min, median) of the row's CPU over kpt fn source's: paired run by run when measured so,
    else the row's minimum (median) over the baseline's minimum (median)."""
    if row.ratio is not None and row.ratio_median is not None:
        return row.ratio, row.ratio_median
    if base is None or not base.ok or not row.samples or base.cpu_min <= 0:
        return float("nan"), float("nan")
    return row.cpu_min / base.cpu_min, row.cpu_seconds / base.cpu_seconds


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def targets(report: Report) -> list[str]:
    lines: list[str] = []
    base = report.find(TARGET_SIZE, "kpt fn source")
    for fn in report.functions:
        label = f"{fn.name} (reference)" if fn.reference else fn.name
        checks: list[str] = []
        row = report.find(TARGET_SIZE, fn.name)
        if row is None or base is None:
            checks.append("time at 10k: not measured")
        elif not row.ok:
            checks.append(f"time at 10k: FAIL ({row.note})")
        else:
            ratio, median = cpu_ratios(row, base)
            limit = MAX_TIME_RATIOS.get(fn.name, MAX_TIME_RATIO)
            checks.append(
                f"CPU at 10k ≤ {limit:.2f}x kpt fn source (GOMAXPROCS=1): "
                f"{verdict(ratio <= limit)} ({fmt_ratio(ratio)}, median {fmt_ratio(median)})"
            )
        memory = {
            r.size: r.peak_mb * 1e6 / (r.rl_bytes or report.rl_bytes[r.size])
            for r in report.rows
            if r.what == fn.name and r.size >= TARGET_SIZE and r.ok
        }
        if TARGET_SIZE in memory:
            at_target = memory[TARGET_SIZE]
            checks.append(
                f"peak RSS ≤ {MAX_MEMORY_RATIO:.0f}x RL size at 10k: "
                f"{verdict(at_target <= MAX_MEMORY_RATIO)} ({fmt_ratio(at_target)})"
            )
            if SCALE_TO in memory:
                at_large = memory[SCALE_TO]
                checks.append(
                    f"lower at 50k: {verdict(at_large < at_target)} ({fmt_ratio(at_large)})"
                )
        else:
            checks.append("peak RSS: not measured at 10k")
        startup = next((s for s in report.startups if s.name == fn.name), None)
        if startup is None:
            checks.append("start-up: not measured")
        elif startup.note:
            checks.append(f"start-up: FAIL ({startup.note})")
        else:
            limit, form = startup_target(fn)
            checks.append(
                f"start-up ≤ {limit:.0f} ms CPU over cat under kpt ({form}): "
                f"{verdict(startup.over_cat_cpu_ms <= limit)} "
                f"({startup.over_cat_cpu_ms:.0f} ms; wall {startup.over_cat_quiet_ms:.0f} ms "
                "on the quietest rounds, not judged)"
            )
            checks.append(
                f"start-up ≤ {MAX_STARTUP_CPU_MS:.0f} ms CPU over python: "
                f"{verdict(startup.cpu_over_python_ms <= MAX_STARTUP_CPU_MS)} "
                f"({startup.cpu_over_python_ms:.0f} ms)"
            )
        small, large = report.find(SCALE_FROM, fn.name), report.find(SCALE_TO, fn.name)
        if small is None or large is None or not (small.ok and large.ok) or small.cpu_min <= 0:
            checks.append("scaling 50k/10k: not measured")
        else:
            scale = large.cpu_min / small.cpu_min
            checks.append(
                f"CPU(50k)/CPU(10k) ≤ {MAX_SCALING}: {verdict(scale <= MAX_SCALING)} ({scale:.2f})"
            )
        lines.append(f"- **{label}**: " + "; ".join(checks))
    for name in report.not_built:
        lines.append(f"- **{name}**: not built (no figures)")
    return lines


def image_sizes(functions: Sequence[str]) -> dict[str, float | None]:
    """Size in MB of each function's image of this version (``make images``), None if absent."""
    from importlib.metadata import version

    __version__ = version("krmfn")
    tool = (
        os.environ.get("KRMFN_CONTAINER_TOOL") or shutil.which("podman") or shutil.which("docker")
    )
    sizes: dict[str, float | None] = {}
    for name in functions:
        sizes[name] = None
        if not tool:
            continue
        done = subprocess.run(
            [
                tool,
                "image",
                "inspect",
                "--format",
                "{{.Size}}",
                f"localhost/krmfn/{name}:v{__version__}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode == 0 and done.stdout.strip().isdigit():
            sizes[name] = int(done.stdout.strip()) / 1e6
    return sizes


def image_lines(report: Report) -> list[str]:
    lines = ["| image | size MB | target | verdict |", "|---|---:|---:|---|"]
    for name, size in report.images.items():
        if size is None:
            lines.append(f"| {name} | | ≤ {MAX_IMAGE_MB:.0f} | not built (`make images`) |")
        else:
            lines.append(
                f"| {name} | {size:.1f} | ≤ {MAX_IMAGE_MB:.0f} | {verdict(size <= MAX_IMAGE_MB)} |"
            )
    lines += [
        "",
        "Layers shared across the five and image-mode overhead per call: "
        "[Dockerfiles/SIZES.md](../Dockerfiles/SIZES.md) (`make images`, `make e2e-images`).",
    ]
    return lines


def startup_target(fn: Function) -> tuple[float, str]:
    """(limit in ms, config form): a typed config may take longer to validate (100 ms)."""
    if fn.config is None:
        return MAX_STARTUP_MS, "no config"
    if re.search(r"^kind: ConfigMap$", fn.config.read_text(), re.MULTILINE):
        return MAX_STARTUP_MS, "ConfigMap config"
    return MAX_STARTUP_TYPED_MS, "typed config"


def startup_table(report: Report) -> list[str]:
    lines = [
        f"1-resource package, {report.startup_reps} alternating rounds (each command once per "
        "round, kpt with GOMAXPROCS=1). Over cat, CPU (the verdict): the minimum over the rounds "
        "of kpt's CPU and its children's (user + sys: kpt, the function, its forked input "
        "check) minus the minimum of `kpt fn eval --exec cat`'s; wall: the median of each "
        f"round's difference with cat, over all rounds and over the {report.quiet_rounds} "
        "quietest (the rounds whose cat ran fastest). "
        f"`kpt fn eval --exec cat`: {report.cat_eval_seconds * 1000:.0f} ms wall, "
        f"{report.cat_eval_cpu_ms:.0f} ms CPU; "
        f"`python -c pass`: {report.python_pass_ms:.0f} ms "
        f"({report.python_pass_cpu_ms:.0f} ms CPU, the minimum). "
        f"Run with bytecode: {report.bytecode}. CPU over python: the function alone on the "
        "1-item ResourceList, the minimum of its CPU over the rounds minus python's.",
        "",
        "| function | under kpt, ms | over cat CPU, ms | over cat wall, ms (quietest) "
        "| over cat wall, ms (all) | CPU over python, ms | imports, ms "
        "| top packages (import ms) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for s in report.startups:
        top = ", ".join(f"{name} {ms:.0f}" for name, ms in s.top_imports[:5])
        if s.note:
            lines.append(f"| {s.name} | | | | | | {s.import_ms:.0f} | {s.note} |")
        else:
            lines.append(
                f"| {s.name} | {s.eval_seconds * 1000:.0f} | {s.over_cat_cpu_ms:.0f} "
                f"| {s.over_cat_quiet_ms:.0f} | {s.over_cat_ms:.0f} "
                f"| {s.cpu_over_python_ms:.0f} | {s.import_ms:.0f} | {top} |"
            )
    return lines


def render(report: Report, args: argparse.Namespace) -> str:
    out = ["# krmfn benchmark", ""]
    out += [f"- {key}: {value}" for key, value in machine()]
    sizes = ", ".join(
        f"{size:,} ({report.rl_bytes[size] / 1e6:.1f} MB ResourceList)" for size in report.sizes
    )
    out += [
        f"- sizes: {sizes}",
        f"- CPU time (user + sys of the command and the children it waited for) of {report.reps} "
        "runs, each function's run alternating with a `kpt fn source` run (kpt with "
        f"GOMAXPROCS=1); the minimum (the verdict) and the median (1 run when slower than "
        f"{args.slow:.0f} s); wall time is shown, not judged; "
        f"peak RSS from {'GNU time' if TIME else 'wait4'} (largest process of the command's tree)",
        f"- command: `python bench/run.py {shlex.join(args.argv)}`",
        "",
        "## Times and memory",
        "",
        *table(report),
        "",
    ]
    if report.startups:
        out += ["## Start-up", "", *startup_table(report), ""]
    if report.images:
        out += ["## Images (issue 17.5)", "", *image_lines(report), ""]
    out += [
        "## Targets (../shared/spec/performance.md)",
        "",
        *targets(report),
        "",
    ]
    return "\n".join(out)


# Any section between ``<!-- NAME: begin ... -->`` and ``<!-- NAME: end -->``: the ones the
# scripts above write, and the figures written by hand (``rounds``: each round's and branch's
# before/after, the method with them). A rewrite of the report keeps every one.
KEPT_BLOCK = re.compile(r"<!-- ([a-z][a-z0-9-]*): begin.*?<!-- \1: end -->\n?", re.DOTALL)
# kept right under the report's head (the run's machine and method), the others after the report
ROUNDS = "rounds"


def write_report(path: Path, text: str) -> None:
    """Write the report, keeping every marked section the old one had (:data:`KEPT_BLOCK`), in
    their order: the ``rounds`` section under the head, the others at the end."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    kept = list(KEPT_BLOCK.finditer(old))
    rounds = [m.group(0) for m in kept if m.group(1) == ROUNDS]
    if rounds:
        at = text.find("\n## ")
        at = len(text) if at < 0 else at + 1
        text = text[:at] + "".join(rounds) + "\n" + text[at:]
    for match in kept:
        if match.group(1) != ROUNDS:
            text += "\n" + match.group(0)
    path.write_text(text, encoding="utf-8")


# Main -----------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="krmfn benchmark (see bench/README.md)")
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(part) for part in text.split(",") if part],
        help="comma-separated sizes (default 1000,10000,50000)",
    )
    parser.add_argument("--quick", action="store_true", help="sizes 1000,10000 only")
    parser.add_argument(
        "--reps", type=int, default=5, help="alternating runs per measurement (min and median)"
    )
    parser.add_argument(
        "--startup-reps", type=int, default=11, help="alternating rounds per start-up figure"
    )
    parser.add_argument(
        "--functions",
        type=lambda text: [part for part in text.split(",") if part],
        default=list(FUNCTIONS),
        help="comma-separated function names (default all six)",
    )
    parser.add_argument(
        "--reference",
        type=lambda text: [part for part in text.split(",") if part],
        default=list(DEFAULT_REFERENCES),
        help=f"krmlib reference functions: {','.join(REFERENCES)} or '' (default noop,"
        "read-interfaces)",
    )
    parser.add_argument("--no-eval", dest="eval", action="store_false", help="skip kpt fn eval")
    parser.add_argument(
        "--no-paired",
        dest="paired",
        action="store_false",
        help="CPU ratios against kpt fn source's minimum (median) instead of the run just before",
    )
    parser.add_argument("--no-startup", dest="startup", action="store_false")
    parser.add_argument("--slow", type=float, default=30.0, help="run once when slower (s)")
    parser.add_argument("--timeout", type=float, default=900.0, help="per run (s)")
    parser.add_argument(
        "--output", type=Path, default=BENCH_DIR / "RESULTS.md", help="report file ('-': none)"
    )
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    for name in args.functions:
        if name not in FUNCTIONS + STARTUP_ONLY:
            known = ", ".join(FUNCTIONS + STARTUP_ONLY)
            parser.error(f"unknown function {name!r} (known: {known})")
        if name in STARTUP_ONLY and args.sizes != []:
            parser.error(f"{name} is measured for start-up only: add --sizes ''")
    for name in args.reference:
        if name not in REFERENCES:
            parser.error(f"unknown reference {name!r} (known: {', '.join(REFERENCES)})")
    if args.sizes is None:
        args.sizes = list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if shutil.which("kpt") is None:
        log("bench: kpt is not on PATH")
        return 2
    report = Report(sizes=list(args.sizes), reps=args.reps)
    report.functions = find_functions(args, report)
    started = time.perf_counter()
    generate.OUT_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="work-", dir=generate.OUT_DIR) as scratch:
        work = Path(scratch)
        for size in args.sizes:
            bench_size(size, args, report, work)
        if args.startup:
            bench_startup(args, report, work)
    report.images = image_sizes([fn.name for fn in report.functions if not fn.reference])
    text = render(report, args)
    text += f"\nThe whole run took {time.perf_counter() - started:.0f} s.\n"
    sys.stdout.write(text)
    if str(args.output) != "-":
        write_report(args.output, text)
        log(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
