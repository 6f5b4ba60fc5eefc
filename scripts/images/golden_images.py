"""Every golden case of testdata/ through the images, under a cluster runner's constraints.

    .venv/bin/python scripts/images/golden_images.py TAG FUNCTION...
    .venv/bin/python scripts/images/golden_images.py --want W --got IMAGE [--cases N] FUNCTION...

For each case folder testdata/<function>/<case>/ (krmlib.testing.golden_cases), the
ResourceList kpt makes of its package and config (`kpt fn source --fn-config`) goes
to the function twice, "want" and "got":
  exec   .venv/bin/krmfn-<function>, in an empty working folder (an image sees no
         host files either); the default want;
  IMAGE  an image reference with {fn} for the function's name (the default got:
         localhost/krmfn/{fn}:TAG), run through scripts/images/runner-shim.sh
         (read-only root, no network, uid 65532, no capabilities);
both with SOURCE_DATE_EPOCH fixed, and the exit codes and the stdouts must be
equal byte for byte. `--want localhost/krmfn/{fn}:v1 --got localhost/krmfn/{fn}:v1-arm64`
compares the arm64 image under emulation with the amd64 one. `--cases N` takes the
first N cases of each function (sorted by name); all by default.
A case in HOST_ONLY (it needs a host program) is skipped with its reason.
Prints one line per function (cases identical, and the summed run time of each
side with their ratio) and every difference; exits 1 on any. Needs KRMFN_REAL_TOOL
(podman or docker); KRMFN_JOBS cases at a time (default 4: the time goes to
container start-up, not CPU).
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from krmlib.testing import GoldenCase, golden_cases, kpt_source

ROOT = Path(__file__).resolve().parents[2]
SHIM = ROOT / "scripts" / "images" / "runner-shim.sh"
# A fixed clock for both modes (deletion marks carry the time of the run).
EPOCH = "1700000000"
# Cases that need the host, with the reason; reported, not compared.
HOST_ONLY = {
    "preparer/plugin-fails": "its exec plugin is `sh -c ...` on the host; an image has no shell",
}


def run(cmd: list[str], stdin: str, cwd: Path) -> tuple[int, str, float]:
    """(exit code, stdout, seconds)."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
    t0 = time.monotonic()
    done = subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, cwd=cwd, env=env, check=False, timeout=300
    )
    return done.returncode, done.stdout, time.monotonic() - t0


def command(side: str, function: str) -> list[str]:
    """The command line of one side: 'exec' or an image template."""
    if side == "exec":
        return [str(Path(sys.executable).parent / f"krmfn-{function}")]
    image = side.format(fn=function)
    return [str(SHIM), "run", "--rm", "-i", f"--env=SOURCE_DATE_EPOCH={EPOCH}", image]


def compare(
    case: GoldenCase, want_side: str, got_side: str, empty: Path
) -> tuple[str, float, float]:
    """('' when both sides agree on the case, else what differs; seconds of each side)."""
    rl = kpt_source(case.package, case.config)
    want = run(command(want_side, case.function), rl, empty)
    got = run(command(got_side, case.function), rl, empty)
    if got[:2] == want[:2]:
        return "", want[2], got[2]
    diff = difflib.unified_diff(
        want[1].splitlines(), got[1].splitlines(), "want", "got", lineterm=""
    )
    head = f"FAIL {case}: {want_side} exit {want[0]}, {got_side} exit {got[0]}"
    return "\n".join([head, *list(diff)[:40]]), want[2], got[2]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("--want", default="exec")
    parser.add_argument("--got")
    parser.add_argument("--cases", type=int, default=0)
    parser.add_argument("args", nargs="+")
    opts = parser.parse_args(argv[1:])
    if opts.got is None:
        tag, *functions = opts.args
        got_side = f"localhost/krmfn/{{fn}}:{tag}"
    else:
        functions, got_side = opts.args, opts.got
    if not functions:
        print(__doc__, file=sys.stderr)
        return 2
    jobs = int(os.environ.get("KRMFN_JOBS", "4"))
    failed = 0
    total_want = total_got = 0.0
    with tempfile.TemporaryDirectory() as empty, ThreadPoolExecutor(jobs) as pool:
        for fn in functions:
            cases = []
            for case in golden_cases(ROOT / "testdata", fn):
                if str(case) in HOST_ONLY:
                    print(
                        f"golden_images: skipping {case}: {HOST_ONLY[str(case)]}", file=sys.stderr
                    )
                else:
                    cases.append(case)
            cases.sort(key=str)
            if opts.cases > 0:
                cases = cases[: opts.cases]
            results = list(pool.map(lambda c: compare(c, opts.want, got_side, Path(empty)), cases))
            problems = [p for p, _, _ in results if p]
            for problem in problems:
                print(problem, file=sys.stderr)
            failed += len(problems)
            t_want = sum(w for _, w, _ in results)
            t_got = sum(g for _, _, g in results)
            total_want += t_want
            total_got += t_got
            ratio = f"{t_got / t_want:.2f}x" if t_want else "-"
            print(
                f"golden_images: {fn}: {len(cases) - len(problems)} of {len(cases)} cases identical"
                f" (want {t_want:.1f} s, got {t_got:.1f} s, got/want {ratio})",
                file=sys.stderr,
            )
    if total_want:
        print(
            f"golden_images: total want {total_want:.1f} s, got {total_got:.1f} s,"
            f" got/want {total_got / total_want:.2f}x",
            file=sys.stderr,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("KRMFN_SHIM_LOG", os.devnull)
    sys.exit(main(sys.argv))
