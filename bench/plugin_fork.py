"""What the warm fork of Python exec plugins gains (issue 24.5): one krmlib plugin called N times
through the preparer's runner (``run_in_group``), forked from this warm process and started
fresh (``KRMFN_PLUGIN_FORK=0``), alternating, on the same input. Prints the median wall time and
CPU (this process and its children) per call, and their ratio.

    .venv/bin/python bench/plugin_fork.py [--calls 30]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

PLUGIN = """\
import sys

from krmlib import ResourceList, run


def process(rl: ResourceList, config: None) -> None:
    for obj in rl.items:
        obj.annotations["nephio.org/prepared"] = "true"


sys.exit(run(process, None, name="mark-prepared"))
"""

INPUT = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(
    f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm{i}\n  data:\n    k: v{i}\n"
    for i in range(20)
)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from krmfn.preparer.executors import run_in_group
    from krmfn.preparer.python_fork import FORK_ENV

    times: dict[str, list[tuple[float, float]]] = {"forked": [], "fresh": []}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "plugin.py"
        script.write_text(PLUGIN)
        argv = [sys.executable, str(script)]
        data = INPUT.encode()
        for call in range(args.calls * 2):
            mode = "forked" if call % 2 == 0 else "fresh"
            os.environ[FORK_ENV] = "1" if mode == "forked" else "0"
            wall, cpu = time.perf_counter(), _cpu()
            done = run_in_group(argv, data, 60, tmp)
            wall, cpu = time.perf_counter() - wall, _cpu() - cpu
            assert done.returncode == 0 and b"nephio.org/prepared" in done.stdout, done.stderr
            times[mode].append((wall, cpu))
    rows = {
        mode: (
            statistics.median(w for w, _ in values) * 1000,
            statistics.median(c for _, c in values) * 1000,
        )
        for mode, values in times.items()
    }
    print(f"{args.calls} calls each, median per call:")
    for mode, (wall, cpu) in rows.items():
        print(f"  {mode:6}  wall {wall:6.1f} ms  cpu {cpu:6.1f} ms")
    fresh, forked = rows["fresh"], rows["forked"]
    print(f"  fresh / forked: wall {fresh[0] / forked[0]:.1f}x, cpu {fresh[1] / forked[1]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
