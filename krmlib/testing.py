"""Golden-case harness, shared by every function's tests (public API).

A case is a folder ``<testdata>/<case>/`` (krmfn keeps one folder per function,
``testdata/<function>/<case>/``)::

    package/              the input kpt package (a Kptfile and YAML files)
    config.yaml           optional functionConfig (typed or ConfigMap)
    case.yaml             optional: {env: {K: V}, exitCode: 1, kpt: false, description: ...}
    expected/output.yaml  the function's stdout on the package's ResourceList (reviewed)
    expected/results.yaml optional: exit code and results (older cases; the results are also in
                          output.yaml, and the exit code follows from them)
    expected/package/     the package on disk after ``kpt fn eval --exec`` (exit 0 cases)

``check_golden`` runs the function in-process on the ResourceList kpt makes of the package
(``kpt fn source``), compares byte-for-byte, then runs it again on its own output and requires the
same items (idempotency). Without kpt on PATH, krmlib reads the package itself (kpt's order and
path annotations, the files' text) and the output is compared as data: items and results, kpt's
bookkeeping annotations aside. An ``output.yaml`` written without kpt starts with a comment
saying so and is compared as data with kpt too, until an update with kpt records kpt's bytes.
``check_kpt`` runs the console script through the real kpt binary and compares the files on
disk, twice.

In pytest, one line makes one test per case (the ``pytest11`` plugin ``krmlib.pytest_plugin``)::

    test_golden = golden_tests("testdata", process, Config, script="my-function")

``pytest --update-golden`` (or ``KRMLIB_UPDATE_GOLDEN=1``) rewrites the expected files from the
actual ones; read the diff before committing it.
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ._config.records import FunctionConfig
from ._io import runner as _runner
from ._io.confine import ALLOW_READ_ENV
from ._io.resourcelist import ResourceList
from ._io.runner import Process
from ._yaml import engines as _yaml

# In-process runs without the console script (tests, other tools); krmlib.testing's since 0.2.
run_text = _runner.run_text
run_resource_list = _runner.run_resource_list

UPDATE_ENV = "KRMLIB_UPDATE_GOLDEN"  # the old name, KRMFN_UPDATE_GOLDEN, still works
DEFAULT_ENV = {"SOURCE_DATE_EPOCH": "1700000000"}
KPT = os.environ.get("KPT", "kpt")

__all__ = [
    "DEFAULT_ENV",
    "GoldenCase",
    "assert_same_text",
    "check_golden",
    "check_kpt",
    "golden_cases",
    "golden_tests",
    "kpt_found",
    "kpt_source",
    "package_source",
    "read_tree",
    "run_kpt",
    "script_path",
    "updating",
]


def updating() -> bool:
    """Whether expected files are rewritten (``pytest --update-golden`` or
    ``KRMLIB_UPDATE_GOLDEN=1``), read at each call."""
    from ._base.errors import setting

    return (setting("UPDATE_GOLDEN") or "") not in ("", "0", "false")


def kpt_found() -> bool:
    """Whether the kpt binary (``$KPT``, default ``kpt``) is on PATH."""
    return shutil.which(KPT) is not None


class GoldenCase:
    """One case folder and its ``case.yaml`` (immutable: nothing assigns to it).

    ``function`` names the function (krmfn: the folder above the case), ``exit_code`` the
    expected exit code (``exitCode`` of case.yaml, else from results.yaml, else 1 when the
    expected output has an error result), ``kpt`` whether the kpt round trip runs."""

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


def golden_cases(testdata: Path | str, function: str = "") -> list[GoldenCase]:
    """Every case folder (one with a ``package/``) under ``testdata/<function>/``, or under
    ``testdata/`` itself without ``function``, sorted by name."""
    root = Path(testdata) / function if function else Path(testdata)
    cases = []
    for path in sorted(p for p in root.iterdir() if (p / "package").is_dir()):
        meta: dict[str, Any] = {}
        if (path / "case.yaml").exists():
            meta = _yaml.load_plain((path / "case.yaml").read_text()) or {}
        cases.append(
            GoldenCase(
                function=function or root.name,
                path=path,
                env={str(k): str(v) for k, v in (meta.get("env") or {}).items()},
                exit_code=int(meta["exitCode"]) if "exitCode" in meta else _expected_code(path),
                kpt=bool(meta.get("kpt", True)),
                description=str(meta.get("description", "")),
            )
        )
    return cases


def _expected_code(path: Path) -> int:
    """The exit code the expected files show: results.yaml's, else 1 when output.yaml has an
    error result (krmlib's rule), else 0."""
    for name, key in (("results.yaml", "exitCode"), ("output.yaml", None)):
        file = path / "expected" / name
        if file.exists():
            doc = _yaml.load_plain(file.read_text()) or {}
            if key is not None:
                return int(doc.get(key, 0))
            errors = [r for r in doc.get("results") or [] if r.get("severity") == "error"]
            return 1 if errors else 0
    return 0


def _declares_exit_code(case: GoldenCase) -> bool:
    meta = case.path / "case.yaml"
    return meta.exists() and "exitCode" in (_yaml.load_plain(meta.read_text()) or {})


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


def package_source(package: Path, config: Path | None = None) -> str:
    """The ResourceList krmlib makes of a package without kpt: the items kpt reads, in kpt's
    order, with kpt's path and index annotations, each as its file wrote it (kpt reformats
    them, so the text differs from :func:`kpt_source`'s; the data is the same)."""
    from ._io.package import Package
    from ._model.object import ANN_INDEX, ANN_LEGACY_INDEX

    rl = ResourceList()
    for obj in Package.read(package).items:
        rl.items.append(obj)
    if config is not None:
        docs = ResourceList.parse(config.read_text())
        if len(docs.items) != 1:
            raise AssertionError(f"{config}: expected exactly one config object")
        fn_config = docs.items[0]
        fn_config.set_path(config.name)  # as kpt fn source --fn-config annotates it
        fn_config.annotations[ANN_INDEX] = fn_config.annotations[ANN_LEGACY_INDEX] = "0"
        rl.function_config = fn_config
    return rl.to_yaml()


def assert_same_text(actual: str, expected_file: Path) -> None:
    """Compare with an expected file (or write it when updating)."""
    __tracebackhide__ = True  # a failure shows the diff, not the harness
    if updating():
        from ._io.atomic import write_file

        expected_file.parent.mkdir(parents=True, exist_ok=True)
        # The atomic writer keeps a user's file without its final newline; a golden file takes
        # the output's bytes exactly.
        if expected_file.is_file() and not expected_file.read_bytes().endswith(b"\n"):
            expected_file.unlink()
        write_file(expected_file, actual)
        return
    if not expected_file.exists():
        raise AssertionError(f"{expected_file} is missing (run pytest --update-golden)")
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
        raise AssertionError(
            f"{diff}\noutput differs from {expected_file} (above: - expected, + actual; "
            "pytest --update-golden rewrites it)"
        )


def _results_text(rl_text: str, exit_code: int) -> str:
    parsed = _yaml.load_plain(rl_text) or {}
    doc = {"exitCode": exit_code, "results": parsed.get("results") or []}
    return _yaml.dump_rt(_yaml.to_node(doc))


def _strip_results(rl_text: str) -> str:
    rl = ResourceList.parse(rl_text)
    return rl.to_yaml(with_results=False)


def _as_data(rl_text: str) -> Any:
    """A ResourceList as plain data without kpt's bookkeeping annotations (an annotations map
    left empty by that is dropped), to compare outputs made from differently formatted inputs."""
    from ._io.package import is_kpt_internal

    doc = _yaml.load_plain(rl_text) or {}
    for item in [*(doc.get("items") or []), doc.get("functionConfig")]:
        metadata = item.get("metadata") if isinstance(item, dict) else None
        annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
        if isinstance(annotations, dict):
            for key in [k for k in annotations if is_kpt_internal(str(k))]:
                del annotations[key]
            if not annotations:
                del metadata["annotations"]  # type: ignore[union-attr]
    return doc


# The first line of an output.yaml written without kpt: such a file is compared as data, with or
# without kpt, until an update with kpt on PATH records kpt's bytes (and drops this line).
WITHOUT_KPT = "# written without kpt (krmlib read the package): compared as data\n"


def _assert_same_data(actual: str, expected_file: Path, with_kpt: bool) -> None:
    """Compare as data; write the file (marked) when updating."""
    __tracebackhide__ = True  # a failure shows the diff, not the harness
    if updating() or not expected_file.exists():
        assert_same_text(WITHOUT_KPT + actual, expected_file)
        return
    got, want = _as_data(actual), _as_data(expected_file.read_text())
    if got != want:
        import json

        diff = "".join(
            difflib.unified_diff(
                json.dumps(want, indent=1, sort_keys=True).splitlines(keepends=True),
                json.dumps(got, indent=1, sort_keys=True).splitlines(keepends=True),
                str(expected_file),
                "actual",
            )
        )
        why = "it was written without kpt" if with_kpt else "kpt is not on PATH"
        raise AssertionError(
            f"{diff}\noutput differs from {expected_file} (compared as data, kpt's annotations "
            f"aside: {why})"
        )


def _written_without_kpt(expected: Path) -> bool:
    if not expected.exists():
        return False
    with expected.open(encoding="utf-8") as f:
        return f.readline() == WITHOUT_KPT


def check_golden(
    case: GoldenCase, process: Process, config_model: type[FunctionConfig] | None
) -> None:
    """Run the case in-process, compare, run again on the output (idempotency).

    With kpt on PATH the input is ``kpt fn source``'s and the output is compared byte for byte;
    without it the input is :func:`package_source`'s and the output is compared as data, and so
    is an ``output.yaml`` written without kpt (its first line says so) until an update with kpt
    records kpt's bytes."""
    __tracebackhide__ = True  # a failure shows the diff, not the harness
    with_kpt = kpt_found()
    if with_kpt:
        source = kpt_source(case.package, case.config)
    else:
        source = package_source(case.package, case.config)
    env = case_env(case)
    with _environ(env):
        output, code = run_text(process, config_model, source)
    expected = case.expected / "output.yaml"
    if with_kpt and (updating() or not _written_without_kpt(expected)):
        assert_same_text(output, expected)
    else:
        _assert_same_data(output, expected, with_kpt)
    results_file = case.expected / "results.yaml"
    if results_file.exists():
        assert_same_text(_results_text(output, code), results_file)
    if not updating():
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


def golden_tests(
    testdata: Path | str,
    process: Process,
    config_model: type[FunctionConfig] | None = None,
    *,
    script: str = "",
    function: str = "",
) -> Callable[[tuple[GoldenCase, bool]], None]:
    """A pytest test that krmlib's pytest plugin turns into one test per case folder.

    ``testdata`` is relative to the calling test file's folder; ``script`` is the console
    script kpt runs for the round trip (``test_golden[<case>:kpt]``, skipped with its reason
    when kpt is not on PATH, the case says ``kpt: false`` or no script is given)::

        test_golden = golden_tests("testdata", process, Config, script="my-function")
    """
    root = Path(testdata)
    if not root.is_absolute():
        caller = sys._getframe(1).f_globals.get("__file__")
        root = (Path(caller).resolve().parent if caller else Path.cwd()) / root

    def test_golden(krmlib_golden_case: tuple[GoldenCase, bool]) -> None:
        __tracebackhide__ = True  # a failure shows the diff, not the harness
        case, through_kpt = krmlib_golden_case
        if through_kpt:
            check_kpt(case, script)
        else:
            check_golden(case, process, config_model)

    test_golden.krmlib_golden = (root, function, script)  # type: ignore[attr-defined]
    return test_golden


def golden_params(spec: tuple[Path, str, str]) -> tuple[list[Any], list[str]]:
    """The plugin's parameters for a :func:`golden_tests` test: each case in-process, then
    through kpt (skipped with the reason when it cannot run)."""
    import pytest

    root, function, script = spec
    params: list[Any] = []
    ids: list[str] = []
    for case in golden_cases(root, function):
        params.append((case, False))
        ids.append(case.name)
        reason = ""
        if not case.kpt:
            reason = f"{case}: case.yaml says kpt: false"
        elif not script:
            reason = "golden_tests() got no script= for kpt to run"
        elif not kpt_found():
            reason = f"kpt not found on PATH ({KPT}): the kpt round trip needs it"
        elif case.exit_code == 0 and not updating() and not (case.expected / "package").is_dir():
            reason = f"{case}: no expected/package/ yet: run pytest --update-golden with kpt"
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        params.append(pytest.param((case, True), marks=marks))
        ids.append(f"{case.name}:kpt")
    return params, ids


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
    __tracebackhide__ = True  # a failure shows the diff, not the harness
    if updating():
        if expected.exists():
            shutil.rmtree(expected)
        shutil.copytree(actual, expected)
        return
    if not expected.exists():
        raise AssertionError(f"{expected} is missing (run pytest --update-golden)")
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
    __tracebackhide__ = True  # a failure shows the diff, not the harness
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / case.package.name
        shutil.copytree(case.package, work)
        args = ["fn", "eval", str(work), "--exec", script_path(script), "--truncate-output=false"]
        if case.config is not None:
            args += ["--fn-config", str(case.config)]
        done = run_kpt(args, env=case_env(case))
        exit_code = case.exit_code
        if updating() and not _declares_exit_code(case):  # a new case: as just written
            exit_code = _expected_code(case.path)
        if exit_code != 0:
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
