"""krmlib loads libyaml's parser without PyYAML's ``__init__`` (krmlib/_yaml/libyaml.py, issue 17.3).

Each case runs in a fresh interpreter, once as a function's process starts (nothing has imported
PyYAML: the placeholder package is used) and once with ``import yaml`` first (the real package):
both must give the same values and the same error messages, and PyYAML must work as usual after
krmlib has loaded the binding its own way.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

# Inputs for the reader: values, and every kind of error the binding raises.
DOCUMENTS = {
    "plain": "a: 1\nb: [x, 'y', 0o17, .inf, ~]\nc: {d: true}\n",
    "anchors": "a: &x {b: 1}\nc: *x\n",  # the full loader (PyYAML's __init__ then)
    "tagged": "a: !!str 12\n",
    "scanner error": "a: 'unterminated\n",
    "parser error": "a: [b\n",
    "duplicate key": "a: 1\na: 2\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "composer error": "a: *nowhere\n",
}

_READ = """
import json, sys
{first}
from krmlib._yaml import engines as _yaml; from krmlib._base import errors
from krmlib._yaml.syntax import check_syntax
out = {{}}
for name, text in json.loads(sys.argv[1]).items():
    got = []
    for read in (_yaml.load_plain, check_syntax):
        try:
            value = read(text)
            got.append(repr(value) if read is _yaml.load_plain else "ok")
        except errors.InputError as exc:
            got.append("InputError: " + str(exc))
    out[name] = got
out["modules"] = sorted(m for m in sys.modules if m == "yaml" or m.startswith("yaml."))
print(json.dumps(out))
"""


def _read(first: str) -> dict[str, list[str]]:
    code = _READ.format(first=first)
    run = subprocess.run(
        [sys.executable, "-c", code, json.dumps(DOCUMENTS)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, list[str]] = json.loads(run.stdout)
    return result


def test_same_values_and_messages_with_and_without_pyyaml_imported_first() -> None:
    placeholder = _read("")
    real = _read("import yaml")
    placeholder.pop("modules")
    real.pop("modules")
    assert placeholder == real
    assert placeholder["plain"][0] == repr(
        {"a": 1, "b": ["x", "y", 15, float("inf"), None], "c": {"d": True}}
    )
    assert placeholder["anchors"][0] == repr({"a": {"b": 1}, "c": {"b": 1}})
    for broken in ("scanner error", "parser error", "duplicate key", "composer error"):
        assert placeholder[broken][0].startswith("InputError: "), broken
    for broken in ("scanner error", "parser error", "duplicate key"):  # the event pass's own
        assert placeholder[broken][1].startswith("InputError: "), broken
    assert "found unexpected end of stream" in placeholder["scanner error"][0]
    assert "did not find expected ',' or ']'" in placeholder["parser error"][1]


def test_reading_plain_yaml_imports_no_pure_python_pyyaml_module() -> None:
    code = """
import sys
from krmlib import ResourceList
rl = ResourceList.parse(sys.argv[1])
assert rl.items[0].get("data.a") == "b"
assert "yaml" not in sys.modules  # read from the text: the binding loads on first use
from krmlib._yaml import engines
assert engines.load_plain("a: [b, 1]") == {"a": ["b", 1]}
assert "safe_load" not in vars(sys.modules["yaml"])  # PyYAML's __init__ has not run
print(" ".join(sorted(m for m in sys.modules if m == "yaml" or m.startswith("yaml."))))
"""
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    a: b\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, text], capture_output=True, text=True, check=True
    )
    small = ["yaml", "yaml._yaml", "yaml.error", "yaml.events", "yaml.nodes", "yaml.tokens"]
    assert run.stdout.split() == small


def test_pyyaml_works_as_usual_after_krmlib_loaded_the_binding() -> None:
    code = """
import krmlib._yaml.libyaml as libyaml
import yaml
assert yaml.__with_libyaml__
assert yaml.cyaml.CParser is libyaml.CParser
assert yaml.YAMLError is libyaml.YAMLError and yaml.MarkedYAMLError is libyaml.MarkedYAMLError
assert yaml.events.ScalarEvent is libyaml.ScalarEvent
assert yaml.safe_load("a: [1, 2]") == {"a": [1, 2]}
assert yaml.load("a: yes", Loader=yaml.CSafeLoader) == {"a": True}
assert yaml.safe_dump({"a": 1}) == "a: 1\\n"
try:
    yaml.load("a: [b", Loader=yaml.CSafeLoader)
except yaml.parser.ParserError as exc:  # PyYAML's own class once its __init__ ran
    assert exc.problem == "did not find expected ',' or ']'", exc.problem
else:
    raise AssertionError("no error")
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "ok\n"


@pytest.mark.parametrize("first", ["", "import yaml"])
def test_reader_error_has_the_real_message(first: str) -> None:
    """A character libyaml refuses (here through the binding directly: krmlib's own bounds check
    refuses control characters before the parser sees them)."""
    code = f"""
{first}
import krmlib._yaml.libyaml as libyaml
parser = libyaml.CParser("a: \\x01b\\n")
try:
    while parser.get_event():
        pass
except libyaml.YAMLError as exc:
    print(type(exc).__name__, exc.position, str(exc))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == (
        "ReaderError 3 unacceptable character #x0001: control characters are not allowed\n"
        '  in "<unicode string>", position 3\n'
    )


def test_to_plain_writes_dates_as_iso_strings_without_importing_datetime_itself() -> None:
    """A date (set by a caller: the reader keeps timestamps as strings) leaves as ISO text; the
    reader does not import datetime for that check."""
    code = """
import sys
from krmlib._yaml import engines as _yaml
assert "datetime" not in sys.modules
import datetime
value = {"a": datetime.date(2024, 1, 2), "b": [datetime.datetime(2024, 1, 2, 3, 4, 5)]}
print(_yaml.to_plain(value))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "{'a': '2024-01-02', 'b': ['2024-01-02T03:04:05']}\n"


# Each shortcut of krmlib._yaml.libyaml fails safe: a ResourceList with comments, quotes, an anchor
# (the full loader) and a syntax error read the same with the shortcut, after it failed, and
# with no libyaml binding at all (PyYAML's pure-Python parser).
_BLOCKERS = {
    "": "",
    # the shortcut itself fails (importlib.util.find_spec is what only it uses): a plain import
    "import": """
import importlib.util
def broken(name, *args, **kwargs):
    raise RuntimeError("a PyYAML of another layout")
importlib.util.find_spec = broken
""",
    # a PyYAML built without libyaml: its pure-Python parser
    "python": """
class NoBinding:
    def find_spec(self, name, path=None, target=None):
        if name == "yaml._yaml":
            raise ImportError("no libyaml binding")
        return None
sys.meta_path.insert(0, NoBinding())
""",
}

_READ_FALLBACK = """
import sys
{blocker}
import krmlib._yaml.libyaml as libyaml
from krmlib import ResourceList
from krmlib._base.errors import KrmError
print("fallback:", libyaml.FALLBACK or "none")
for text in sys.argv[1:]:
    try:
        rl = ResourceList.parse(text)
        for obj in rl.items:
            print(obj.kind, obj.name, obj.get("data"), obj.labels)
        rl.items[0].labels["x"] = "y"
        print(rl.to_yaml(), end="")
    except KrmError as exc:
        print("error:", exc)
"""

_INPUTS = [
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    "- apiVersion: v1  # a comment\n  kind: ConfigMap\n  metadata:\n    name: 'c'\n"
    '  data: &d\n    a: "b"\n    n: 0123\n'
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: e\n  data: *d\n",
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: [b\n",
]


@pytest.mark.parametrize("how", ["import", "python"])
def test_without_the_shortcut_or_the_binding_krmlib_reads_the_same(how: str) -> None:
    """The shortcut failing in any way, or no libyaml binding at all: krmlib still imports,
    says which fallback it took, and reads and writes as with the shortcut."""
    runs = {}
    for name in ("", how):
        code = _READ_FALLBACK.format(blocker=_BLOCKERS[name])
        runs[name] = subprocess.run(
            [sys.executable, "-c", code, *_INPUTS], capture_output=True, text=True
        )
        assert runs[name].returncode == 0, runs[name].stderr
    assert runs[""].stdout.startswith("fallback: none\n")
    assert runs[how].stdout.startswith(f"fallback: {how}\n")
    assert "kind: ResourceList" in runs[""].stdout and "error:" in runs[""].stdout
    fast, slow = runs[""].stdout.split("\n")[1:], runs[how].stdout.split("\n")[1:]
    if how == "python":  # PyYAML's own wording of a syntax error; the same place
        fast, slow = (
            [re.sub(r"invalid YAML: .*(\(line)", r"\1", line) for line in lines]
            for lines in (fast, slow)
        )
    assert slow == fast
