"""A bug in a function's own code: one error result naming the exception, the author's file:line
and the item; the traceback only behind KRMLIB_DEBUG, which --help names. And --help tells the
config's own apiVersion and kind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from krmlib import FunctionConfig, ResourceList, run
from krmlib.testing import run_kpt, run_resource_list

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
DEPLOYMENT = (
    "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n"
    "  spec:\n    template: {}\n"
)


def process(rl: ResourceList, config: None) -> None:
    for obj in rl.items.where(kind="Deployment"):
        obj.set("spec.replicas", obj.get("spec.replicas") + 1)  # the bug


LINE_OF_THE_BUG = (
    Path(__file__)
    .read_text()
    .splitlines()
    .index('        obj.set("spec.replicas", obj.get("spec.replicas") + 1)  # the bug')
    + 1
)


def test_a_bug_names_the_exception_the_authors_line_and_the_item() -> None:
    rl = run_resource_list(process, None, HEAD + DEPLOYMENT)
    [result] = list(rl.results)
    assert result.severity == "error"
    assert result.message == (
        "internal error: TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'"
        f" (at tests/test_sdk_errors.py:{LINE_OF_THE_BUG} in process;"
        " KRMLIB_DEBUG=1 prints the traceback)"
    )
    assert result.resource_ref is not None and result.resource_ref["name"] == "web"


def _helper_that_fails(value: str) -> int:
    return int(value)  # ValueError raised inside the standard library's int()


def process_calls_a_helper(rl: ResourceList, config: None) -> None:
    for obj in rl.items:
        _helper_that_fails(obj.name)


def test_the_innermost_frame_of_the_authors_code_is_named_not_the_librarys() -> None:
    [result] = list(run_resource_list(process_calls_a_helper, None, HEAD + DEPLOYMENT).results)
    line = _helper_that_fails.__code__.co_firstlineno + 1
    assert f"(at tests/test_sdk_errors.py:{line} in _helper_that_fails;" in (result.message)
    assert result.message.startswith("internal error: ValueError: invalid literal for int()")


def test_a_long_exception_text_is_cut() -> None:
    def fails(rl: ResourceList, config: None) -> None:
        raise RuntimeError("x" * 5000)

    [result] = list(run_resource_list(fails, None, HEAD + DEPLOYMENT).results)
    assert len(result.message) < 300 and "x..." in result.message
    assert result.resource_ref is None  # no item was being processed


BUGGY = textwrap.dedent(
    """\
    import sys

    from krmlib import ResourceList, run


    def process(rl: ResourceList, config: None) -> None:
        for obj in rl.items.where(kind="Deployment"):
            obj.set("spec.replicas", obj.get("spec.replicas") + 1)


    if __name__ == "__main__":
        sys.exit(run(process, None, name="buggy"))
    """
)


@pytest.mark.kpt
def test_kpt_shows_the_whole_message_and_the_traceback_only_on_request(tmp_path: Path) -> None:
    script = tmp_path / "buggy.py"
    script.write_text(BUGGY)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "app.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec: {}\n"
    )
    command = f"{sys.executable} {script}"
    done = run_kpt(["fn", "eval", str(package), "--exec", command], cwd=tmp_path)
    assert done.returncode != 0
    shown = done.stdout + done.stderr
    assert (
        "internal error: TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'"
        " (at buggy.py:8 in process; KRMLIB_DEBUG=1 prints the traceback)"
    ) in shown, shown
    assert "apps/v1/Deployment/web: internal error" in shown  # the item, from the resourceRef
    assert "Traceback" not in shown
    debug = run_kpt(
        ["fn", "eval", str(package), "--exec", command, "--truncate-output=false"],
        env={"KRMLIB_DEBUG": "1"},
        cwd=tmp_path,
    )
    assert "Traceback (most recent call last)" in debug.stderr and "buggy.py" in debug.stderr


class Labels(FunctionConfig):
    API_VERSION = "fn.example.com/v1"
    KIND = "Labels"
    team: str = "net"


def _labels(rl: ResourceList, config: Labels) -> None:
    pass


def test_help_names_the_configs_own_api_version_and_the_debug_switch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(_labels, Labels, name="labels", help_text="# labels\n", argv=["--help"]) == 0
    out = capsys.readouterr().out
    assert "--fn-config FILE      the functionConfig (typed fn.example.com/v1 Labels, or a" in out
    assert "krmfn.dev" not in out
    assert "KRMLIB_DEBUG=1" in out and out.endswith("\n# labels\n")


def test_a_wrong_config_kind_names_the_functions_own_api_version() -> None:
    config = "functionConfig:\n  apiVersion: krmfn.dev/v1alpha1\n  kind: Labels\n  spec: {}\n"
    rl = run_resource_list(_labels, Labels, HEAD + DEPLOYMENT + config)
    [result] = list(rl.results)
    assert "expected a v1 ConfigMap or fn.example.com/v1 Labels" in result.message


def test_a_console_script_without_debug_prints_no_traceback(tmp_path: Path) -> None:
    script = tmp_path / "buggy.py"
    script.write_text(BUGGY)
    env = {k: v for k, v in os.environ.items() if k != "KRMLIB_DEBUG"}
    done = subprocess.run(
        [sys.executable, str(script)],
        input=HEAD + DEPLOYMENT,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1 and done.stderr == ""
    assert "(at buggy.py:8 in process;" in done.stdout
