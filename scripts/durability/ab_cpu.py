"""prepare-all's CPU on two or more versions of the code, side by side (docs/durability.md,
"The cost of the durability work").

    .venv/bin/python scripts/durability/ab_cpu.py [--sites N] [--rounds R] LABEL=SOURCE[,V=X] ...

SOURCE is a git revision (exported with ``git archive`` into a temporary folder) or a folder
holding a checkout (a patched copy, to measure one change alone); ``,V=X`` sets the environment
variable V to X for that variant (``KRMFN_FSYNC=0``). Each variant runs ``krmfn prepare-all -q``
with this virtual environment's Python and the variant's code first on ``PYTHONPATH``, on a
fresh copy of bench/prepare_all.py's tree with N generated sites (default 200), once per round,
in alternating rounds (R, default 5; the order rotated each round). The script prints the
minimum and the median CPU seconds (user + sys of prepare-all and every process it waited
for) of each variant, and its minimum over the first variant's. CPU, not wall: the machine is
shared. ``--write`` also puts that table in bench/RESULTS.md, between its markers (bench/run.py
keeps the section when it rewrites the file).
"""

from __future__ import annotations

import argparse
import datetime
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

from bench.prepare_all import make_tree  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
BEGIN = "<!-- durability: begin (scripts/durability/ab_cpu.py) -->"
END = "<!-- durability: end -->"


class Variant:
    def __init__(self, label: str, code: Path, extra: dict[str, str]) -> None:
        self.label = label
        self.code = code
        self.extra = extra
        self.times: list[float] = []


def cpu_of(command: list[str], environ: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=environ, check=False, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def checkout(source: str, into: Path) -> Path:
    if Path(source).is_dir():
        return Path(source).resolve()
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", source], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="also into bench/RESULTS.md")
    parser.add_argument("variants", nargs="+", metavar="LABEL=SOURCE[,VAR=VALUE...]")
    opts = parser.parse_args(argv)
    base = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        variants = []
        for number, spec in enumerate(opts.variants):
            label, _, rest = spec.partition("=")
            source, *settings = rest.split(",")
            extra = dict(s.split("=", 1) for s in settings)
            variants.append(Variant(label, checkout(source, work / f"code-{number}"), extra))
        source_tree = make_tree(work / "source", opts.sites)
        for round_number in range(opts.rounds):
            shift = round_number % len(variants)
            for variant in variants[shift:] + variants[:shift]:
                tree = work / "tree"
                shutil.copytree(source_tree, tree, symlinks=True)
                environ = {**base, **variant.extra, "PYTHONPATH": str(variant.code)}
                command = [sys.executable, "-m", "krmfn.cli", "prepare-all", "-q", str(tree)]
                variant.times.append(cpu_of(command, environ))
                shutil.rmtree(tree)
    table = report(variants, opts.sites, opts.rounds, argv if argv is not None else sys.argv[1:])
    sys.stdout.write(table)
    if opts.write:
        write_section(table)
    return 0


def report(variants: list[Variant], sites: int, rounds: int, argv: list[str]) -> str:
    """The Markdown section: one row a variant (the first is the reference)."""
    first = min(variants[0].times)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    lines = [
        BEGIN,
        "## prepare-all's CPU across versions (docs/durability.md)",
        "",
        f"`python scripts/durability/ab_cpu.py {' '.join(argv)}`, {when}, load {load:.1f} on "
        f"{os.cpu_count()} cores: `krmfn prepare-all -q` on bench/prepare_all.py's tree with "
        f"{sites} sites, {rounds} alternating rounds, CPU s (user + sys incl. children).",
        "",
        "| variant | CPU s (min) | CPU s (median) | min / first's | runs |",
        "|---|---:|---:|---:|---|",
    ]
    for variant in variants:
        low = min(variant.times)
        runs = ", ".join(f"{t:.2f}" for t in sorted(variant.times))
        lines.append(
            f"| {variant.label} | {low:.2f} | {statistics.median(variant.times):.2f} "
            f"| {low / first:.3f} | {runs} |"
        )
    lines.append(END)
    return "\n".join(lines) + "\n"


def write_section(section: str) -> None:
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# krmfn benchmark\n"
    if BEGIN in text and END in text:
        before, rest = text.split(BEGIN, 1)
        after = rest.split(END, 1)[1].lstrip("\n")
        text = before + section + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
