"""Messages show values as YAML or JSON text, never as a Python repr (issue 35, item 5).
tests/test_bad_inputs.py and tests/test_hostile.py scan every message they produce with
:func:`tests.no_repr.assert_no_repr`; here the scanner itself, and the inputs of the issue whose
messages were missing or internal errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .no_repr import assert_no_repr, messages_of, python_repr

BIN = Path(sys.executable).parent
HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
SITE = (
    "- apiVersion: topology.nephio.org/v1alpha1\n  kind: Site\n  metadata:\n    name: x\n  spec:\n"
)


@pytest.mark.parametrize(
    "text",
    [
        "no capacity for <KubeObject v1 ConfigMap cm>",
        "<ResourceList resourcelist: 3 items, 0 results>",
        "got {'id': 5}",
        "expected one of ['a', 'b']",
        "read b'\\x00abc'",
        "in PosixPath('/tmp/x')",
        "<krmfn.x.Thing object at 0x7f00>",
    ],
)
def test_the_scanner_finds_each_shape_of_a_repr(text: str) -> None:
    assert python_repr(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "site code 'edge 1' is not a label value",
        'status.vlanID is "100", expected an integer',
        'parentDeploymentId is {"id":5}',
        'metadata.annotations["a.b/c"] must be a string',
        "templates place each other in a cycle: nf/a -> nf/b -> nf/a",
    ],
)
def test_yaml_and_json_text_is_not_a_repr(text: str) -> None:
    assert python_repr(text) is None


def _preparer(text: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [str(BIN / "krmfn-preparer")],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr
    # the items keep the tag or the complex key as written: only the results are read
    out = yaml.safe_load(done.stdout[done.stdout.index("\nresults:") :])
    assert_no_repr(*messages_of(out), done.stderr)
    return done.returncode, messages_of(out)


@pytest.mark.parametrize(
    "spec",
    ["    siteId: !Ref foo\n", "    siteId: e\n    extra: !Ref [a, b]\n"],
    ids=["scalar", "sequence"],
)
def test_a_custom_tag_in_the_preparers_input_has_a_message(spec: str) -> None:
    """``!Ref`` (CloudFormation's) exited 1 with no message in one build (a regression)."""
    code, messages = _preparer(HEAD + SITE + spec)
    assert code == 1
    assert any("!Ref" in m for m in messages), messages


def test_a_complex_key_is_a_message_not_an_internal_error() -> None:
    code, messages = _preparer(HEAD + SITE + "    ? [a, b]\n    : c\n    siteId: e\n")
    assert code == 1
    assert any("a complex key" in m and "line 6" in m for m in messages), messages
    assert not any("internal error" in m for m in messages), messages
