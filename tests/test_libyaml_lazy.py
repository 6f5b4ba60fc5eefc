"""libyaml's binding is loaded by the first parse through it, not when krmlib is imported
(krmlib/_yaml/libyaml.py, issue 37): the same answers whatever that first parse is.

Each case runs in a fresh interpreter, so that the parse under test is the one that loads the
binding (an error raised by a parser made a moment before, caught by ``except libyaml.YAMLError``
clauses that read the class only then), and is compared with the same parse after PyYAML was
imported and used first (the binding as loaded before this change, PyYAML's own classes).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.test_libyaml import DOCUMENTS

# Each reader that parses through the binding, as called on its own.
READERS = {
    "load_plain": "from krmlib._yaml import engines; value = repr(engines.load_plain(text))",
    "python_check": (
        "from krmlib._yaml import syntax; outline = syntax.python_check(text)\n"
        "value = repr([(h.line, h.values) for h in outline.docs])"
    ),
    "untab": "from krmlib._yaml import engines; value = engines.untab(text.replace(': ', ':\\t'))",
    "check_bounds": "from krmlib._yaml import engines; value = repr(engines.check_bounds(text))",
}

_RUN = """
import json, sys
{first}
from krmlib._base.errors import InputError
text = sys.argv[1]
loaded = "yaml._yaml" in sys.modules
try:
    {reader}
except InputError as exc:
    value = f"InputError: {{exc}} (line {{exc.line}}, column {{exc.column}})"
print(json.dumps([loaded, value, "yaml._yaml" in sys.modules]))
"""
_PYYAML_FIRST = "import yaml; yaml.safe_load('a: 1')"


def _run(first: str, reader: str, text: str) -> list[object]:
    code = _RUN.format(first=first, reader=reader.replace("\n", "\n    "))
    done = subprocess.run(
        [sys.executable, "-c", code, text], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answer: list[object] = json.loads(done.stdout)
    return answer


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_first_parse_loads_the_binding_and_answers_as_before(name: str, reader: str) -> None:
    text = DOCUMENTS[name]
    loaded_before, lazy, loaded_after = _run("", READERS[reader], text)
    _, eager, _ = _run(_PYYAML_FIRST, READERS[reader], text)
    assert not loaded_before  # importing the readers did not load it
    assert lazy == eager
    if reader != "check_bounds" or name == "anchors":  # the bounds parse only for aliases
        assert loaded_after


def test_importing_krmlib_and_reading_kpt_layout_loads_nothing_of_pyyaml() -> None:
    code = """
import sys
from krmlib import ResourceList
from krmlib._yaml import libyaml, syntax
rl = ResourceList.parse(sys.argv[1])
assert rl.items[0].name == "c" and rl.items[0].labels == {"a": "b"}
assert syntax.has_c_check()
print(sorted(m for m in sys.modules if m == "yaml" or m.startswith("yaml.")))
print(libyaml.FALLBACK == "", "yaml._yaml" in sys.modules)
"""
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    labels:\n"
        "      a: b\n  data:\n    a: b\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, text], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "[]\nTrue True\n"  # FALLBACK, once read, loaded it


def test_an_unknown_name_is_an_attribute_error_and_loads_nothing() -> None:
    code = """
import sys
from krmlib._yaml import libyaml
try:
    libyaml.Nope
except AttributeError as exc:
    print(exc, "yaml" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout == "module 'krmlib._yaml.libyaml' has no attribute 'Nope' False\n"


THREADS = """
import sys, threading, time
from krmlib._yaml import engines, libyaml

real, calls = libyaml._load, []
def slow_load():  # a load that takes its time: every thread asks while it runs
    calls.append(1)
    time.sleep(0.05)
    return real()
libyaml._load = slow_load
start, answers = threading.Barrier(8), []
def read():
    start.wait()
    answers.append(engines.load_plain("a: [1, {b: c}]\\n"))
threads = [threading.Thread(target=read) for _ in range(8)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(len(calls), answers.count({"a": [1, {"b": "c"}]}))
"""


def test_threads_that_parse_first_at_once_load_the_binding_once() -> None:
    """Two loads made two sets of event classes: a parse built by one, read with the other's
    names, failed ("could not determine a constructor for the tag None"; the image stage's
    probe reads golden cases from eight threads)."""
    done = subprocess.run(
        [sys.executable, "-c", THREADS], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "8"]
