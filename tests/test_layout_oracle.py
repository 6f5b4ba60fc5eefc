"""The layout oracle: every function gives the same answer for every YAML layout kpt accepts.

krmlib reads and edits YAML text directly where it can (the fast paths); this holds every
function to one rule, whatever the fast paths do: an input re-written in another layout
(tests/layouts.py: flow maps, JSON, 3- and 4-space indentation, quoting, comments, anchors,
markers and a directive, CRLF) gives output that is **the same data** as the output for the
original, with the same exit code and the same results. kpt 1.0.0-beta.56 is the oracle of
"the same input": a layout kpt fn source reads to other data than the original is skipped for
that case, with the reason.

Four routes, each a real user's:
- ``package``: the package's files in the layout, ``kpt fn source`` (kpt's own re-writing of
  the layout, as ``kpt fn render`` gives it), then the function;
- ``stdin``: the whole ResourceList in the layout (a caller other than kpt: anchors across
  items, a directive before the ResourceList, CRLF);
- ``files``: ``krmfn-<fn> --fn-config CFG DIR`` (krmlib's own disk reader);
- ``tree``: ``krmfn prepare-all`` on the oran-cu example in the layout.

``make test`` runs a fixed sample (every function and every layout at least once per route);
``make test-layouts`` (``KRMFN_LAYOUTS=full``) runs every case in every layout.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from krmfn.registry import BY_NAME, FUNCTIONS
from krmlib._io.runner import run_text
from krmlib.testing import GoldenCase, case_env, golden_cases, kpt_source

from .layouts import LAYOUTS, load_data, relayout

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"
FULL = os.environ.get("KRMFN_LAYOUTS") == "full"
CASES = [c for f in FUNCTIONS for c in golden_cases(TESTDATA, f.name)]
NAMES = sorted(LAYOUTS)
BIN = Path(sys.executable).parent
# The merger resolves spec.files against the working folder under kpt fn eval (test_golden.py).
IN_PACKAGE_FOLDER = {"merger"}
# Annotations kpt adds or renumbers: not part of what a function means.
_BOOKKEEPING = (
    "config.kubernetes.io/",
    "internal.config.kubernetes.io/",
    "internal.config.k8s.io/",
)
_KEPT = {"config.kubernetes.io/local-config", "internal.config.kubernetes.io/path"}


def _sample(route: int, per_function: int) -> list[tuple[GoldenCase, str]]:
    """Every (case, layout) in full mode; else, per function, ``per_function`` pairs a layout,
    the cases chosen in turn (a different case for each layout and route)."""
    if FULL:
        return [(c, layout) for c in CASES for layout in NAMES]
    pairs = []
    for function in FUNCTIONS:
        cases = [c for c in CASES if c.function == function.name]
        for index, layout in enumerate(NAMES):
            for k in range(per_function):
                pairs.append((cases[(index * per_function + k + 7 * route) % len(cases)], layout))
    return pairs


def _ids(pair: tuple[GoldenCase, str]) -> str:
    return f"{pair[0]}-{pair[1]}"


def normalised(text: str) -> Any:
    """A ResourceList (or a stream) as plain data, kpt's bookkeeping left out (but the path),
    results in order: what two runs on differently written inputs are compared as."""
    docs = load_data(text)
    return [_clean(doc) for doc in docs]


def _clean(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _clean(v) for k, v in node.items()}
        metadata = out.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("annotations"), dict):
            kept = {
                k: v
                for k, v in metadata["annotations"].items()
                if k in _KEPT or not k.startswith(_BOOKKEEPING)
            }
            if kept:
                metadata["annotations"] = kept
            else:
                del metadata["annotations"]
            if not metadata:
                del out["metadata"]
        return out
    if isinstance(node, list):
        return [_clean(v) for v in node]
    return node


def _relaid_copy(source: Path, dest: Path, layout: str) -> Path:
    """``source`` copied to ``dest`` with every YAML file (Kptfiles included) in ``layout``."""
    shutil.copytree(source, dest)
    for path in sorted(dest.rglob("*")):
        if path.is_file() and (path.suffix in (".yaml", ".yml") or path.name == "Kptfile"):
            text = path.read_text(encoding="utf-8")
            path.write_bytes(relayout(text, layout).encode())
    return dest


@functools.cache
def _original_source(case: GoldenCase) -> str:
    return kpt_source(case.package, case.config)


def _layout_source(case: GoldenCase, package: Path, config: Path | None, layout: str) -> str:
    """``kpt fn source`` of the package in ``layout``; the test is skipped, with the reason,
    when kpt refuses the layout or reads it to other data than the original."""
    try:
        source = kpt_source(package, config)
    except AssertionError as exc:  # kpt refused it (yaml.v3 knows only %YAML 1.1, say)
        pytest.skip(f"kpt fn source refuses {case} in layout {layout}: {exc}")
    if normalised(source) != normalised(_original_source(case)):
        pytest.skip(f"kpt fn source reads {case} in layout {layout} to other data")
    return source


def _relaid_case(case: GoldenCase, tmp_path: Path, layout: str) -> GoldenCase:
    """The case folder (its package, config and any file beside them) in ``layout``."""
    copy = _relaid_copy(case.path, tmp_path / case.name, layout)
    return GoldenCase(case.function, copy, case.env, case.exit_code, case.kpt)


def _run(case: GoldenCase, source: str, where: GoldenCase, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``case``'s function on ``source``, in the case folder ``where`` (the original or a copy:
    its files are the ones the function may read)."""
    process, config = BY_NAME[case.function].load()
    with monkeypatch.context() as patch:
        for key, value in case_env(where).items():
            patch.setenv(key, value)
        if case.function in IN_PACKAGE_FOLDER:
            patch.chdir(where.package)
        output, code = run_text(process, config, source)
    return code, normalised(output)


def _same_answer(case: GoldenCase, layout: str, got: Any, want: Any) -> None:
    code, data = got
    want_code, want_data = want
    assert code == want_code, (
        f"{case} in layout {layout}: exit {code}, {want_code} for the original"
    )
    if data != want_data:
        import difflib
        import json

        diff = "\n".join(
            difflib.unified_diff(
                json.dumps(want_data, indent=1, sort_keys=True).splitlines(),
                json.dumps(data, indent=1, sort_keys=True).splitlines(),
                "original layout",
                layout,
                lineterm="",
                n=2,
            )
        )
        pytest.fail(f"{case} in layout {layout}: other output than the original's\n{diff}")


# --- route 1: the package's files in the layout, as kpt gives them ------------------------------


@pytest.mark.kpt
@pytest.mark.parametrize("pair", _sample(0, 1), ids=_ids)
def test_package_layout(
    pair: tuple[GoldenCase, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, layout = pair
    copy = _relaid_case(case, tmp_path, layout)
    source = _layout_source(case, copy.package, copy.config, layout)
    want = _run(case, _original_source(case), case, monkeypatch)
    _same_answer(case, layout, _run(copy, source, copy, monkeypatch), want)


# --- route 2: the whole ResourceList in the layout ------------------------------------------------


@pytest.mark.kpt
@pytest.mark.parametrize("pair", _sample(1, 1), ids=_ids)
def test_stdin_layout(pair: tuple[GoldenCase, str], monkeypatch: pytest.MonkeyPatch) -> None:
    case, layout = pair
    original = _original_source(case)
    source = relayout(original, layout)
    assert load_data(source) == load_data(original)  # the generator's own promise
    want = _run(case, original, case, monkeypatch)
    _same_answer(case, layout, _run(case, source, case, monkeypatch), want)


# --- route 3: krmlib's disk reader (file mode) ----------------------------------------------------


def _file_mode(case: GoldenCase, config: Path | None) -> Any:
    """``krmfn-<fn> [--fn-config CFG] PACKAGE`` run from inside the package (file mode prints
    paths relative to where it ran)."""
    args = [str(BIN / BY_NAME[case.function].script)]
    if config is not None:
        args += ["--fn-config", str(config)]
    done = subprocess.run(
        [*args, str(case.package)],
        capture_output=True,
        text=True,
        cwd=case.package,
        env={**os.environ, **case_env(case)},
        check=False,
    )
    return done.returncode, normalised(done.stdout)


# The layouts every reader of files on disk is held to in the sampled default (file mode, the
# merger's files, the tree commands): the ones users write by hand or their editors do.
DISK_LAYOUTS = ("indent-4", "flow-metadata", "crlf")


def _file_mode_sample() -> list[tuple[GoldenCase, str]]:
    """Every pair in full mode; else every third pair, and every function in each of
    :data:`DISK_LAYOUTS`."""
    pairs = _sample(2, 1)
    if FULL:
        return pairs
    return [pair for n, pair in enumerate(pairs) if n % 3 == 0 or pair[1] in DISK_LAYOUTS]


@pytest.mark.kpt
@pytest.mark.parametrize("pair", _file_mode_sample(), ids=_ids)
def test_file_mode_layout(pair: tuple[GoldenCase, str], tmp_path: Path) -> None:
    case, layout = pair
    copy = _relaid_case(case, tmp_path / "relaid", layout)
    _layout_source(case, copy.package, copy.config, layout)
    original = shutil.copytree(case.path, tmp_path / "original" / case.name)
    want = _file_mode(GoldenCase(case.function, original, case.env), case.config)
    _same_answer(case, layout, _file_mode(copy, copy.config), want)


# The merger reads its ``spec.files`` from disk (beside the package or in it): those files in
# the layout, under kpt fn source of the package in the layout.
MERGER_FILE_CASES = [
    c
    for c in CASES
    if c.function == "merger"
    and c.config is not None
    and "files" in c.config.read_text(encoding="utf-8")
    and c.exit_code == 0
]


@pytest.mark.kpt
@pytest.mark.parametrize(
    "pair",
    [(c, layout) for c in MERGER_FILE_CASES for layout in (NAMES if FULL else DISK_LAYOUTS)],
    ids=_ids,
)
def test_merger_files_layout(
    pair: tuple[GoldenCase, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, layout = pair
    copy = _relaid_case(case, tmp_path, layout)
    source = _layout_source(case, copy.package, copy.config, layout)
    want = _run(case, _original_source(case), case, monkeypatch)
    _same_answer(case, layout, _run(copy, source, copy, monkeypatch), want)


# --- route 4: a tree command on an example --------------------------------------------------------

TREE_LAYOUTS = NAMES if FULL else ["indent-4", "flow-metadata", "anchors", "crlf"]


@functools.cache
def _prepared_original(work: Path) -> dict[str, Any]:
    tree = shutil.copytree(ROOT / "examples" / "oran-cu", work / "original")
    done = _krmfn("prepare-all", "-q", str(tree))
    assert done.returncode == 0, done.stderr
    return _tree_data(tree)


@functools.cache
def _example_source() -> str:
    return kpt_source(ROOT / "examples" / "oran-cu")


def _krmfn(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "krmfn"), *args], capture_output=True, text=True, check=False, timeout=600
    )


def _tree_data(root: Path) -> dict[str, Any]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not any(p.startswith(".") for p in path.relative_to(root).parts):
            rel = str(path.relative_to(root))
            if path.suffix in (".yaml", ".yml") or path.name == "Kptfile":
                out[rel] = normalised(path.read_text(encoding="utf-8"))
            else:
                out[rel] = path.read_bytes()
    return out


@pytest.mark.kpt
@pytest.mark.parametrize("layout", TREE_LAYOUTS)
def test_prepare_all_layout(layout: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    want = _prepared_original(tmp_path_factory.getbasetemp() / "oran-cu-original")
    tree = _relaid_copy(
        ROOT / "examples" / "oran-cu", tmp_path_factory.mktemp(layout) / "t", layout
    )
    try:
        source = kpt_source(tree)
    except AssertionError as exc:
        pytest.skip(f"kpt fn source refuses the oran-cu tree in layout {layout}: {exc}")
    if normalised(source) != normalised(_example_source()):
        pytest.skip(f"kpt fn source reads the oran-cu tree in layout {layout} to other data")
    done = _krmfn("prepare-all", "-q", str(tree))
    assert done.returncode == 0, done.stderr
    got = _tree_data(tree)
    assert sorted(got) == sorted(want), f"prepare-all in layout {layout} wrote other files"
    differ = [name for name in want if got[name] != want[name]]
    assert not differ, f"prepare-all in layout {layout}: other content in {differ}"
    check = _krmfn("prepare-all", "--check", str(tree))
    assert check.returncode == 0, check.stdout + check.stderr


def _listed(tree: Path) -> Any:
    import json

    done = _krmfn("deployments", "list", str(tree), "-o", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.kpt
@pytest.mark.parametrize("layout", TREE_LAYOUTS)
def test_deployments_list_layout(layout: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """``krmfn deployments list`` on the prepared oran-cu tree, every file of it (the children's
    Kptfiles and Deployments included) in the layout: the same deployments, states and metadata."""
    base = tmp_path_factory.getbasetemp() / "oran-cu-original"
    _prepared_original(base)
    original = base / "original"
    want = _listed(original)
    tree = _relaid_copy(original, tmp_path_factory.mktemp(f"list-{layout}") / "t", layout)
    try:
        source = kpt_source(tree)
    except AssertionError as exc:
        pytest.skip(f"kpt fn source refuses the prepared oran-cu tree in layout {layout}: {exc}")
    if normalised(source) != normalised(kpt_source(original)):
        pytest.skip(f"kpt fn source reads the prepared oran-cu tree in layout {layout} otherwise")
    assert len(want) == 7  # the root and its six children
    assert _listed(tree) == want, f"deployments list in layout {layout}"
