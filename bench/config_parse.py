"""How long ``parse_config`` takes on each function's typed example config (its README's).

Two figures per function, in microseconds: ``cold``, the first parse in a process (the config
classes read for the first time: what every function pays at start-up), and ``warm``, a parse
after that. ``--against REV`` also runs the same script on the tree of a git revision (its
``krmlib/`` and ``krmfn/``, exported to a temporary folder) in alternating rounds and prints the
ratio this tree / REV: a ratio of one run, not a time to compare across machines.

    .venv/bin/python bench/config_parse.py
    .venv/bin/python bench/config_parse.py --against main --rounds 5
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _example(name: str, kind: str) -> str:
    """The first YAML block of the function's README with its typed config."""
    readme = (ROOT / "krmfn" / name.replace("-", "_") / "README.md").read_text()
    for block in re.findall(r"```yaml\n(.*?)```", readme, re.DOTALL):
        if re.search(rf"^kind: {kind}$", block, re.MULTILINE) and "krmfn.dev/" in block:
            return str(block)
    raise SystemExit(f"{name}: no typed example config in its README")


def _forget(cls: type[Any]) -> None:
    """Make every record class as if never used (what a new process sees)."""
    for sub in cls.__subclasses__():
        if "__krm_schema__" in sub.__dict__:  # the class as read on first use (krmlib._config)
            type.__delattr__(sub, "__krm_schema__")
        _forget(sub)


def measure(repeat: int) -> dict[str, tuple[float, float]]:
    """(cold, warm) microseconds per function: the median of ``repeat`` parses each."""
    from krmfn.registry import FUNCTIONS
    from krmlib import KubeObject, Record, parse_config

    out = {}
    for fn in FUNCTIONS:
        model = fn.load()[1]
        if not model.KIND:
            continue
        obj = KubeObject.from_yaml(_example(fn.name, model.KIND))
        cold, warm = [], []
        for _ in range(repeat):
            _forget(Record)
            start = time.perf_counter()
            parse_config(model, obj)
            cold.append(time.perf_counter() - start)
            start = time.perf_counter()
            parse_config(model, obj)
            warm.append(time.perf_counter() - start)
        out[fn.name] = (statistics.median(cold) * 1e6, statistics.median(warm) * 1e6)
    return out


def _run(tree: Path, repeat: int) -> dict[str, list[float]]:
    code = (
        f"import sys, json; sys.path.insert(0, {str(tree)!r}); "
        f"sys.path.insert(1, {str(ROOT / 'bench')!r}); import config_parse; "
        f"print(json.dumps(config_parse.measure({repeat})))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tree
    )
    data: dict[str, list[float]] = json.loads(run.stdout)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", help="a git revision to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    if not args.against:
        for name, (cold, warm) in measure(args.repeat).items():
            print(f"{name:20} cold {cold:8.1f} us  warm {warm:8.1f} us")
        return
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        archive = subprocess.run(
            ["git", "archive", args.against, "krmlib", "krmfn"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        ratios: dict[str, list[tuple[float, float]]] = {}
        figures: dict[str, list[tuple[float, float, float, float]]] = {}
        for _ in range(args.rounds):
            new_run, old_run = _run(ROOT, args.repeat), _run(old, args.repeat)
            for name, (cold, warm) in new_run.items():
                ocold, owarm = old_run[name]
                ratios.setdefault(name, []).append((cold / ocold, warm / owarm))
                figures.setdefault(name, []).append((cold, ocold, warm, owarm))
    print(f"this tree / {args.against}: median of {args.rounds} rounds (us: new/old)")
    for name, pairs in ratios.items():
        cold = statistics.median(p[0] for p in pairs)
        warm = statistics.median(p[1] for p in pairs)
        f = [statistics.median(x[i] for x in figures[name]) for i in range(4)]
        print(
            f"{name:20} cold {cold:5.2f} ({f[0]:7.1f}/{f[1]:7.1f})  "
            f"warm {warm:5.2f} ({f[2]:7.1f}/{f[3]:7.1f})"
        )


if __name__ == "__main__":
    main()
