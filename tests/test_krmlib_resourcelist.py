"""ResourceList input forms, output rules, results and the exit code, functionConfig, safety."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from krmlib import FunctionConfig, InputError, KrmError, KubeObject, Record, ResourceList, Severity
from krmlib._model.storage import of
from krmlib.testing import run_text

RL = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
  data:
    count: "3"
"""


def noop(rl: ResourceList, config: object) -> None:
    return None


def test_v1_resourcelist_round_trips_exactly() -> None:
    out, code = run_text(noop, None, RL)
    assert code == 0
    assert out == RL


@pytest.mark.parametrize("api_version", ["config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"])
def test_accepts_v1beta1_and_writes_v1(api_version: str) -> None:
    rl = ResourceList.parse(RL.replace("config.kubernetes.io/v1", api_version))
    assert [o.name for o in rl.items] == ["b", "a"]
    assert rl.to_yaml().startswith("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n")


def test_accepts_a_v1_list_and_a_stream() -> None:
    as_list = RL.replace(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList", "apiVersion: v1\nkind: List"
    )
    assert [o.name for o in ResourceList.parse(as_list).items] == ["b", "a"]
    stream = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: z\n"  # not y: a boolean to kubectl (issue 27.2)
    rl = ResourceList.parse(stream)
    assert rl.form == "stream" and [o.kind for o in rl.items] == ["ConfigMap", "Secret"]
    out = rl.to_yaml()
    assert out.count("\n---") == 0 and "kind: ResourceList" in out


def test_irregular_layout_falls_back_to_a_full_parse() -> None:
    flow = "{apiVersion: config.kubernetes.io/v1, kind: ResourceList, items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: f}}]}"
    rl = ResourceList.parse(flow)
    assert [o.name for o in rl.items] == ["f"]
    indented = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: b # c\n"
    )
    assert [o.name for o in ResourceList.parse(indented).items] == ["b"]


def test_item_order_is_kept_and_new_items_appended() -> None:
    rl = ResourceList.parse(RL)
    rl.items.append(
        KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "0"}})
    )
    out = rl.to_yaml()
    assert out.index("name: b") < out.index("name: a") < out.index('name: "0"')


def test_empty_items_and_missing_items() -> None:
    empty = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"
    assert ResourceList.parse(empty).to_yaml() == empty
    out, code = run_text(noop, None, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n")
    assert code == 1 and "no items" in out


def test_results_have_severity_are_sorted_and_decide_the_exit_code() -> None:
    def process(rl: ResourceList, config: object) -> None:
        a, b = rl.items.find("v1", "ConfigMap", "a"), rl.items.find("v1", "ConfigMap", "b")
        rl.results.info("zeta info", b)
        rl.results.warning("a warning", a, "data.x")
        rl.results.info("alpha info", a)

    out, code = run_text(process, None, RL)
    assert code == 0  # warnings and infos pass
    assert len(ResourceList.parse(out).items) == 2  # the output still parses, items intact
    text = out.split("results:\n", 1)[1]
    assert text.index("a warning") < text.index("alpha info") < text.index("zeta info")
    assert text.count("severity:") == 3
    assert "severity: warning" in text

    def failing(rl: ResourceList, config: object) -> None:
        rl.results.error("broken", rl.items[0], "spec")

    out, code = run_text(failing, None, RL)
    assert code == 1 and "severity: error" in out and "name: b" in out  # items still written


def test_expected_failures_become_one_error_result_without_traceback() -> None:
    def process(rl: ResourceList, config: object) -> None:
        raise KrmError("cannot do it", obj=rl.items[0], field="spec.x")

    out, code = run_text(process, None, RL)
    assert code == 1
    assert "message: cannot do it" in out and "path: spec.x" in out and "Traceback" not in out


class Config(FunctionConfig):
    KIND = "Example"
    count: int = 1
    enabled: bool = False
    names: list[str] = []


def test_configmap_values_are_coerced_into_model_types() -> None:
    seen: list[Config] = []
    text = RL.replace('    count: "3"', '    count: "3"\n    enabled: "true"\n    names: "a, b"')
    out, code = run_text(lambda rl, c: seen.append(c), Config, text)
    assert code == 0, out
    assert seen == [Config(count=3, enabled=True, names=["a", "b"])]


def test_config_errors_name_the_field() -> None:
    out, code = run_text(noop, Config, RL.replace('count: "3"', 'count: "three"'))
    assert code == 1 and "path: data.count" in out
    typed = RL.split("functionConfig:", maxsplit=1)[0] + (
        "functionConfig:\n  apiVersion: krmfn.dev/v1alpha1\n  kind: Example\n  metadata:\n"
        "    name: cfg\n  spec:\n    count: [1]\n    bogus: 1\n"
    )
    out, code = run_text(noop, Config, typed)
    assert code == 1 and "spec.count" in out and "spec.bogus: unknown field" in out


def test_unknown_configmap_keys_and_wrong_kinds_are_errors() -> None:
    out, code = run_text(noop, Config, RL.replace('count: "3"', 'count: "3"\n    colour: red'))
    assert code == 1 and "severity: error" in out and "unknown key 'colour'" in out
    other = RL.replace(
        "  kind: ConfigMap\n  metadata:\n    name: function-input",
        "  kind: Secret\n  metadata:\n    name: function-input",
    )
    out, code = run_text(noop, Config, other)
    assert code == 1 and "not accepted" in out


def test_empty_function_input_configmap_means_defaults() -> None:
    seen: list[Config] = []
    text = RL.split("  data:", maxsplit=1)[0]
    _out, code = run_text(lambda rl, c: seen.append(c), Config, text)
    assert code == 0 and seen == [Config()]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: ConfigMap\n  metadata:\n    name: x\n",
            "apiVersion",
        ),
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  metadata:\n    name: x\n",
            "kind",
        ),
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: X\n  metadata: {}\n",
            "metadata.name",
        ),
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: X\n  kind: Y\n  metadata:\n    name: x\n",
            "duplicate",
        ),
        ("items: [\n", "invalid YAML"),
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- !!python/object:os.system\n  apiVersion: v1\n",
            "python",
        ),
    ],
)
def test_bad_input_is_an_error_result(text: str, needle: str) -> None:
    out, code = run_text(noop, None, text)
    assert code == 1
    assert needle in out and "severity: error" in out


def test_alias_bomb_and_deep_nesting_are_refused_quickly() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(9)
    )
    with pytest.raises(InputError, match="alias bomb"):
        ResourceList.parse(bomb)
    deep = (
        "apiVersion: v1\nkind: X\nmetadata:\n  name: x\nspec: " + "[" * 10000 + "]" * 10000 + "\n"
    )
    with pytest.raises(InputError, match="deep"):
        ResourceList.parse(deep)


def test_non_utf8_input_is_an_error_on_stdout(tmp_path: Path) -> None:
    script = tmp_path / "fn.py"
    script.write_text(
        "import sys\nfrom krmlib import run\nsys.exit(run(lambda rl, c: None, None, name='t'))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], input=b"items:\n- \xff\xfe\n", capture_output=True
    )
    assert done.returncode == 1
    assert b"not UTF-8" in done.stdout and b"Traceback" not in done.stderr


def test_help_and_standalone_file_mode(tmp_path: Path) -> None:
    script = tmp_path / "fn.py"
    script.write_text(
        "import sys\nfrom krmlib import run\n"
        "def p(rl, c):\n    [o.labels.__setitem__('x', 'y') for o in rl.items]\n"
        "sys.exit(run(p, None, name='t', help_text='HELP TEXT'))\n"
    )
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "HELP TEXT" in done.stdout
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
    )
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "pkg")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert 'x: "y"' in done.stdout and "config.kubernetes.io/path: a.yaml" in done.stdout


def test_severity_enum_values() -> None:
    assert [s.value for s in Severity] == ["error", "warning", "info"]
    assert issubclass(Config, Record)  # a krmlib record (a pydantic model before 0.2.x)


def test_unedited_items_are_spans_of_the_input_written_in_runs() -> None:
    from krmlib._io import resourcelist

    items = "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n" for i in range(50)
    )
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
    rl = ResourceList.parse(text)
    assert all(of(obj).text is text for obj in rl.items)  # no copy of each item's text
    spans = [p for p in rl.pieces() if isinstance(p, tuple)]
    assert len(spans) == 1 and spans[0][1:] == (text.index("- "), len(text))
    rl.items[10].labels["edited"] = "yes"
    pieces = list(rl.pieces())
    spans = [p for p in pieces if isinstance(p, tuple)]
    assert len(spans) == 2  # items 0-9 and 11-49 around the edited one
    assert "".join(rl.iter_yaml()) == rl.to_yaml() and 'edited: "yes"' in rl.to_yaml()
    old_cap = resourcelist.SPAN_RUN
    try:
        resourcelist.SPAN_RUN = 200  # about three items per run
        runs = [p for p in ResourceList.parse(text).pieces() if isinstance(p, tuple)]
        assert len(runs) > 10 and all(stop - start <= 200 for _, start, stop in runs)
    finally:
        resourcelist.SPAN_RUN = old_cap
