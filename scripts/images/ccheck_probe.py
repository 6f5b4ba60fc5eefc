"""Which whole-input check the functions run in an image: krmlib's C extension or the fallback.

    .venv/bin/python scripts/images/ccheck_probe.py [--forced-python] IMAGE FUNCTION...

IMAGE is an image reference with {fn} for the function's name (``localhost/krmfn/{fn}:v0.2.0``,
``localhost/krmfn-e2e/{fn}:arm64``). The images carry krmlib's wheel with its C input check
(``krmlib._yaml.ccheck`` over libyaml, built for their architecture by the Dockerfile's
wheel-build stage); without it, or without libyaml in the runtime, every function would fall
back to the Python check (same verdicts, about ten times the CPU), which no output shows. So,
for each function:

1. the case: the first golden case of testdata/ (sorted by name) that exits 0 and that the C
   check accepts on this machine (exec mode, the project's venv): ``kpt fn source`` of its
   package and config is the input; the function's own output (``krmfn-<fn>``) is wanted;
2. in the image, under a cluster runner's constraints (runner-shim.sh): the image's Python runs
   PROBE, which counts the calls of the two checks of ``krmlib._yaml.syntax`` (on stderr: the
   check child of a big input is a fork) and then the function's console script. The C check
   must import and answer, the Python check must not run, and the exit code and stdout must be
   the wanted ones;
3. with ``--forced-python`` also with ``KRMLIB_PYTHON_CHECK=1`` (the documented switch): the
   Python check runs, the C one does not, and the output is the same.

Prints one line per function; exits 1 on any failure. Needs KRMFN_REAL_TOOL (podman or docker),
as golden_images.py. tests/test_images_recipe.py runs PROBE in exec mode.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from krmlib.testing import GoldenCase, golden_cases, kpt_source

ROOT = Path(__file__).resolve().parents[2]
SHIM = ROOT / "scripts" / "images" / "runner-shim.sh"
EPOCH = "1700000000"
# The image's Python; the probe runs there in place of the entrypoint.
IMAGE_PYTHON = "/opt/krmfn/bin/python"
MARK = "krmfn-ccheck-probe:"

# Run as `python -c PROBE krmfn-<fn>` with the ResourceList on stdin: the checks of
# krmlib._yaml.syntax wrapped to say on stderr which ran, then the function's console script.
PROBE = f"""
import importlib.metadata, os, sys
from krmlib._yaml import syntax
try:
    import krmlib._yaml.ccheck
except ImportError as err:
    os.write(2, b"{MARK} no ccheck: " + str(err).encode() + b"\\n")
fast, slow = syntax._fast, syntax.python_check
def c_walk(*args):
    answer = fast(*args)
    os.write(2, b"{MARK} c " + (b"answered" if answer is not None else b"unsure") + b"\\n")
    return answer
def python_walk(*args, **kwargs):
    os.write(2, b"{MARK} python\\n")
    return slow(*args, **kwargs)
if fast is not None:
    syntax._fast = c_walk
syntax.python_check = python_walk
name = sys.argv[1]
sys.argv = [name]
script, = (e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == name)
sys.exit(script.load()())
"""


def run(cmd: list[str], stdin: str, cwd: Path) -> tuple[int, str, str]:
    """(exit code, stdout, stderr)."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
    done = subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, cwd=cwd, env=env, check=False, timeout=600
    )
    return done.returncode, done.stdout, done.stderr


def probe_marks(stderr: str) -> list[str]:
    """What the probe said, in order ('c answered', 'c unsure', 'python', 'no ccheck: ...')."""
    return [line[len(MARK) :].strip() for line in stderr.splitlines() if line.startswith(MARK)]


def exec_probe(
    python: Path, function: str, stdin: str, cwd: Path, env: dict[str, str]
) -> tuple[int, str, str]:
    """PROBE in exec mode: a Python of a venv with krmfn installed."""
    done = subprocess.run(
        [str(python), "-c", PROBE, f"krmfn-{function}"],
        input=stdin, capture_output=True, text=True, cwd=cwd, check=False, timeout=600,
        env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH, **env},
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def pick_case(function: str, cwd: Path) -> tuple[GoldenCase, str, str] | None:
    """(case, its ResourceList, the function's output) of the first plain accepted case."""
    python = Path(sys.executable)
    for case in golden_cases(ROOT / "testdata", function):
        if case.exit_code != 0 or case.env:
            continue
        rl = kpt_source(case.package, case.config)
        code, out, err = exec_probe(python, function, rl, cwd, {})
        if code == 0 and probe_marks(err) == ["c answered"]:
            want = run([str(python.parent / f"krmfn-{function}")], rl, cwd)
            if want[0] == 0 and want[1] == out:
                return case, rl, out
    return None


def check(image: str, function: str, forced: bool, cwd: Path) -> list[str]:
    """What is wrong with one function's image ([] when nothing)."""
    picked = pick_case(function, cwd)
    if picked is None:
        return [f"{function}: no golden case that exits 0 and the C check accepts (exec mode)"]
    case, rl, want = picked
    ref = image.format(fn=function)
    base = [str(SHIM), "run", "--rm", "-i", f"--env=SOURCE_DATE_EPOCH={EPOCH}"]
    probe = ["--entrypoint", IMAGE_PYTHON, ref, "-c", PROBE, f"krmfn-{function}"]
    problems = []
    runs = [("", ["c answered"])]
    if forced:
        runs.append(("KRMLIB_PYTHON_CHECK=1", ["python"]))
    for env, marks in runs:
        cmd = [*base, *([f"--env={env}"] if env else []), *probe]
        code, out, err = run(cmd, rl, cwd)
        what = f"{function} ({case}{', ' + env if env else ''}) in {ref}"
        if probe_marks(err) != marks:
            problems.append(
                f"{what}: the checks said {probe_marks(err)}, want {marks}\n{err[-800:]}"
            )
        if code != 0 or out != want:
            problems.append(f"{what}: exit {code}, output {'equal' if out == want else 'differs'}")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("--forced-python", action="store_true")
    parser.add_argument("image")
    parser.add_argument("functions", nargs="+")
    opts = parser.parse_args(argv[1:])
    jobs = int(os.environ.get("KRMFN_JOBS", "4"))
    with tempfile.TemporaryDirectory() as empty, ThreadPoolExecutor(jobs) as pool:
        results = list(
            pool.map(
                lambda f: check(opts.image, f, opts.forced_python, Path(empty)), opts.functions
            )
        )
    failed = 0
    for function, problems in zip(opts.functions, results, strict=True):
        for problem in problems:
            print(f"ccheck_probe: FAIL {problem}", file=sys.stderr)
        failed += bool(problems)
        if not problems:
            also = " (the Python one with KRMLIB_PYTHON_CHECK=1)" if opts.forced_python else ""
            print(
                f"ccheck_probe: {function}: {opts.image.format(fn=function)} runs the C check"
                f"{also}, output as in exec mode",
                file=sys.stderr,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("KRMFN_SHIM_LOG", os.devnull)
    sys.exit(main(sys.argv))
