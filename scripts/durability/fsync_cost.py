"""What prepare-all's fsync calls cost in CPU (docs/durability.md, "The cost of fsync").

    .venv/bin/python scripts/durability/fsync_cost.py [SITES] [RUNS]

Runs ``krmfn prepare-all -q`` on fresh copies of bench/prepare_all.py's tree with SITES
generated sites (default 200), RUNS times (default 3) with fsync on and with ``KRMFN_FSYNC=0``,
alternating, and prints the median CPU seconds (user + sys of prepare-all and every process it
waited for) and the fsync calls of one run (strace, when installed). CPU, not wall: fsync's
wait for the disk is the machine's, its CPU is ours.
"""

from __future__ import annotations

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


def cpu_of(command: list[str], environ: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=environ, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    sites = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    environ = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    times: dict[str, list[float]] = {"on": [], "off": []}
    with tempfile.TemporaryDirectory() as tmp:
        source = make_tree(Path(tmp) / "source", sites)
        for number in range(runs):
            for mode in ("on", "off"):
                tree = Path(tmp) / f"{mode}-{number}"
                shutil.copytree(source, tree)
                env = {**environ, "KRMFN_FSYNC": "1" if mode == "on" else "0"}
                times[mode].append(
                    cpu_of([str(BIN / "krmfn"), "prepare-all", "-q", str(tree)], env)
                )
                shutil.rmtree(tree)
        calls = "-"
        strace = shutil.which("strace")
        if strace:
            tree = Path(tmp) / "count"
            shutil.copytree(source, tree)
            out = subprocess.run(
                [
                    strace,
                    "-f",
                    "-c",
                    "-e",
                    "trace=fsync",
                    "-o",
                    str(Path(tmp) / "count.txt"),
                    str(BIN / "krmfn"),
                    "prepare-all",
                    "-q",
                    str(tree),
                ],
                env=environ,
                check=False,
                stdout=subprocess.DEVNULL,
            )
            text = (Path(tmp) / "count.txt").read_text() if out.returncode == 0 else ""
            calls = next((ln.split()[3] for ln in text.splitlines() if ln.endswith("fsync")), "-")
    on, off = statistics.median(times["on"]), statistics.median(times["off"])
    print(f"prepare-all, {sites} sites, median of {runs} (CPU s, user+sys incl. children)")
    print(f"  fsync on:  {on:.2f}  {sorted(round(t, 2) for t in times['on'])}")
    print(f"  fsync off: {off:.2f}  {sorted(round(t, 2) for t in times['off'])}")
    print(f"  cost: {on - off:+.2f} s ({(on - off) / off:+.1%}); fsync calls in one run: {calls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
