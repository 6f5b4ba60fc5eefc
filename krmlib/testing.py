"""Golden-case harness, shared by every function's tests (public API).

A case is a folder ``testdata/<function>/<case>/``::

    package/              the input kpt package (a Kptfile and YAML files)
    config.yaml           optional functionConfig (typed or ConfigMap)
    case.yaml             optional: {env: {K: V}, exitCode: 1, kpt: false, description: ...}
    expected/output.yaml  the function's stdout on ``kpt fn source package`` (reviewed)
    expected/results.yaml exit code and results (reviewed)
    expected/package/     the package on disk after ``kpt fn eval --exec`` (exit 0 cases)

``check_golden`` runs the function in-process on the ResourceList kpt makes of the package, compares
byte-for-byte, then runs it again on its own output and requires the same items (idempotency).
``check_kpt`` runs the console script through the real kpt binary and compares the files on disk,
twice. Set ``KRMFN_UPDATE_GOLDEN=1`` to rewrite the expected files from the actual ones, then read
the diff before committing it.
"""

from __future__ import annotations

import contextlib
import difflib
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import _yaml
from .config import FunctionConfig
from .package import ALLOW_READ_ENV
from .resourcelist import ResourceList
from .runner import Process, run_text

UPDATE = os.environ.get("KRMFN_UPDATE_GOLDEN", "") not in ("", "0", "false")
DEFAULT_ENV = {"SOURCE_DATE_EPOCH": "1700000000"}
KPT = os.environ.get("KPT", "kpt")

__all__ = [
    "DEFAULT_ENV",
    "GoldenCase",
    "assert_same_text",
    "check_golden",
    "check_kpt",
    "golden_cases",
    "kpt_source",
    "read_tree",
    "run_kpt",
    "script_path",
]


class GoldenCase:
    """One case folder and its ``case.yaml`` (immutable: nothing assigns to it)."""

    __slots__ = ("description", "env", "exit_code", "function", "kpt", "path")

    def __init__(
        self,
        function: str,
        path: Path,
        env: dict[str, str] | None = None,
        exit_code: int = 0,
        kpt: bool = True,
        description: str = "",
    ) -> None:
        self.function = function
        self.path = path
        self.env: dict[str, str] = {} if env is None else env
        self.exit_code = exit_code
        self.kpt = kpt
        self.description = description

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def package(self) -> Path:
        return self.path / "package"

    @property
    def config(self) -> Path | None:
        config = self.path / "config.yaml"
        return config if config.exists() else None

    @property
    def expected(self) -> Path:
        return self.path / "expected"

    def __str__(self) -> str:
        return f"{self.function}/{self.name}"


def golden_cases(testdata: Path | str, function: str) -> list[GoldenCase]:
    """Every case folder under ``testdata/<function>/`` (sorted by name)."""
    root = Path(testdata) / function
    cases = []
    for path in sorted(p for p in root.iterdir() if (p / "package").is_dir()):
        meta: dict[str, Any] = {}
        if (path / "case.yaml").exists():
            meta = _yaml.load_plain((path / "case.yaml").read_text()) or {}
        cases.append(
            GoldenCase(
                function=function,
                path=path,
                env={str(k): str(v) for k, v in (meta.get("env") or {}).items()},
                exit_code=int(meta.get("exitCode", 0)),
                kpt=bool(meta.get("kpt", True)),
                description=str(meta.get("description", "")),
            )
        )
    return cases


def case_env(case: GoldenCase) -> dict[str, str]:
    """The environment of a case: the fixed defaults, reads allowed in the case folder (the
    harness is the person running the function: a case may name files beside its package),
    then the case's own ``env``."""
    return {**DEFAULT_ENV, ALLOW_READ_ENV: str(case.path.resolve()), **case.env}


@contextlib.contextmanager
def _environ(env: dict[str, str]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def kpt_source(package: Path, config: Path | None = None) -> str:
    """The ResourceList kpt makes of a package (``kpt fn source``)."""
    cmd = [KPT, "fn", "source", str(package)]
    if config is not None:
        cmd += ["--fn-config", str(config)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"kpt fn source failed: {done.stderr}")
    return done.stdout


def assert_same_text(actual: str, expected_file: Path) -> None:
    """Compare with an expected file (or write it when updating)."""
    if UPDATE:
        expected_file.parent.mkdir(parents=True, exist_ok=True)
        expected_file.write_text(actual)
        return
    if not expected_file.exists():
        raise AssertionError(f"{expected_file} is missing (run with KRMFN_UPDATE_GOLDEN=1)")
    expected = expected_file.read_text()
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                str(expected_file),
                "actual",
            )
        )
        raise AssertionError(f"output differs from {expected_file}:\n{diff}")


def _results_text(rl_text: str, exit_code: int) -> str:
    parsed = _yaml.load_plain(rl_text) or {}
    doc = {"exitCode": exit_code, "results": parsed.get("results") or []}
    return _yaml.dump_rt(_yaml.to_node(doc))


def _strip_results(rl_text: str) -> str:
    rl = ResourceList.parse(rl_text)
    return rl.to_yaml(with_results=False)


def check_golden(
    case: GoldenCase, process: Process, config_model: type[FunctionConfig] | None
) -> None:
    """Run the case in-process, compare, run again on the output (idempotency)."""
    source = kpt_source(case.package, case.config)
    env = case_env(case)
    with _environ(env):
        output, code = run_text(process, config_model, source)
    assert_same_text(output, case.expected / "output.yaml")
    assert_same_text(_results_text(output, code), case.expected / "results.yaml")
    if not UPDATE:
        assert code == case.exit_code, f"{case}: exit code {code}, expected {case.exit_code}"
    if code != 0:
        return
    once = _strip_results(output)
    with _environ(env):
        twice, code2 = run_text(process, config_model, once)
    assert code2 == 0, f"{case}: second run failed"
    again = _strip_results(twice)
    if again != once:
        diff = "".join(
            difflib.unified_diff(
                once.splitlines(keepends=True), again.splitlines(keepends=True), "once", "twice"
            )
        )
        raise AssertionError(f"{case}: not idempotent:\n{diff}")


def script_path(name: str) -> str:
    """The console script next to the running Python (the project's venv)."""
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else name


def run_kpt(
    args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **DEFAULT_ENV, **(env or {})}
    full_env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{full_env.get('PATH', '')}"
    return subprocess.run(
        [KPT, *args], capture_output=True, text=True, env=full_env, cwd=cwd, check=False
    )


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file below ``root``: relative path -> bytes (to compare packages on disk)."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _compare_trees(actual: Path, expected: Path) -> None:
    if UPDATE:
        if expected.exists():
            shutil.rmtree(expected)
        shutil.copytree(actual, expected)
        return
    if not expected.exists():
        raise AssertionError(f"{expected} is missing (run with KRMFN_UPDATE_GOLDEN=1)")
    got, want = read_tree(actual), read_tree(expected)
    problems = []
    for name in sorted(set(got) | set(want)):
        if name not in got:
            problems.append(f"missing file {name}")
        elif name not in want:
            problems.append(f"unexpected file {name}:\n{got[name].decode(errors='replace')}")
        elif got[name] != want[name]:
            diff = "".join(
                difflib.unified_diff(
                    want[name].decode(errors="replace").splitlines(keepends=True),
                    got[name].decode(errors="replace").splitlines(keepends=True),
                    f"expected/{name}",
                    f"actual/{name}",
                )
            )
            problems.append(diff)
    if problems:
        raise AssertionError("package on disk differs:\n" + "\n".join(problems))


def check_kpt(case: GoldenCase, script: str) -> None:
    """``kpt fn eval --exec <script>`` on a copy of the package, twice; compare the files."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / case.package.name
        shutil.copytree(case.package, work)
        args = ["fn", "eval", str(work), "--exec", script_path(script), "--truncate-output=false"]
        if case.config is not None:
            args += ["--fn-config", str(case.config)]
        done = run_kpt(args, env=case_env(case))
        if case.exit_code != 0:
            assert done.returncode != 0, f"{case}: kpt should fail:\n{done.stderr}"
            same = filecmp.dircmp(case.package, work)
            assert not (same.diff_files or same.left_only or same.right_only), (
                f"{case}: a failing run changed the package"
            )
            return
        assert done.returncode == 0, f"{case}: kpt fn eval failed:\n{done.stdout}\n{done.stderr}"
        _compare_trees(work, case.expected / "package")
        again = run_kpt(args, env=case_env(case))
        assert again.returncode == 0, f"{case}: second kpt run failed:\n{again.stderr}"
        before = read_tree(case.expected / "package")
        after = read_tree(work)
        assert before == after, f"{case}: second kpt run changed files on disk"
