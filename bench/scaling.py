"""Bounded work (issue 37, item 5): does every function's cost grow linearly with the input?

``python bench/scaling.py`` generates the benchmark packages of ``bench/generate.py`` at 10,000
and 100,000 items (the ResourceList ``kpt fn source`` makes of each), runs every function of
``krmfn/registry.py`` on each (with ``bench/configs/<function>.yaml`` as functionConfig when there
is one, on the package shape ``bench/run.py`` judges it on), and reports per function:

- CPU (user + sys of the function and the children it waited for), the minimum of ``--rounds``
  rounds (a shared machine only adds CPU), at each size;
- the ratio T(100k)/T(10k): 10 is linear; above ``MAX_RATIO`` is flagged as superlinear;
- peak RSS over the ResourceList's size at each size.

The bench packages give most functions little to do; the workloads of ``WORKLOADS`` add a row
each where a function works on every item: ``preparer (waiting Sites)`` is N topology Sites that
all wait (each one a target of every pass: the shape that was quadratic, issue 37 item 5).

The table goes to stdout and, between ``<!-- scaling: begin`` and ``<!-- scaling: end -->``, into
``bench/RESULTS.md`` (``bench/run.py`` keeps the block when it rewrites the file).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
if str(ROOT) not in sys.path:  # `python bench/scaling.py` puts bench/, not the repository, on it
    sys.path.insert(0, str(ROOT))

from bench import generate, run  # noqa: E402
from krmfn.registry import FUNCTIONS  # noqa: E402, TID251 (the functions to measure)

SMALL, LARGE = 10_000, 100_000
MAX_RATIO = 13.0  # T(100k)/T(10k): 10 is linear; measurement noise stays well under 13
BLOCK = run.SCALING_BLOCK


def _waiting_sites(size: int) -> str:
    """``size`` topology Sites whose selector matches no catalog site: every one is prepared,
    waits, and is reported."""
    items = "".join(
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: Site\n"
        f"  metadata:\n    name: site-{i:06d}\n    annotations:\n"
        f"      config.kubernetes.io/path: 'topology/part-{i // 100:05d}.yaml'\n"
        f"      config.kubernetes.io/index: '{i % 100}'\n"
        "  spec:\n    select:\n      metadata:\n        Site.region: atlantis\n"
        for i in range(size)
    )
    return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items


# row name -> (function, the ResourceList of a size)
WORKLOADS: dict[str, tuple[str, Callable[[int], str]]] = {
    "preparer (waiting Sites)": ("preparer", _waiting_sites),
}


class Result:
    """One function at one size: the minimum CPU of the rounds, the peak RSS, the input size."""

    __slots__ = ("cpu", "note", "peak", "rl_bytes")

    def __init__(self, cpu: float, peak: int, rl_bytes: int, note: str = "") -> None:
        self.cpu = cpu
        self.peak = peak
        self.rl_bytes = rl_bytes
        self.note = note


def input_for(name: str, size: int) -> Path:
    """The ResourceList ``name`` reads at ``size``: its bench shape, its bench config appended."""
    shapes = run.SHAPES.get(name)
    target = generate.generate(size, shape=shapes[0]) if shapes else generate.generate(size)
    config = run.CONFIGS / f"{name}.yaml"
    return run.with_config(
        target / generate.RL_NAME,
        config if config.is_file() else None,
        target / f"rl-{name}.yaml",
    )


def workload_input(row: str, size: int) -> Path:
    """The ResourceList of workload ``row`` at ``size`` (written once under bench/out)."""
    make = WORKLOADS[row][1]
    path = generate.OUT_DIR / f"{make.__name__.strip('_')}-size-{size}.yaml"
    if not path.is_file():
        generate.OUT_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(make(size), encoding="utf-8")
    return path


def measure(name: str, size: int, rounds: int, timeout: float) -> Result:
    if name in WORKLOADS:
        rl = workload_input(name, size)
        command = [str(run.BIN / f"krmfn-{WORKLOADS[name][0]}")]
    else:
        rl = input_for(name, size)
        command = [str(run.BIN / f"krmfn-{name}")]
    cpus: list[float] = []
    peaks: list[int] = []
    for _ in range(rounds):
        sample = run.measure(command, rl, timeout=timeout)
        if sample.returncode != 0:
            note = f"exit {sample.returncode}: {run._last_line(sample.stderr)}"
            run.log(f"  [{size}] {name}: {note}")
            return Result(float("nan"), 0, rl.stat().st_size, note)
        cpus.append(sample.cpu_seconds)
        peaks.append(sample.peak_bytes)
        run.log(
            f"  [{size}] {name}: {sample.cpu_seconds:.2f} s CPU, {sample.peak_bytes / 1e6:.0f} MB"
        )
    return Result(min(cpus), min(peaks), rl.stat().st_size)


def render(results: dict[str, dict[int, Result]], rounds: int) -> str:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "<!-- scaling: begin (bench/scaling.py) -->",
        "## Scaling: 10k to 100k items (issue 37, item 5)",
        "",
        f"`python bench/scaling.py`, {now}: each function alone on the ResourceList of the bench "
        f"package (its bench shape and config), CPU = user + sys incl. waited-for children, the "
        f"minimum of {rounds} rounds; linear is a ratio of 10, above {MAX_RATIO:.0f} is flagged. "
        "RSS/input: peak RSS over the ResourceList's size.",
        "",
        "| function | CPU 10k (s) | CPU 100k (s) | T(100k)/T(10k) | RSS/input 10k | "
        "RSS/input 100k | verdict |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, by_size in results.items():
        small, large = by_size[SMALL], by_size[LARGE]
        ratio = large.cpu / small.cpu if small.cpu > 0 else float("nan")
        if small.note or large.note:
            verdict = (small.note or large.note).replace("|", "\\|")
        else:
            verdict = "linear" if ratio <= MAX_RATIO else "SUPERLINEAR"
        lines.append(
            f"| {name} | {small.cpu:.2f} | {large.cpu:.2f} | {ratio:.1f} | "
            f"{small.peak / small.rl_bytes:.2f}x | {large.peak / large.rl_bytes:.2f}x | "
            f"{verdict} |"
        )
    lines += ["", "<!-- scaling: end -->", ""]
    return "\n".join(lines)


def write_block(path: Path, block: str) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if BLOCK.search(old):
        text = BLOCK.sub(lambda _: block, old, count=1)
    else:
        text = old + ("\n" if old and not old.endswith("\n\n") else "") + block
    path.write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--functions",
        type=lambda text: [part for part in text.split(",") if part],
        default=[fn.name for fn in FUNCTIONS],
        help="comma-separated function names (default: every function of the registry)",
    )
    parser.add_argument(
        "--no-workloads",
        dest="workloads",
        action="store_false",
        help=f"skip the extra workloads ({', '.join(WORKLOADS)})",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds per size (the minimum)")
    parser.add_argument("--timeout", type=float, default=600.0, help="per run (s)")
    parser.add_argument(
        "--output", type=Path, default=BENCH_DIR / "RESULTS.md", help="report file ('-': none)"
    )
    args = parser.parse_args(argv)
    known = {fn.name for fn in FUNCTIONS}
    for name in args.functions:
        if name not in known:
            parser.error(f"unknown function {name!r} (known: {', '.join(sorted(known))})")
    results: dict[str, dict[int, Result]] = {}
    rows = [*args.functions, *(row for row in WORKLOADS if args.workloads)]
    for name in rows:
        results[name] = {
            size: measure(name, size, args.rounds, args.timeout) for size in (SMALL, LARGE)
        }
    text = render(results, args.rounds)
    sys.stdout.write(text)
    if str(args.output) != "-":
        write_block(args.output, text)
        run.log(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
