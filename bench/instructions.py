"""Instruction counts: the deterministic regression check of the benchmark.

``python bench/instructions.py`` runs every function under ``valgrind --tool=callgrind`` on the
benchmark's ResourceLists of 1 and 1,000 items (``bench/generate.py``; nad-generator on its
"nephio" shape) and counts the instructions of the whole process and any child it starts
(``--trace-children=yes``, every output file summed). The count is exact to about 1e-6 from run
to run with ``PYTHONHASHSEED=0`` and the whole-input check in-process (``KRMFN_BACKGROUND_CHECK=0``:
a forked check would be counted by pid, not by work), so a change of a few percent is a change in
the code, not in the neighbours' load.

From the two sizes: start-up (the 1-item count minus ``python -c pass``: what a function adds to a
bare interpreter), the cost per item (the slope), and the count scaled to 10,000 items
(the 1-item count plus 9,999 times the slope; the bench's 10k rows in CPU say how close linear is).

``--check`` compares each count, and each cost per item, with ``bench/instructions.json`` (counts
recorded with ``--record``, committed; re-recorded at each release) and exits 1 when one is more
than 5% above it; ``--results`` writes its section of bench/RESULTS.md. ``--root DIR``
measures another checkout's functions with this interpreter (its krmlib and krmfn first on the
path; the runs are in an empty working directory, so ``python -c`` does not import the code of
the current one): how a regression is found after the fact (``git worktree add DIR COMMIT``).
The counts depend on the Python, libyaml and valgrind versions: a baseline recorded with another
Python is not compared (the check says so).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
if str(ROOT) not in sys.path:  # `python bench/instructions.py` puts bench/ on the path
    sys.path.insert(0, str(ROOT))

from bench import generate  # noqa: E402

BASELINE = BENCH_DIR / "instructions.json"
RESULTS = BENCH_DIR / "RESULTS.md"
BEGIN = "<!-- instructions: begin (bench/instructions.py) -->"
END = "<!-- instructions: end -->"
CONFIGS = BENCH_DIR / "configs"
FUNCTIONS = (
    "interface-expander",
    "topology-to-pvs",
    "applyset-labeler",
    "merger",
    "preparer",
    "nad-generator",
)
SHAPE = {"nad-generator": "nephio"}  # as bench/run.py: a package with NADs to write
DEFAULT_SIZES = (1, 1000)
SCALE_TO = 10000
TOLERANCE = 0.05  # fail on more than +5%
BARE = "python -c pass"
ENV = {"PYTHONHASHSEED": "0", "KRMFN_BACKGROUND_CHECK": "0", "PYTHONDONTWRITEBYTECODE": "1"}


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def entry_points(root: Path) -> dict[str, str]:
    """``krmfn-<name>`` -> ``module:function`` from ``root``'s pyproject.toml."""
    with (root / "pyproject.toml").open("rb") as handle:
        scripts = tomllib.load(handle)["project"]["scripts"]
    return {
        key.removeprefix("krmfn-"): value
        for key, value in scripts.items()
        if key.startswith("krmfn-")
    }


def command(root: Path, name: str) -> list[str] | None:
    """The function as ``python -c`` from ``root`` (None when ``root`` has no such function)."""
    target = entry_points(root).get(name)
    if target is None:
        return None
    module, _, func = target.partition(":")
    code = f"import sys; from {module} import {func}; sys.exit({func}())"
    return [sys.executable, "-c", code]


def input_for(name: str, size: int) -> Path:
    """The benchmark's ResourceList for ``name`` at ``size``, with its config as kpt appends it."""
    from bench.run import with_config

    target = generate.generate(size, shape=SHAPE.get(name, "mixed"))
    config = CONFIGS / f"{name}.yaml"
    rl = target / generate.RL_NAME
    return with_config(rl, config if config.is_file() else None, target / f"rl-{name}.yaml")


def import_path(root: Path) -> Path:
    """The folder to put first on the path for ``root``'s krmlib and krmfn: ``root`` itself, or
    for an older checkout whose pyproject maps a package to another folder (``krmfn`` was
    ``functions/`` until 6a75e06), a folder of links made in the temporary folder (not under
    bench/: the linters would meet a second krmfn)."""
    with (root / "pyproject.toml").open("rb") as handle:
        mapping = tomllib.load(handle).get("tool", {}).get("setuptools", {}).get("package-dir")
    if not mapping or all(key == value for key, value in mapping.items()):
        return root
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    links = Path(tempfile.gettempdir()) / f"krmfn-bench-path-{digest}"
    links.mkdir(parents=True, exist_ok=True)
    for package, folder in mapping.items():
        link = links / package
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(root / folder, target_is_directory=True)
    return links


def environment(root: Path) -> dict[str, str]:
    env = {**os.environ, **ENV, "PYTHONPATH": str(import_path(root))}
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def count(argv: Sequence[str], stdin: Path | None, env: dict[str, str]) -> int:
    """Instructions of ``argv`` and every process it starts, under callgrind."""
    with (
        tempfile.TemporaryDirectory(prefix="krmfn-callgrind-") as tmp,
        tempfile.TemporaryDirectory(prefix="krmfn-callgrind-cwd-") as cwd,
    ):
        out = Path(tmp) / "callgrind.%p"
        with stdin.open("rb") if stdin else open(os.devnull, "rb") as source:
            done = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    "--trace-children=yes",
                    f"--callgrind-out-file={out}",
                    *argv,
                ],
                stdin=source,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=env,
                cwd=cwd,  # empty: a function without a package folder looks in the working
                # directory (the preparer for TKO's files): what is there must not count
            )
        if done.returncode != 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
            raise RuntimeError(f"exit {done.returncode} under callgrind: {' / '.join(tail)}")
        total = 0
        for path in Path(tmp).iterdir():
            for line in path.read_text(errors="replace").splitlines():
                if line.startswith("totals:") or line.startswith("summary:"):
                    total += int(line.split()[1])
                    break
        return total


def warm(argv: Sequence[str], stdin: Path | None, root: Path) -> None:
    """One run outside valgrind, writing bytecode: a count is of running, not compiling."""
    env = {**environment(root)}
    env.pop("PYTHONDONTWRITEBYTECODE")
    with (
        stdin.open("rb") if stdin else open(os.devnull, "rb") as source,
        tempfile.TemporaryDirectory(prefix="krmfn-warm-") as cwd,
    ):
        subprocess.run(
            argv,
            stdin=source,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )


def environment_key() -> dict[str, str]:
    """What the counts depend on besides the code: compared before the counts are."""
    import yaml

    valgrind = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "pyyaml": yaml.__version__,
        "libyaml": yaml._yaml.get_version_string() if yaml.__with_libyaml__ else "none",
        "valgrind": valgrind.strip(),
        "generator": hashlib.sha256(Path(generate.__file__).read_bytes()).hexdigest()[:16],
    }


def measure(root: Path, functions: Sequence[str], sizes: Sequence[int]) -> dict[str, object]:
    """{"bare": n, "functions": {name: {str(size): n}}} for ``root``'s functions."""
    env = environment(root)
    bare = [sys.executable, "-c", "pass"]
    warm(bare, None, root)
    counts: dict[str, dict[str, int]] = {}
    result: dict[str, object] = {"bare": count(bare, None, env), "functions": counts}
    log(f"{BARE}: {result['bare']:,}")
    for name in functions:
        argv = command(root, name)
        if argv is None:
            log(f"{name}: not in {root}")
            continue
        counts[name] = {}
        for size in sizes:
            rl = input_for(name, size)
            warm(argv, rl, root)
            counts[name][str(size)] = count(argv, rl, env)
            log(f"{name} at {size:,}: {counts[name][str(size)]:,}")
    return result


def scaled(per_size: dict[str, int], to: int = SCALE_TO) -> int | None:
    """The count at ``to`` items, linear from the smallest and the largest size measured."""
    sizes = sorted(int(s) for s in per_size)
    if len(sizes) < 2:
        return None
    small, large = sizes[0], sizes[-1]
    slope = (per_size[str(large)] - per_size[str(small)]) / (large - small)
    return round(per_size[str(small)] + slope * (to - small))


def table(result: dict[str, object], baseline: dict[str, object] | None) -> list[str]:
    bare = int(result["bare"])  # type: ignore[call-overload]
    counts: dict[str, dict[str, int]] = result["functions"]  # type: ignore[assignment]
    base: dict[str, dict[str, int]] = (baseline or {}).get("functions", {})  # type: ignore[assignment]
    lines = [
        f"| function | start-up (over `{BARE}`) | per item | scaled to {SCALE_TO:,} "
        "| against the baseline |",
        "|---|---:|---:|---:|---|",
    ]
    for name, per_size in counts.items():
        sizes = sorted(int(s) for s in per_size)
        start = per_size[str(sizes[0])] - bare if sizes[0] == 1 else None
        at = scaled(per_size)
        slope = (at - per_size[str(sizes[0])]) / (SCALE_TO - sizes[0]) if at is not None else None
        versus = []
        for size in sizes:
            old = base.get(name, {}).get(str(size))
            if old:
                versus.append(f"{size:,}: {per_size[str(size)] / old - 1:+.1%}")
        lines.append(f"| {name} | {start / 1e6:.1f} M |" if start is not None else f"| {name} | |")
        lines[-1] += f" {slope / 1e3:.0f} k |" if slope is not None else " |"
        lines[-1] += f" {at / 1e9:.2f} G |" if at is not None else " |"
        lines[-1] += f" {', '.join(versus) or 'no baseline'} |"
    return lines


def check(
    result: dict[str, object], baseline: dict[str, object], tolerance: float = TOLERANCE
) -> list[str]:
    """Every count more than ``tolerance`` above the baseline's at the same size, and every
    cost per item (the slope from the smallest to the largest size measured) more than
    ``tolerance`` above the baseline's between the same sizes: a release that started up
    heavier (0.2.0 imported pydantic) must not hide a costlier item at a small size."""
    failures = []
    counts: dict[str, dict[str, int]] = result["functions"]  # type: ignore[assignment]
    base: dict[str, dict[str, int]] = baseline.get("functions", {})  # type: ignore[assignment]
    for name, per_size in counts.items():
        old_sizes = base.get(name, {})
        for size, value in per_size.items():
            old = old_sizes.get(size)
            if old and value > old * (1 + tolerance):
                failures.append(
                    f"{name} at {int(size):,} items: {value:,} instructions, "
                    f"{value / old - 1:+.1%} over the baseline's {old:,}"
                )
        ends = sorted(per_size, key=int)
        small, large = (ends[0], ends[-1]) if ends else ("", "")
        if small != large and small in old_sizes and large in old_sizes:
            slope = (per_size[large] - per_size[small]) / (int(large) - int(small))
            old_slope = (old_sizes[large] - old_sizes[small]) / (int(large) - int(small))
            if old_slope > 0 and slope > old_slope * (1 + tolerance):
                failures.append(
                    f"{name} per item ({int(small):,} to {int(large):,} items): "
                    f"{slope:,.0f} instructions, {slope / old_slope - 1:+.1%} over the "
                    f"baseline's {old_slope:,.0f}"
                )
    old_bare = baseline.get("bare")
    if isinstance(old_bare, int) and int(result["bare"]) > old_bare * (1 + tolerance):  # type: ignore[call-overload]
        failures.append(f"{BARE}: {result['bare']:,} instructions, baseline {old_bare:,}")
    return failures


def section(result: dict[str, object], baseline: dict[str, object] | None) -> str:
    """The report's section (bench/RESULTS.md, between :data:`BEGIN` and :data:`END`)."""
    sizes = sorted({int(s) for per in result["functions"].values() for s in per})  # type: ignore[attr-defined]
    environment = result.get("environment", {})
    assert isinstance(environment, dict)
    lines = [
        BEGIN,
        "## Instruction counts (callgrind)",
        "",
        f"`python bench/instructions.py` at {', '.join(f'{s:,}' for s in sizes)} items, commit "
        f"{result.get('commit', '?')}: `valgrind --tool=callgrind --trace-children=yes`, "
        "`PYTHONHASHSEED=0`, the whole-input check in the process; start-up is the 1-item "
        f"count over `{BARE}` ({int(result['bare']):,}), the rest linear from the two ends. "  # type: ignore[call-overload]
        "Against: bench/instructions.json (the recorded counts; > +5% fails `--check`). "
        + ", ".join(f"{k} {v}" for k, v in sorted(environment.items()))
        + ".",
        "",
        *table(result, baseline),
        END,
        "",
    ]
    return "\n".join(lines)


def write_section(text: str, path: Path = RESULTS) -> None:
    """Put the section into the report, replacing the one there (bench/run.py keeps it)."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# krmfn benchmark\n"
    if BEGIN in old and END in old:
        before, rest = old.split(BEGIN, 1)
        after = rest.split(END, 1)[1].lstrip("\n")
        new = before + text + ("\n" + after if after else "")
    else:
        new = old.rstrip("\n") + "\n\n" + text
    path.write_text(new, encoding="utf-8")


def comparable(baseline: dict[str, object]) -> str:
    """Why the baseline's counts cannot be compared with this machine's ('' when they can)."""
    recorded = baseline.get("environment", {})
    assert isinstance(recorded, dict)
    here = environment_key()
    return "; ".join(
        f"{key} {recorded.get(key)!r} here {value!r}"
        for key, value in here.items()
        if recorded.get(key) != value
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="instruction counts under callgrind")
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(part) for part in text.split(",") if part],
        default=list(DEFAULT_SIZES),
        help="comma-separated item counts (default 1,1000; the check compares size by size)",
    )
    parser.add_argument(
        "--functions",
        type=lambda text: [part for part in text.split(",") if part],
        default=list(FUNCTIONS),
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose code is counted")
    parser.add_argument("--check", action="store_true", help="exit 1 on a count > +5%%")
    parser.add_argument("--record", action="store_true", help="write bench/instructions.json")
    parser.add_argument("--baseline", type=Path, default=BASELINE)
    parser.add_argument("--json", type=Path, help="also write this run's counts here")
    parser.add_argument(
        "--results", action="store_true", help="write the section of bench/RESULTS.md"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if shutil.which("valgrind") is None:
        log("instructions: valgrind is not installed (apt-get install valgrind)")
        return 2
    root = args.root.resolve()
    result = measure(root, args.functions, args.sizes)
    result["environment"] = environment_key()
    commit = subprocess.run(
        ["git", "-C", str(root), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    result["commit"] = commit
    baseline = json.loads(args.baseline.read_text()) if args.baseline.is_file() else None
    sys.stdout.write("\n".join(table(result, baseline)) + "\n")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    if args.results:
        write_section(section(result, baseline))
        log(f"written to {RESULTS}")
    if args.record:
        args.baseline.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
        log(f"recorded in {args.baseline}")
    if args.check:
        if baseline is None:
            log(f"instructions: no baseline at {args.baseline}")
            return 2
        why = comparable(baseline)
        if why:
            log(f"instructions: the baseline was recorded elsewhere ({why}): not compared")
            return 3
        failures = check(result, baseline)
        for failure in failures:
            log(f"REGRESSION {failure}")
        if failures:
            return 1
        log("instructions: every count within +5% of the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
