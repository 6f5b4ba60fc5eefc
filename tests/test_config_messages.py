"""The messages users see for a bad config, per function: the contract of the config layer.

``tests/testdata/config-messages/<function>/cases.yaml`` lists bad (and borderline) configs of
every function of the registry: wrong types, unknown fields and keys with their "did you mean",
missing required fields, the Python name of a camelCase field, nested list items, validators,
the ConfigMap form and configs of another kind. ``expected.txt`` beside it holds what
:func:`krmlib.parse_config` answers for each, as the user reads it: the field named by the
error result and its message (or the accepted config). ``pytest --update-golden`` rewrites the
expected files; review the diff like any golden change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from krmfn.registry import BY_NAME, FUNCTIONS
from krmlib import ConfigError, FunctionConfig, KubeObject, parse_config
from krmlib.testing import assert_same_text

ROOT = Path(__file__).resolve().parent / "testdata" / "config-messages"
FORMS = ("spec", "data", "config")


def cases(function: str) -> list[dict[str, str]]:
    loaded: Any = yaml.safe_load((ROOT / function / "cases.yaml").read_text(encoding="utf-8"))
    assert isinstance(loaded, list)
    for case in loaded:
        assert set(case) - {"name", "why"} <= set(FORMS) and len(case) == 3, case
    return loaded


def config_text(model: type[FunctionConfig], case: dict[str, str]) -> str | None:
    """The functionConfig's YAML text (None: no functionConfig)."""
    body = "".join(f"  {line}\n" for line in next(case[f] for f in FORMS if f in case).splitlines())
    if "spec" in case:
        head = f"apiVersion: {model.API_VERSION}\nkind: {model.KIND}\nmetadata:\n  name: c\n"
        return f"{head}spec:\n{body}"
    if "data" in case:
        return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n{body}"
    return None if case["config"].strip() == "none" else case["config"]


def answer(model: type[FunctionConfig], text: str | None) -> str:
    """What the user reads: the error result's field and message, or the accepted config."""
    obj = None if text is None else KubeObject.from_yaml(text)
    try:
        config = parse_config(model, obj)
    except ConfigError as exc:
        return f"refused\n  field: {exc.field}\n  message: {exc.message}\n"
    return f"accepted: {config!r} (form {config.form})\n"


def render(function: str) -> str:
    model = BY_NAME[function].load()[1]
    assert model is not None
    out = []
    for case in cases(function):
        text = config_text(model, case)
        shown = "".join(f"  | {line}\n" for line in (text or "(no functionConfig)").splitlines())
        out.append(f"## {case['name']}: {case['why']}\n{shown}{answer(model, text)}")
    return "\n".join(out)


def test_every_function_has_message_cases() -> None:
    assert {p.name for p in ROOT.iterdir() if p.is_dir()} == set(BY_NAME)


@pytest.mark.parametrize("function", [f.name for f in FUNCTIONS])
def test_config_messages(function: str) -> None:
    names = [case["name"] for case in cases(function)]
    assert len(names) == len(set(names)), "case names are unique"
    assert_same_text(render(function), ROOT / function / "expected.txt")


@pytest.mark.parametrize("function", [f.name for f in FUNCTIONS])
def test_the_cases_cover_every_kind_of_message(function: str) -> None:
    """Each function's golden shows an unknown field with a suggestion, a wrong type, a
    refused ConfigMap key and a config of another kind."""
    expected = (ROOT / function / "expected.txt").read_text(encoding="utf-8")
    for needle in ("unknown field (did you mean", "Input should be", "in the ConfigMap config",
                   "is not accepted: expected a v1 ConfigMap"):  # fmt: skip
        assert needle in expected, needle
