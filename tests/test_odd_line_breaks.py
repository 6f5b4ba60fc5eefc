"""A string holding a line break other than "\\n" is written so that it reads back (round four's
review). libyaml, and so PyYAML and Go's yaml.v3 under kpt, reads NEL (U+0085) and CR LF inside a
quoted or block scalar as a line break and folds it: ruamel wrote such a value single-quoted or
as a ``|`` block with the character raw, the output check saw the data change, and the function
ended in "internal error: ... the YAML writer would change this item's data" for a plain
condition message or a ConfigMap value with Windows line ends. These values are now written
double-quoted, where each is an escape (krmlib/_yaml/scalars.py ``needs_escapes``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from krmlib import Condition, Conditions, KubeObject, ResourceList
from krmlib.testing import kpt_found, run_text

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
CONFIGMAP = (
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n    annotations:\n"
    "      config.kubernetes.io/path: cm.yaml\n"
    "      internal.config.kubernetes.io/path: cm.yaml\n"
    "  data:\n    single: 'was single-quoted'\n    block: |\n      was a\n      block\n"
)
KPTFILE = (
    "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: pkg\n    annotations:\n"
    "      config.kubernetes.io/path: Kptfile\n"
    "      internal.config.kubernetes.io/path: Kptfile\n"
    '  status:\n    conditions:\n    - type: A\n      status: "True"\n'
)
VALUES = ["a\x85b", "a\r\nb", "line\r\n", "a\rb", "\x85", "a\nb\x85c", "a\u2028b", "a\u2029b"]


def _data_of(out: str) -> list[dict[str, object]]:
    items: list[dict[str, object]] = yaml.safe_load(out)["items"]
    return items


@pytest.mark.parametrize("value", VALUES)
def test_a_condition_message_with_the_break_is_written_and_reads_back(value: str) -> None:
    def process(rl: ResourceList, _config: None) -> None:
        conditions = Conditions(rl.items.first(kind="Kptfile"))
        conditions.set(Condition("B", "False", "Broken", value))
        conditions.flush()

    out, code = run_text(process, None, HEAD + KPTFILE)
    assert code == 0, out
    [kptfile] = _data_of(out)
    assert kptfile["status"] == {  # PyYAML is libyaml's reading, as kpt's yaml.v3
        "conditions": [
            {"type": "A", "status": "True"},
            {"type": "B", "status": "False", "reason": "Broken", "message": value},
        ]
    }


@pytest.mark.parametrize("value", VALUES)
def test_a_value_set_over_any_style_or_as_a_new_key_reads_back(value: str) -> None:
    def process(rl: ResourceList, _config: None) -> None:
        obj = rl.items[0]
        obj.set("data.single", value)  # was single-quoted
        obj.set("data.block", value)  # was a | block
        obj.set("data.new", value)
        obj.set(["data", f"key{value}"], "v")

    out, code = run_text(process, None, HEAD + CONFIGMAP)
    assert code == 0, out
    [cm] = _data_of(out)
    assert cm["data"] == {"single": value, "block": value, "new": value, f"key{value}": "v"}


@pytest.mark.parametrize("value", VALUES)
def test_a_new_object_with_the_break_reads_back(value: str) -> None:
    rl = ResourceList.parse(HEAD + CONFIGMAP)
    data = {"a": value, f"k{value}": "v", "list": [value]}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}, "data": data}
    rl.items.append(KubeObject.from_dict(body))
    text = rl.to_yaml()
    assert ResourceList.parse(text).items[1].get("data") == data  # krmlib's reader takes it
    assert _data_of(text)[1]["data"] == data


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(["a", " ", "\n", "\r", "\x85", "\u2028", "\u2029", "'", '"']),
        min_size=1,
        max_size=12,
    )
)
def test_any_string_of_breaks_and_quotes_set_on_an_item_reads_back(value: str) -> None:
    rl = ResourceList.parse(HEAD + CONFIGMAP)
    obj = rl.items[0]
    obj.set("data.single", value)
    obj.set("data.block", value)
    text = rl.to_yaml()
    back = ResourceList.parse(text).items[0]
    assert (back.get("data.single"), back.get("data.block")) == (value, value)
    assert _data_of(text)[0]["data"] == {"single": value, "block": value}


@pytest.mark.kpt
@pytest.mark.skipif(not kpt_found(), reason="kpt not on PATH")
def test_kpt_reads_the_written_values_back(tmp_path: Path) -> None:
    """kpt (yaml.v3) reads what was written: the package rendered through ``cat`` keeps it."""

    def process(rl: ResourceList, _config: None) -> None:
        for n, value in enumerate(VALUES):
            rl.items[0].set(["data", f"v{n}"], value)

    out, code = run_text(process, None, HEAD + CONFIGMAP)
    assert code == 0, out
    sink = tmp_path / "out"
    subprocess.run(
        ["kpt", "fn", "sink", str(sink)], input=out, text=True, check=True, capture_output=True
    )
    again = subprocess.run(
        ["kpt", "fn", "source", str(sink)], text=True, check=True, capture_output=True
    ).stdout
    [cm] = _data_of(again)
    assert isinstance(cm["data"], dict)
    assert [cm["data"][f"v{n}"] for n in range(len(VALUES))] == VALUES
