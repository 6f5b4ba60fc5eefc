"""Hostile input, round three (issue 27), where a check needs more than one error message:
preparer plugins that try to break the output, text kept as written, and the tree commands on
the hostile trees of testdata/bad/trees/. The per-function error cases are in
testdata/bad/domain.yaml, run by tests/test_bad_inputs.py."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
import yaml

from .no_repr import assert_no_repr, messages_of

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "testdata" / "bad"
TREES = BAD / "trees"
BIN = Path(sys.executable).parent
LIMIT = 120.0  # as tests/test_bad_inputs.py: a bound, not a speed figure

WIDGET = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/path: Kptfile
      internal.config.kubernetes.io/package-path: {root}
- apiVersion: example.com/v1
  kind: Widget
  metadata:
    name: w1
    annotations:
      config.kubernetes.io/path: widget.yaml
      internal.config.kubernetes.io/package-path: {root}
functionConfig:
  apiVersion: krmfn.dev/v1alpha1
  kind: Preparer
  metadata:
    name: preparer
  spec:
    plugins:
    - apiVersion: example.com/v1
      kind: Widget
      {plugin}
"""

PLUGIN = """\
import os
import sys

print("import-time print")


def noisy(ctx):
    print("PRINTED")
    sys.stdout.write("WRITTEN")
    sys.stdout.flush()
    os.write(1, b"FD1 WRITE\\n")
    assert sys.stdin.read() == ""
    assert os.read(0, 10) == b""
    return True


def failing(ctx):
    return {}["missing"]


def exiting(ctx):
    sys.exit(3)
"""


def run(
    command: list[str],
    data: bytes = b"",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    started = time.monotonic()
    done = subprocess.run(
        command,
        input=data,
        capture_output=True,
        cwd=cwd,
        timeout=LIMIT,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
        check=False,
    )
    assert time.monotonic() - started < LIMIT
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")[-2000:]
    stdout = done.stdout.decode(errors="replace")
    with contextlib.suppress(yaml.YAMLError):  # a ResourceList: scan its messages
        stdout = "\n".join(messages_of(yaml.safe_load(stdout))) or stdout
    assert_no_repr(stdout, done.stderr.decode(errors="replace"))  # issue 35
    return done


def preparer(tmp_path: Path, plugin: str) -> tuple[subprocess.CompletedProcess[bytes], Any]:
    text = WIDGET.format(root=tmp_path, plugin=plugin)
    done = run(
        [str(BIN / "krmfn-preparer")],
        text.encode(),
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
    )
    out = yaml.safe_load(done.stdout)  # one document: anything a plugin printed would break it
    assert isinstance(out, dict) and out["kind"] == "ResourceList", done.stdout[:300]
    return done, out


def messages(out: Any) -> list[str]:
    return [str(r.get("message")) for r in out.get("results") or []]


# --- plugins cannot break the output (27.4) ---------------------------------------------------


def test_python_plugin_prints_and_reads_stdin_without_touching_the_output(tmp_path: Path) -> None:
    (tmp_path / "hostile_plugin.py").write_text(PLUGIN)
    done, out = preparer(tmp_path, "python: hostile_plugin:noisy")
    assert done.returncode == 0, messages(out)
    widget = next(i for i in out["items"] if i["kind"] == "Widget")
    assert widget["metadata"]["annotations"]["nephio.org/prepared"] == "true"
    stderr = done.stderr.decode()
    for printed in ("import-time print", "PRINTED", "WRITTEN", "FD1 WRITE"):
        assert printed in stderr and printed.encode() not in done.stdout


def _line(text: str) -> int:
    return PLUGIN.splitlines().index(text) + 1


FAILING = '    return {}["missing"]'
EXITING = "    sys.exit(3)"


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        ("failing", "KeyError: 'missing' (at {file}:" + str(_line(FAILING)) + ")"),
        ("exiting", "SystemExit: 3 (at {file}:" + str(_line(EXITING)) + ")"),
    ],
)
def test_a_python_plugins_exception_is_its_own_error(
    tmp_path: Path, function: str, expected: str
) -> None:
    (tmp_path / "hostile_plugin.py").write_text(PLUGIN)
    done, out = preparer(tmp_path, f"python: hostile_plugin:{function}")
    assert done.returncode == 1
    message = f"Widget plugin (hostile_plugin:{function}): " + expected.format(
        file=tmp_path / "hostile_plugin.py"
    )
    assert message in messages(out)
    assert not any("internal error" in m for m in messages(out))


def test_a_plugin_module_that_fails_at_import_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "broken_plugin.py").write_text("print('hi')\nraise ValueError('no config')\n")
    done, out = preparer(tmp_path, "python: broken_plugin:anything")
    assert done.returncode == 1
    file = tmp_path / "broken_plugin.py"
    expected = f"cannot load 'broken_plugin:anything': ValueError: no config (at {file}:2)"
    assert any(expected in m for m in messages(out)), messages(out)


# --- exec plugins: bounded output and time (27.3) ---------------------------------------------


def test_an_exec_plugin_printing_100_mb_is_refused_early(tmp_path: Path) -> None:
    script = tmp_path / "flood.py"
    script.write_text("import sys\nsys.stdin.read()\nsys.stdout.write('x' * (100 << 20))\n")
    for fork in ("1", "0"):  # forked warm and started fresh
        os.environ["KRMFN_PLUGIN_FORK"] = fork
        try:
            done, out = preparer(tmp_path, "exec: ./flood.py")
        finally:
            del os.environ["KRMFN_PLUGIN_FORK"]
        assert done.returncode == 1
        assert any("printed more than 64 MiB on stdout" in m for m in messages(out)), messages(out)


def test_the_timeout_covers_reading_the_plugins_output() -> None:
    from krmfn.preparer.executors import _parse_by

    ctx = SimpleNamespace(
        spec=SimpleNamespace(timeout=0.2, label="Widget plugin (./slow)"),
        target=SimpleNamespace(kind="Widget", name="w1"),
    )

    def slow_parse(text: str) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # a parse that would run past the timeout
            pass
        return text

    from krmlib import KrmError

    started = time.monotonic()
    with pytest.raises(KrmError, match=r"timed out after 0\.2s"):
        _parse_by(cast(Any, ctx), time.monotonic() + 0.2, slow_parse, "x")
    assert time.monotonic() - started < 20  # stopped at the deadline, not after the parse
    assert _parse_by(cast(Any, ctx), time.monotonic() + 5, str.upper, "ok") == "OK"


# --- text as written (27.2) -------------------------------------------------------------------


def test_a_site_code_is_the_label_value_as_written() -> None:
    text = (BAD / "interface-name-invalid.yaml").read_text()
    text = text.replace("name: N6_Core", "name: n6").replace("siteCode: edge1", "siteCode: 0123")
    done = run([str(BIN / "krmfn-interface-expander")], text.encode())
    assert done.returncode == 0, done.stdout.decode()
    out = yaml.safe_load(done.stdout)
    sites = [
        i["spec"]["selector"]["matchLabels"]["nephio.org/site"]
        for i in out["items"]
        if i["kind"] in ("IPAllocation", "VLANAllocation")
    ]
    assert sites == ["0123", "0123"]  # not 123, the YAML 1.2 number


def test_a_capacity_is_copied_as_written(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    shutil.copytree(ROOT / "testdata" / "topology-to-pvs" / "basic" / "package", package)
    topology = next(p for p in package.glob("*.yaml") if "NFTopology" in p.read_text())
    text = topology.read_text()
    assert "maxSessions: 1000" in text
    text = text.replace("maxSessions: 1000", "maxSessions: 1e3, ports: 0123", 1)
    topology.write_text(text)
    source = subprocess.run(["kpt", "fn", "source", str(package)], capture_output=True, check=True)
    done = run([str(BIN / "krmfn-topology-to-pvs")], source.stdout)
    assert done.returncode == 0, done.stdout.decode()[-2000:]
    assert b'capacity.maxSessions: "1e3"' in done.stdout
    assert b'capacity.ports: "0123"' in done.stdout
    assert b"1000.0" not in done.stdout


# --- the tree commands on hostile trees (27.3, 27.6, 27.7) ------------------------------------


def krmfn(*args: str) -> subprocess.CompletedProcess[bytes]:
    done = run([str(BIN / "krmfn"), *args])
    for stream in (done.stdout, done.stderr):
        assert b"{'" not in stream and b"['" not in stream, stream[:500]  # no Python repr
    return done


def test_deployments_list_shows_fields_as_written_and_never_a_repr() -> None:
    done = krmfn("deployments", "list", str(TREES / "hostile-deployment"), "-o", "json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert (row["template"], row["site"]) == ("0123", "1.10")
    assert json.loads(row["parent"]) == {"id": 5}
    table = krmfn("deployments", "list", str(TREES / "hostile-deployment"))
    assert table.stdout.split(b"\n")[1].split() == [
        b"deployments/site-a",
        b"0123",
        b"1.10",
        b'{"id":5}',
        b"yes",
        b"no",
    ]


def test_deployments_list_matches_a_backtracking_pattern_in_linear_time() -> None:
    tree = str(TREES / "hostile-deployment")
    pattern = "note=" + "*-" * 60 + "end"  # a regular expression backtracks for minutes here
    done = krmfn("deployments", "list", tree, "--metadata", pattern, "-o", "json")
    assert done.returncode == 0 and json.loads(done.stdout) == []
    done = krmfn("deployments", "list", tree, "--metadata", "note=" + "*-" * 60 + "x", "-o", "json")
    assert [r["id"] for r in json.loads(done.stdout)] == ["deployments/site-a"]


def test_prepare_all_refuses_two_catalog_packages_with_one_id(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(TREES / "duplicate-catalog-ids", tree)
    done = krmfn("prepare-all", str(tree), "--catalog", str(tree / "catalog"))
    assert done.returncode == 1
    assert b"two catalog packages have the id nf/upf: upf-a and upf-b" in done.stderr
