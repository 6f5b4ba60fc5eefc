"""The output gate's CPU cost (issue 34): a function run end to end, with the gate and without.

    .venv/bin/python bench/gate_cost.py [--rounds 5] [--size 10000] [--old FILE] [FUNCTION ...]

Each round runs every variant once, alternating, as a child process reading the benchmark's
ResourceList on stdin and writing to /dev/null: ``none`` (the gate switched off: no snapshot,
no write hook, no checks), ``gate`` (as shipped) and, with ``--old FILE``, ``old`` (another
version of ``krmlib/_io/gate.py``, e.g. ``git show main:krmlib/_io/gate.py > /tmp/old_gate.py``).
CPU is user+sys of the child (``resource.getrusage(RUSAGE_CHILDREN)``, its own children
included); a variant's figure is the minimum over the rounds, and the gate's share is
``(gate - none) / none``. FUNCTION is a krmfn function name (``interface-expander``) or a file
of ``bench/fns`` (``krmlib_label_all``); default: interface-expander, krmlib_label_all,
krmlib_noop. The outputs of all variants must be byte-identical (checked)."""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import sys, runpy
variant, target, old = sys.argv[1], sys.argv[2], sys.argv[3]
import krmlib
if variant == "none":
    import contextlib
    from krmlib._io import gate as _gate, watch as _watch
    class _Nothing:
        def __init__(self, rl): pass
    _gate.Snapshot = _Nothing
    _watch.watching = contextlib.nullcontext  # the write hook (the runner calls _watch.watching)
    _gate.check = lambda rl, before: []
    _gate.check_text = lambda pieces, rl: []
elif variant == "old":
    import importlib.util
    spec = importlib.util.spec_from_file_location("krmlib._io.gate", old)
    module = importlib.util.module_from_spec(spec)
    sys.modules["krmlib._io.gate"] = module
    spec.loader.exec_module(module)
    krmlib._io.gate = module
sys.argv = [target]
if target.endswith(".py"):
    runpy.run_path(target, run_name="__main__")
else:
    from krmfn.registry import BY_NAME
    sys.exit(BY_NAME[target].main([]))
"""


def cpu_of(argv: list[str], stdin: Path) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with stdin.open("rb") as source:
        done = subprocess.run(argv, stdin=source, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"{argv}: exit {done.returncode}: {done.stderr.decode()[-500:]}")
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used, hashlib.sha256(done.stdout).hexdigest()


CALLGRIND = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]


def instructions_of(argv: list[str], stdin: Path) -> tuple[float, str]:
    """Instructions (in units of 10^9) of the process and its forked children."""
    with stdin.open("rb") as source:
        done = subprocess.run(argv, stdin=source, capture_output=True, check=False)
    counts = re.findall(rb"Collected : (\d+)", done.stderr)
    if done.returncode not in (0, 1) or not counts:
        sys.exit(f"{argv}: exit {done.returncode}: {done.stderr.decode()[-500:]}")
    return sum(int(c) for c in counts) / 1e9, hashlib.sha256(done.stdout).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--old", help="another krmlib/_io/gate.py to compare")
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="count instructions under valgrind's callgrind instead (exact: one round)",
    )
    parser.add_argument("functions", nargs="*")
    args = parser.parse_args()
    functions = args.functions or ["interface-expander", "krmlib_label_all", "krmlib_noop"]
    out = HERE / "out" / f"gate-size-{args.size}"
    rl = out / "resourcelist.yaml"
    if not rl.exists():
        generate = [sys.executable, str(HERE / "generate.py"), "--size", str(args.size)]
        subprocess.run([*generate, "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    variants = ["none", "gate"] + (["old"] if args.old else [])
    if args.callgrind:
        args.rounds = 1
    unit = "instructions (10^9, callgrind)" if args.callgrind else "CPU user+sys (s)"
    print(f"{rl} ({rl.stat().st_size / 1e6:.1f} MB), {args.rounds} rounds, {unit}")
    for function in functions:
        local = function.startswith("krmlib_")
        target = str(HERE / "fns" / f"{function}.py") if local else function
        times: dict[str, list[float]] = {v: [] for v in variants}
        digests = set()
        for _ in range(args.rounds):
            for variant in variants:
                argv = [sys.executable, "-c", CHILD, variant, target, args.old or ""]
                if args.callgrind:
                    argv = [*CALLGRIND, *argv]
                used, digest = (instructions_of if args.callgrind else cpu_of)(argv, rl)
                times[variant].append(used)
                digests.add(digest)
        best = {v: min(t) for v, t in times.items()}
        shown = ", ".join(f"{v} {best[v]:.3f}" for v in variants)
        share = (best["gate"] - best["none"]) / best["none"] * 100
        line = f"{function}: min {shown}; gate {share:+.1f}%"
        if "old" in best:
            line += f" (old gate {(best['old'] - best['none']) / best['none'] * 100:+.1f}%)"
        print(line + ("" if len(digests) == 1 else "  OUTPUTS DIFFER"), flush=True)
        for v in variants:
            print(f"  {v}: " + " ".join(f"{t:.3f}" for t in times[v]))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
