"""Every golden case of testdata/ through the images, under a cluster runner's constraints.

    .venv/bin/python scripts/images/golden_images.py TAG FUNCTION...

For each case folder testdata/<function>/<case>/ (krmlib.testing.golden_cases), the
ResourceList kpt makes of its package and config (`kpt fn source --fn-config`) goes
to the function twice:
  exec   .venv/bin/krmfn-<function>, in an empty working folder (an image sees no
         host files either);
  image  localhost/krmfn/<function>:TAG through scripts/images/runner-shim.sh (read-only
         root, no network, uid 65532, no capabilities);
both with SOURCE_DATE_EPOCH fixed, and the exit codes and the stdouts must be
equal. A case in HOST_ONLY (it needs a host program) is skipped with its reason.
Prints one line per function and every difference; exits 1 on any. Needs
KRMFN_REAL_TOOL (podman or docker); KRMFN_JOBS cases at a time (default 4: the
time goes to container start-up, not CPU).
"""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
import tempfile
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


def run(cmd: list[str], stdin: str, cwd: Path) -> tuple[int, str]:
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
    done = subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, cwd=cwd, env=env, check=False, timeout=120
    )
    return done.returncode, done.stdout


def compare(case: GoldenCase, tag: str, empty: Path) -> str:
    """'' when exec and image mode agree on the case, else what differs."""
    rl = kpt_source(case.package, case.config)
    script = Path(sys.executable).parent / f"krmfn-{case.function}"
    want = run([str(script)], rl, empty)
    image = f"localhost/krmfn/{case.function}:{tag}"
    got = run(
        [str(SHIM), "run", "--rm", "-i", f"--env=SOURCE_DATE_EPOCH={EPOCH}", image], rl, empty
    )
    if got == want:
        return ""
    diff = difflib.unified_diff(
        want[1].splitlines(), got[1].splitlines(), "exec", "image", lineterm=""
    )
    return "\n".join([f"FAIL {case}: exec exit {want[0]}, image exit {got[0]}", *list(diff)[:40]])


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    tag, functions = argv[1], argv[2:]
    jobs = int(os.environ.get("KRMFN_JOBS", "4"))
    failed = 0
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
            problems = [p for p in pool.map(lambda c: compare(c, tag, Path(empty)), cases) if p]
            for problem in problems:
                print(problem, file=sys.stderr)
            failed += len(problems)
            same = len(cases) - len(problems)
            print(f"golden_images: {fn}: {same} of {len(cases)} cases identical", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("KRMFN_SHIM_LOG", os.devnull)
    sys.exit(main(sys.argv))
