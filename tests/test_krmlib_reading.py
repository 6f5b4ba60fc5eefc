"""The whole-input check and the reading rules of SECURITY.md ("YAML loading and input limits").

Each rule is checked through ResourceList.parse or the runner (the file corpus in testdata/bad
runs the same classes through the five console scripts).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from krmlib import InputError, ResourceList
from krmlib._yaml.syntax import MAX_DEPTH, MAX_KEY
from krmlib.testing import run_text

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
CM = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: first\n"
SVC = "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: web\n  spec:\n"


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        ResourceList.parse(text)
    return caught.value


def noop(rl: ResourceList, config: object) -> None:
    return None


def test_a_broken_item_nobody_reads_is_refused_with_its_index_kind_name_and_line() -> None:
    error = _error(HEAD + CM + SVC + "    selector: {app: web\n")
    assert error.message.startswith("items[1] (Service web): invalid YAML")
    assert error.line == 14  # where the map should have been closed: the end of the input


def test_duplicate_keys_are_found_at_any_depth_and_in_any_section() -> None:
    error = _error(HEAD + CM + SVC + "    a:\n      b: 1\n      b: 2\n")
    assert "items[1] (Service web): duplicate key 'b'" in error.message and error.line == 15
    error = _error(HEAD + CM + "extra:\n  x: 1\n  x: 2\n")
    assert error.message.startswith("extra: duplicate key 'x'")
    # 1 and "1" are different keys; the same string quoted or not is the same key
    ResourceList.parse(HEAD + CM + "  data:\n    1: a\n    '1': b\n")
    assert "duplicate key" in _error(HEAD + CM + "  data:\n    a: 1\n    'a': 2\n").message
    # merge keys too (ruamel, which edits items, refuses them as well); a list merges several
    text = HEAD + CM + "  x: &a {p: 1}\n  y: &b {q: 2}\n  z:\n    <<: *a\n    <<: *b\n"
    assert "duplicate key '<<'" in _error(text).message
    ResourceList.parse(HEAD + CM + "  x: &a {p: 1}\n  y: &b {q: 2}\n  z:\n    <<: [*a, *b]\n")


def test_earlier_results_are_checked_too() -> None:
    error = _error(HEAD + CM + "results:\n- message: 'never closed\n")
    assert error.message.startswith("results: invalid YAML")


def test_nesting_and_key_length_are_bounded() -> None:
    deep = "  spec:\n" + "".join("  " * (level + 2) + "a:\n" for level in range(MAX_DEPTH))
    assert (
        "nesting too deep" in _error(HEAD + CM + deep + "  " * (MAX_DEPTH + 2) + "b: 1\n").message
    )
    ok = "  spec:\n" + "".join("  " * (level + 2) + "a:\n" for level in range(MAX_DEPTH - 8))
    ResourceList.parse(HEAD + CM + ok + "  " * (MAX_DEPTH - 6) + "b: 1\n")
    long_key = f"  data:\n    ? {'k' * (MAX_KEY + 1)}\n    : v\n"
    assert "key longer than" in _error(HEAD + CM + long_key).message
    ResourceList.parse(HEAD + CM + f"  data:\n    ? {'k' * MAX_KEY}\n    : v\n")


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object:os.system",
        "!<tag:yaml.org,2002:python/object:os.system>",
        "!<tag:yaml.org,2002:python%2Fname:os.system>",
        "!<tag%3Ayaml.org,2002:python/name:os.system>",
    ],
)
def test_python_tags_are_refused_in_any_spelling(tag: str) -> None:
    assert "constructor tag" in _error(HEAD + CM + f"  data:\n    x: {tag} y\n").message


def test_python_tags_through_a_tag_handle_are_refused() -> None:
    text = "%TAG !p! tag:yaml.org,2002:pytho%6E/\n---\n" + HEAD + CM + "  data: !p!object x\n"
    assert "constructor tag 'tag:yaml.org,2002:python/object'" in _error(text).message


def test_unknown_local_tags_pass_through_untouched() -> None:
    text = HEAD + CM + "  data:\n    x: !vault secret/path # kept\n    y: !!str 5\n"
    out, code = run_text(noop, None, text)
    assert code == 0 and out == text


def test_a_yaml_directive_and_document_start_are_read_not_folded_into_the_first_item() -> None:
    for start in ("%YAML 1.2\n---\n", "---\n", "%YAML 1.1\n# a comment\n--- \n"):
        rl = ResourceList.parse(start + HEAD + CM)
        assert [obj.name for obj in rl.items] == ["first"]
        assert rl.to_yaml() == HEAD + CM
    error = _error("%YAML 1.2\n---\n" + HEAD + CM + SVC + "    a: [\n")
    assert error.line == 16  # lines still count from the top of the input


@pytest.mark.parametrize(
    ("value", "what"),
    [("1", "not a list"), ("hello", "not a scalar"), ("[a]", "not a list"), ("*x", "")],
)
def test_function_config_must_be_a_mapping(value: str, what: str) -> None:
    text = HEAD + CM + f"functionConfig: {value}\n"
    if value == "1":
        text = HEAD + CM + "functionConfig:\n- 1\n"
    if value == "*x":
        text = HEAD + CM + "  data:\n    a: &x b\n" + f"functionConfig: {value}\n"
    out, code = run_text(noop, None, text)
    assert code == 1 and "functionConfig must be a mapping" in out and what in out
    for fine in ("functionConfig: {}\n", "functionConfig:\n", "functionConfig: null\n"):
        assert run_text(noop, None, HEAD + CM + fine)[1] == 0


def test_a_broken_function_config_is_an_error_and_never_echoed() -> None:
    text = HEAD + CM + "functionConfig:\n  kind: ConfigMap\n  data:\n    a: 'SECRET-TEXT\n"
    out, code = run_text(noop, None, text)
    assert code == 1 and "functionConfig: invalid YAML" in out and "SECRET-TEXT" not in out
    assert ResourceList.parse(out).items.first() is None  # still a readable ResourceList


@pytest.mark.parametrize(
    ("field", "value", "what"),
    [
        ("apiVersion", "1", "a number"),
        ("kind", "false", "a boolean"),
        ("name", "2024-01-31", "a date"),
        ("name", "0x1F", "a number"),
        ("namespace", "12", "a number"),
        ("namespace", "[a]", "a list"),
        ("name", "!!int '3'", "a value tagged tag:yaml.org,2002:int"),
    ],
)
def test_header_fields_must_be_strings(field: str, value: str, what: str) -> None:
    item = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "namespace": "ns"}
    item[field] = value
    text = HEAD + (
        f"- apiVersion: {item['apiVersion']}\n  kind: {item['kind']}\n  metadata:\n"
        f"    name: {item['name']}\n    namespace: {item['namespace']}\n"
    )
    error = _error(text)
    path = field if field in ("apiVersion", "kind") else f"metadata.{field}"
    assert "items[0]" in error.message and f"{path} must be a string, not {what}" in error.message
    assert error.field == path


def test_quoted_header_values_are_strings() -> None:
    text = HEAD + "- apiVersion: 'v1'\n  kind: \"ConfigMap\"\n  metadata:\n    name: '123'\n"
    assert ResourceList.parse(text).items[0].name == "123"


def test_the_stream_form_is_checked_per_document() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 5\n"
    assert "document 1" in _error(text).message and "must be a string" in _error(text).message


def test_integers_past_pythons_digit_limit_are_refused() -> None:
    digits = sys.get_int_max_str_digits() + 1
    error = _error(HEAD + CM + f"  data:\n    n: {'9' * digits}\n")
    assert "integer with more than" in error.message


def test_an_unexpected_failure_is_one_error_result_without_traceback() -> None:
    def process(rl: ResourceList, config: object) -> None:
        def down(level: int) -> int:
            return down(level + 1)

        down(0)

    out, code = run_text(process, None, HEAD + CM)
    assert code == 1 and "internal error" in out and "Traceback" not in out


def test_a_failing_console_script_prints_no_traceback_and_no_half_output() -> None:
    script = (
        "import sys\n"
        "from krmlib import ResourceList, run\n"
        "from krmlib._model import object as o\n"
        "def process(rl, config):\n"
        "    rl.items[0].set('data.x', 1)\n"  # an int is written by to_item (no splice)
        "    o.KubeObject.to_item = lambda self: 1 / 0\n"
        "sys.exit(run(process, None, name='t', argv=[]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=(HEAD + CM).encode(), capture_output=True
    )
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    out = ResourceList.parse(done.stdout.decode())
    assert len(out.items) == 0 and "ZeroDivisionError" in done.stdout.decode()
    debug = subprocess.run(
        [sys.executable, "-c", script],
        input=(HEAD + CM).encode(),
        capture_output=True,
        env={**os.environ, "KRMFN_DEBUG": "1"},
    )
    assert debug.returncode == 1 and b"Traceback" in debug.stderr  # for whoever debugs it


# --- valid YAML that libyaml reads (issue 27, item 5) ---------------------------------------------


def test_a_bom_at_the_start_of_a_later_document_is_read() -> None:
    """YAML 1.2 allows a byte order mark at the start of any document; kpt reads one there."""
    stream = "\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n"
    stream += "\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
    rl = ResourceList.parse(stream)
    assert [o.name for o in rl.items] == ["a", "b"]
    assert all("\ufeff" not in o.to_yaml() for o in rl.items)
    from krmlib.packages import read_documents

    assert [o.name for o in read_documents(stream, "file.yaml")] == ["a", "b"]
    # A mark inside a value is content, kept.
    inside = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: '\ufeffx'\n"
    assert ResourceList.parse(inside).items[0].get("data.k") == "\ufeffx"


def test_a_tab_after_a_colon_is_read_and_edited() -> None:
    """`key:<TAB>value` is valid YAML (libyaml reads it); an edit of such an item goes through
    the round trip, which must read it too."""
    text = HEAD + CM + "    labels:\n      app:\tweb\n  data:\n    k:\t'a\tb'  # c\td\n"
    rl = ResourceList.parse(text)
    obj = rl.items[0]
    assert obj.labels["app"] == "web" and obj.get("data.k") == "a\tb"
    obj.set("spec.replicas", [1])  # a write that needs the round trip
    obj.set("metadata.labels.tier", "front")
    again = ResourceList.parse(rl.to_yaml()).items[0]
    assert again.get("data.k") == "a\tb" and again.labels == {"app": "web", "tier": "front"}
    assert "# c\td" in rl.to_yaml()


# --- the one gate before side effects ------------------------------------------------------------


def test_krmlibs_writes_wait_for_the_input_checks_verdict(tmp_path: object) -> None:
    """A big input whose check runs in a child and refuses it: krmlib's write to disk raises
    the check's error and writes nothing, whoever calls it."""
    items = "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c{n}\n  data:\n"
        f"    k: '{'x' * 200}'\n"
        for n in range(2000)
    )
    broken = (
        "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n  data:\n    a: b\n    a: c\n"
    )
    script = f"""
import sys
from krmlib import KubeObject; from krmlib.packages import write_package
from krmlib._io.resourcelist import CheckFailed, ResourceList
rl = ResourceList.parse(sys.stdin.read(), background=True)
assert rl._pending is not None, "no child"
obj = KubeObject.from_dict({{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "n"}}}})
obj.set_path("cm.yaml")
for attempt in range(2):  # a caught refusal does not open the gate
    try:
        write_package({str(tmp_path)!r}, [obj])
    except CheckFailed as exc:
        print("refused:", exc.results[0].message)
    else:
        print("written")
rl.check_failure(final=True)  # the run is over: the gate forgets that input
write_package({str(tmp_path)!r}, [obj])
print("written after the run")
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=HEAD + items + broken,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "KRMFN_BACKGROUND_CHECK": "1"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" (")[0] for line in lines] == ["refused: items[2000]"] * 2 + [
        "written after the run"
    ]
    assert "duplicate key 'a'" in lines[0]


@pytest.mark.parametrize(
    "function",
    ["applyset-labeler", "interface-expander", "merger", "preparer", "topology-to-pvs"],
)
def test_every_function_reads_a_later_bom_and_a_tab_after_a_colon(function: str) -> None:
    stream = (
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n---\n"
        "\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: prod\n"
        "  labels:\n    app:\tweb\ndata:\n  k:\tv\n"
    )
    done = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), f"krmfn-{function}")],
        input=stream,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "invalid YAML" not in done.stdout
    out = ResourceList.parse(done.stdout)
    web = next(o for o in out.items if o.name == "web")
    assert web.labels["app"] == "web" and web.get("data.k") == "v"


def test_reading_a_resource_list_passes_each_module_once_in_order() -> None:
    """`ResourceList.parse` → the reader (bounds in `engines`, the check in `syntax`, the split)
    → back to `resourcelist`, which makes the list: one pass down and up, no module re-entered
    from another stage. Calls into the types (objects, results, paths, scanners) are leaves."""
    import krmlib._io.reader  # noqa: F401  (loaded before tracing)

    leaves = {"object", "collection", "results", "errors", "pkgpath", "paths", "scan"}
    leaves |= {"scalars", "libyaml", "emit", "storage", "trees"}  # storage: the objects' content
    helpers = {"engines", "background", "syntax"}
    text = HEAD + "".join(CM.replace("first", f"c{n}") for n in range(3))
    visits: list[str] = []

    def trace(frame: object, event: str, arg: object) -> None:
        module = getattr(frame, "f_globals", {}).get("__name__", "")
        if event == "call" and module.startswith("krmlib."):
            name = module.rsplit(".", 1)[1]  # krmlib._io.reader: "reader"
            if name not in leaves and (not visits or visits[-1] != name):
                visits.append(name)

    sys.setprofile(trace)
    try:
        ResourceList.parse(text)
    finally:
        sys.setprofile(None)
    first = list(dict.fromkeys(visits))
    assert first == ["resourcelist", "reader", "engines", "syntax"]
    stages = [name for name in visits if name not in helpers]
    stages = [name for i, name in enumerate(stages) if i == 0 or stages[i - 1] != name]
    assert stages == ["resourcelist", "reader", "resourcelist"]
