"""``make bench``: krmfn prepare-all at scale (issue 17.4).

The tree is examples/oran-cu plus N generated catalog sites that the topology's ``bangalore``
Sites selects (region bangalore, cloud GDC-E), so N more SMF children are created and prepared,
each with its exec plugin (a Python process importing krmlib). Measured:

- B: two Python processes that import krmlib, one after the other (the cost of two exec plugins
  per child in a serial design): the median of 7;
- T(N): ``krmfn prepare-all`` on a fresh copy (first run), for each N;
- the rerun: prepare-all again on the prepared tree (nothing to do).

Targets: T(1000) <= 0.5 x 1000 x B; T(1000) / T(200) <= 5.5; rerun <= 15% of the first run (at
1000: at a few sites both runs are mostly start-up; the table shows every N's share). The fast
default measures N = 50 and 200 (the targets then on 200 sites); ``--full`` adds 1000.
Writes its section of bench/RESULTS.md (between the markers below) and prints it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXAMPLE = ROOT / "examples" / "oran-cu"
RESULTS = HERE / "RESULTS.md"
BEGIN = "<!-- prepare-all: begin (bench/prepare_all.py) -->"
END = "<!-- prepare-all: end -->"
BIN = Path(sys.executable).parent

SITE_KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: {name}
  annotations:
    config.kubernetes.io/local-config: "true"
    catalog.nephio.org/id: in/bangalore/{name}
info:
  description: generated site in/bangalore/{name}
"""
SITE = """\
apiVersion: metadata.nephio.org/v1alpha1
kind: Site
metadata:
  name: {name}
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  region: bangalore
  cloud: GDC-E
"""


def make_tree(target: Path, sites: int) -> Path:
    """examples/oran-cu plus ``sites`` generated catalog sites (a pure function of ``sites``)."""
    shutil.copytree(EXAMPLE, target)
    for number in range(sites):
        name = f"gen-{number:04d}"
        folder = target / "catalog" / "sites" / name
        folder.mkdir(parents=True)
        (folder / "Kptfile").write_text(SITE_KPTFILE.format(name=name))
        (folder / "site.yaml").write_text(SITE.format(name=name))
    return target


def two_imports() -> float:
    """B: two Python processes importing krmlib, one after the other (median of 7)."""
    times = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(2):
            subprocess.run([sys.executable, "-c", "import krmlib"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@dataclass
class Run:
    sites: int
    children: int
    first: float
    rerun: float
    exit_code: int
    jobs: int


def prepare_all(tree: Path, jobs: int | None) -> tuple[float, int, str]:
    command = [str(BIN / "krmfn"), "prepare-all", "-q", str(tree)]
    if jobs is not None:
        command[2:2] = ["--jobs", str(jobs)]
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    return time.perf_counter() - start, done.returncode, done.stdout


def measure(sites: int, jobs: int | None, work: Path) -> Run:
    tree = make_tree(work / f"tree-{sites}", sites)
    first, code, table = prepare_all(tree, jobs)
    rerun, code2, _ = prepare_all(tree, jobs)
    children = len(re.findall(r"^oran-cu/", table, re.M))
    shutil.rmtree(tree)
    return Run(sites, children, first, rerun, code or code2, jobs or (os.cpu_count() or 1))


def verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def report(b: float, runs: list[Run], full: bool) -> str:
    lines = [
        BEGIN,
        "## prepare-all at scale (issue 17.4)",
        "",
        f"`python bench/prepare_all.py{' --full' if full else ''}`: examples/oran-cu plus N "
        "generated catalog sites selected by the topology (N more SMF children, each prepared "
        "with its exec plugin). B = two Python processes importing krmlib, one after the other "
        f"(median of 7): **{b * 1000:.0f} ms**. Jobs: {runs[0].jobs if runs else '-'}.",
        "",
        "| sites N | deployments | first run s | per site ms | first / (N x B) | rerun s | "
        "rerun / first | exit |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        lines.append(
            f"| {run.sites} | {run.children + 1} | {run.first:.2f} | "
            f"{run.first / max(run.sites, 1) * 1000:.0f} | {run.first / (run.sites * b):.2f} | "
            f"{run.rerun:.2f} | {run.rerun / run.first:.1%} | {run.exit_code} |"
        )
    by = {run.sites: run for run in runs}
    biggest = max(runs, key=lambda r: r.sites)
    lines += ["", "| target | figure | verdict |", "|---|---|---|"]
    budget = 0.5 * biggest.sites * b
    lines.append(
        f"| T({biggest.sites}) <= 0.5 x {biggest.sites} x B = {budget:.1f} s | "
        f"{biggest.first:.1f} s | {verdict(biggest.first <= budget)} |"
    )
    low, high = (200, 1000) if 1000 in by and 200 in by else (50, 200)
    if low in by and high in by:
        ratio = by[high].first / by[low].first
        limit = 5.5 if (low, high) == (200, 1000) else 4.4  # linear: N ratio x 1.1
        lines.append(
            f"| T({high}) / T({low}) <= {limit} (linear) | {ratio:.2f} | "
            f"{verdict(ratio <= limit)} |"
        )
    lines.append(  # at the target's size: at a few sites both runs are mostly start-up
        f"| rerun <= 15% of the first run | {biggest.rerun / biggest.first:.1%} at "
        f"N={biggest.sites} | {verdict(biggest.rerun <= 0.15 * biggest.first)} |"
    )
    if not full:
        lines += ["", "The full mode (`--full`, N = 1000) is the issue's target; see ANALYSIS.md."]
    lines.append(END)
    return "\n".join(lines) + "\n"


def write_section(section: str) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else "# krmfn benchmark\n"
    if BEGIN in text and END in text:
        before, rest = text.split(BEGIN, 1)
        after = rest.split(END, 1)[1].lstrip("\n")
        text = before + section + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="also N = 1000 (the issue's target)")
    parser.add_argument("--sites", type=int, nargs="+", help="the N to measure (overrides)")
    parser.add_argument("--jobs", type=int, help="prepare-all --jobs (default: its own)")
    parser.add_argument("--output", help="'-' to print only (RESULTS.md left alone)")
    opts = parser.parse_args(argv)
    sizes = opts.sites or ([50, 200, 1000] if opts.full else [50, 200])
    b = two_imports()
    runs = []
    with tempfile.TemporaryDirectory(prefix="krmfn-bench-prepare-") as tmp:
        for sites in sizes:
            run = measure(sites, opts.jobs, Path(tmp))
            sys.stderr.write(
                f"prepare-all N={sites}: first {run.first:.1f}s, rerun {run.rerun:.1f}s, "
                f"exit {run.exit_code}\n"
            )
            runs.append(run)
    section = report(b, runs, opts.full)
    sys.stdout.write(section)
    if opts.output != "-":
        write_section(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
