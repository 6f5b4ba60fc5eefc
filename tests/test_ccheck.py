"""The whole-input check's C walk (krmlib._yaml.ccheck, sdk/src/_ccheck.c) against the Python walk.

The extension answers an accepted input's outline or "unsure"; unsure runs the Python walk,
which gives every refusal and message. So the two agree when, for every input, the C walk is
either unsure or the Python walk accepts the input with the very same outline (every item's line,
offset and header values, the documents, functionConfig's shape, the top-level sections). The
inputs: every testdata and example file, the generated bad inputs, the layout oracle's layouts of
them, byte-level corruptions (hypothesis) and header values made of the characters that decide
whether YAML reads a string.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmlib._base.errors import InputError
from krmlib._yaml import syntax as _syntax
from tests import layouts
from tests.test_bad_input_properties import BASE, corrupted

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(
    not _syntax.has_c_check() and os.environ.get(_syntax.PYTHON_CHECK_ENV) == "1",
    reason="the extension is turned off",
)
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]
FULL = os.environ.get("HYPOTHESIS_PROFILE") == "full"


def _shape(outline: _syntax.Outline) -> tuple[Any, ...]:
    def heads(items: list[_syntax.Head]) -> list[tuple[Any, ...]]:
        return [(h.line, h.start, h.values, h.problem, h.merged) for h in items]

    return (
        outline.documents,
        outline.config,
        outline.config_line,
        outline.sections,
        heads(outline.items),
        heads(outline.docs),
    )


def agree(text: str) -> bool:
    """The C walk is unsure or says what the Python walk says; True: it answered (both paths
    annotation modes)."""
    answered = True
    for paths in (True, False):
        fast = _syntax.fast_outline(text, paths=paths)
        try:
            reference: _syntax.Outline | None = _syntax.python_check(text, paths=paths)
            refusal = None
        except InputError as exc:
            reference, refusal = None, (exc.message, exc.line, exc.column)
        if fast is None:
            answered = False
            continue
        assert reference is not None, f"C accepts what Python refuses: {refusal}"
        assert _shape(fast) == _shape(reference)
        # check_syntax (the entry point) answers with the C walk's outline here
        assert _shape(_syntax.check_syntax(text, paths=paths)) == _shape(reference)
    return answered


def _texts() -> dict[str, str]:
    files = sorted(
        [
            *(ROOT / "testdata").rglob("*"),
            *(ROOT / "examples").rglob("*"),
            *ROOT.glob("tests/**/testdata/**/*"),
        ]
    )
    texts = {}
    for path in files:
        if path.is_file() and (path.suffix in (".yaml", ".yml") or path.name == "Kptfile"):
            try:
                texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # refused before the check (tests/test_bad_inputs.py)
    return texts


TEXTS = _texts()


def test_the_extension_is_built_in_this_install() -> None:
    """`make install` and the test-pythons venvs build it (sdk/setup.py)."""
    assert _syntax.has_c_check(), "krmlib._yaml.ccheck is missing: is libyaml-dev installed?"


def test_every_testdata_and_example_file_agrees() -> None:
    answered = sum(agree(text) for text in TEXTS.values())
    assert len(TEXTS) > 2000
    # The C walk answers the plain files (most of them): the speed is there, not only the safety.
    assert answered > 0.9 * len(TEXTS), (answered, len(TEXTS))


def test_the_generated_bad_inputs_agree() -> None:
    from tests.test_bad_inputs import _generated

    for name, (make, _needle) in _generated().items():
        if name != "huge-scalar":  # 100 MB: the same walk as a small scalar
            agree(make().decode())
    big = (
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  big: "'
        + "x" * 2**20
        + '"\n'
    )
    assert agree(big)


@pytest.mark.parametrize("layout", sorted(layouts.LAYOUTS))
def test_the_layout_oracles_layouts_agree(layout: str) -> None:
    sources = [name for name in TEXTS if name.startswith("examples/") or "/golden" in name]
    done = 0
    for name in sources[:150]:
        try:
            text = layouts.relayout(TEXTS[name], layout)
        except Exception:
            continue  # a file the layouts cannot re-make (several documents kinds, say)
        agree(text)
        done += 1
    assert done > 20


@settings(max_examples=3000 if FULL else 300, deadline=None, suppress_health_check=HEALTH)
@given(corrupted())
def test_corrupted_resource_lists_agree(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    agree(text)


# The characters that decide whether YAML reads a plain scalar as a string (numbers in every base,
# .inf/.nan, dates, YAML 1.1 booleans, null) and a few that do not.
SCALAR_CHARS = "0123456789+-._:eExXoObBaAfFiInNtTrRuUlLsSyY~ zq"
HEADER_SCALARS = [
    "1", "-1", "+1", "1_000", "1.5", "1.", ".5", "-.5", "1e5", "1E+5", "1.5e-3", "1e", "e5",
    "0o17", "0o8", "0x1F", "0xg", "0b101", ".inf", "-.Inf", "+.INF", ".nan", ".NaN", ".NAN",
    "-.nan", "inf", "nan", "true", "True", "TRUE", "tRUE", "false", "no", "No", "NO", "nO",
    "y", "Y", "yes", "on", "Off", "OFF", "oFF", "~", "null", "Null", "NULL", "nULL", "2024-01-02",
    "2024-1-2", "2024-01-02T10:00:00Z", "2024-01-02 x", "2024-01", "12345-1-1", "1:20", "0.1.2",
    "v1", "nginx", "free5gc", "fabric", "+", "-", ".", "-x", "..", "0", "00", "0o", "0x",
]  # fmt: skip


def _with_headers(kind: str, name: str, namespace: str) -> str:
    return (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        f"- apiVersion: v1\n  kind: {kind}\n  metadata:\n    name: {name}\n"
        f"    namespace: {namespace}\n"
    )


@pytest.mark.parametrize("value", HEADER_SCALARS)
def test_header_values_agree(value: str) -> None:
    agree(_with_headers(value, value, value))
    agree(_with_headers("ConfigMap", "cm", value))
    agree(_with_headers("ConfigMap", f"'{value}'", value))
    agree(f"a: 1\nfunctionConfig: {value}\n")


@settings(max_examples=3000 if FULL else 400, deadline=None, suppress_health_check=HEALTH)
@given(st.text(SCALAR_CHARS, min_size=0, max_size=12), st.text(SCALAR_CHARS, max_size=6))
def test_generated_header_values_agree(value: str, other: str) -> None:
    agree(_with_headers(value or "x", value + other or "y", other or "z"))


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",
        "a: 1\n'a': 2\n",
        "1: x\n'1': y\n",
        "? [a]\n: 1\nb: 2\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: !!python/name:os.system x\n",
        "<<: {a: 1}\n",
        "k" * 1025 + ": 1\n",
        "a: " + "[" * 101 + "]" * 101 + "\n",
        "a: " + "1" * 5000 + "\n",
        "a: '" + "1" * 5000 + "'\n",
        BASE.replace("path: 'svc.yaml'", "path: '../svc.yaml'"),
        BASE.replace("path: 'svc.yaml'", "path: {a: b}"),
        BASE.replace("name: web", "name: 80"),
        BASE.replace("name: web", "name: [web]"),
        BASE,
        BASE + "---\n" + BASE,
        "",
        "---\n",
        "- a\n- b\n",
        "\ufeffa: 1\n",
        "a: \t1\n",
        "a: 'unterminated\n",
        'a: "\\ud800"\n',
    ],
)
def test_the_cases_the_c_walk_leaves_to_python_agree(text: str) -> None:
    agree(text)


def test_the_variable_turns_the_extension_off() -> None:
    code = "from krmlib._yaml import syntax as _syntax; print(not _syntax.has_c_check())"
    env = {**os.environ, _syntax.PYTHON_CHECK_ENV: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr
    env[_syntax.PYTHON_CHECK_ENV] = ""
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
