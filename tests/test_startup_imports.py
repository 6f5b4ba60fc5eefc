"""Start-up (issue 17.3): a function imports only what its run uses, whatever its config's form.

Each function runs as a process, as kpt runs it in exec mode (``python -m krmfn.<name>``, with
a wrapper that lists ``sys.modules`` at exit), on a small package with no functionConfig, with a
ConfigMap, with the typed ``krmfn.dev/v1alpha1`` form and with an invalid typed config. pydantic
(about 100 ms to import) must be in none of them, nor the standard modules a run does not need
(hashlib, json, difflib, importlib.metadata, ...: each imported where it is used). ruamel.yaml
(the round-trip engine, about 60 ms) is imported only to edit an item through the round trip,
which none of these runs does any more (the merger's inline resource is written from text).

Nor ``dataclasses``, which pulls ``inspect``, ``ast``, ``dis`` and ``tokenize`` and exec()s the
source of every class it makes: records are NamedTuples or slotted classes (ARCHITECTURE.md,
"Records").
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from krmfn.registry import BY_NAME, FUNCTIONS

PACKAGE = """\
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
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    namespace: default
    annotations:
      config.kubernetes.io/path: settings.yaml
  data:
    a: b
"""

ROOT = Path(__file__).resolve().parent.parent
# dataclasses and what it imports (ARCHITECTURE.md, "Records").
DATACLASSES = {"dataclasses", "inspect", "ast", "dis", "tokenize"}

# function → (ConfigMap data, typed spec), both valid.
CONFIGS: dict[str, tuple[dict[str, str], dict[str, Any]]] = {
    "interface-expander": ({"dialect": "design"}, {"dialect": "design", "keepLocalConfig": True}),
    "preparer": (
        {"max-iterations": "3", "auto-approve": "no"},
        {"maxIterations": 3, "plugins": [{"apiVersion": "a.b/v1", "kind": "K", "builtin": "site"}]},
    ),
    "merger": (
        {"from-package": "false"},
        {"resources": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}}]},
    ),
    "topology-to-pvs": (
        {"wait-rules": "smf:upf", "list-planned": "true"},
        {"waitRules": [{"waiter": "amf", "waitsFor": "smf"}], "revisionType": "string"},
    ),
    "applyset-labeler": (
        {"parent-kind": "ConfigMap", "parent-name": "set", "parent-namespace": "default"},
        {"parent": {"kind": "ConfigMap", "name": "set", "namespace": "default"}, "force": True},
    ),
    "nad-generator": ({"dialect": "nephio"}, {"dialect": "design"}),
    "dnn-generator": ({"dialect": "nephio"}, {"dialect": "nephio"}),
    "nfdeploy": ({"dialect": "nephio"}, {"dialect": "nephio"}),
    "ipam-allocator": ({"mode": "mock"}, {"mode": "mock", "claims": "ip"}),
}
FORMS = ("none", "configmap", "typed", "invalid")
# Imported only where used (a hash, a mistyped name, an installed plugin, a child package, a
# JSON value): none belongs to a valid run of a one-resource package.
NOT_AT_START = {"difflib", "json", "importlib.metadata", "email"}
# ... unless the run uses it: the preparer reads the vendored strict schema of the package's
# ConfigMap (JSON) to validate it before marking the package prepared, as TKO does.
USED = {"preparer": {"json"}}
# PyYAML's pure-Python modules: krmlib loads the libyaml binding without PyYAML's __init__
# (krmlib/_yaml/libyaml.py); a document with anchors or tags would take the full loader, none here.
PYYAML_PURE = {
    f"yaml.{m}"
    for m in [
        "reader",
        "scanner",
        "parser",
        "composer",
        "constructor",
        "resolver",
        "loader",
        "emitter",
        "serializer",
        "representer",
        "dumper",
        "cyaml",
    ]
}
NOT_IN = {
    "interface-expander": {"hashlib", "pathlib"},  # pathlib: urllib.parse, ipaddress, fnmatch
    "topology-to-pvs": {
        "hashlib",
        "pathlib",
    },  # a long name's hash: krmlib.packages.sha1_hex, no OpenSSL
    # the deployment commands' modules; pathlib only when spec.files names files
    "merger": {"hashlib", "krmfn.tko.child", "pathlib"},
    "preparer": {"hashlib", "subprocess", "tempfile"},  # for a plugin process
    "applyset-labeler": {"hashlib"},  # the ApplySet id: CPython's own SHA-256, no OpenSSL
    "nad-generator": {"hashlib", "pathlib", "ipaddress"},  # ipaddress: only for routes
    "dnn-generator": {"hashlib", "pathlib", "ipaddress"},
    "nfdeploy": {"hashlib", "pathlib"},  # ipaddress: only for the Interfaces' prefixes
    "ipam-allocator": {"hashlib", "subprocess"},  # krmfn specialize's kpt runs: not the function
}
# Issue 37: imported where used, never at start-up. datetime: krmlib.children's deletion mark;
# shutil (bz2, lzma, zlib): the preparer's half-made site folder; fractions (decimal, numbers):
# nfdeploy's Capacity quantities; ipaddress: nfdeploy's Interface prefixes; pathlib:
# applyset-labeler's live objects file.
for _function in NOT_IN:
    NOT_IN[_function] |= {"datetime", "shutil", "fractions", "decimal"}
NOT_IN["nfdeploy"] |= {"ipaddress"}
NOT_IN["applyset-labeler"] |= {"pathlib"}
NOT_IN["preparer"] |= {"pathlib"}  # round five: a path is made only where a file is named

# What a run may import beyond a bare interpreter running the wrapper below (issue 37): any other
# module fails the test, so a new eager import is a decision (add it here with its reason), not
# an accident. Modules named with a leading underscore come with their public module.
AT_START = {
    # re, typing and what they import; collections, functools, itertools for krmlib's records
    *("re", "enum", "typing", "collections", "functools", "operator", "keyword", "reprlib"),
    *("copyreg", "types", "itertools", "contextlib", "warnings"),
    # the libyaml binding (krmlib/_yaml/libyaml.py), loaded on first use: PACKAGE's Kptfile ends
    # with its metadata, whose annotations the scan leaves to the parse (see KPT_LAYOUT below)
    *("yaml", "cython_runtime"),
    "gc",  # the runner turns the cyclic collector off
    "bisect",  # krmlib._yaml.syntax: line numbers of an error
    "math",  # krmlib._config.parse: number fields
}
AT_START_FOR = {
    "applyset-labeler": {"base64", "binascii", "struct", "contextvars"},  # the ApplySet id
    "merger": {"contextvars"},  # krmlib._io.confine: reads confined to the package
    "ipam-allocator": {"contextvars"},
    # json: the vendored schema it reads. Not pathlib (with urllib and ipaddress, about 18 M
    # instructions): the schemas' folder is a string, the read roots only for a catalog folder.
    "preparer": {"contextvars", "json"},
}
AT_ERROR = {"difflib", "heapq"}  # "did you mean" in an invalid config's message
# Runs that write an item through the round trip: none since the merger's fresh copies are cut
# from the text (krmlib without_annotations).
ROUND_TRIP: set[tuple[str, str]] = set()


def _input(function: str, form: str) -> str:
    if form == "none":
        return PACKAGE
    config = BY_NAME[function].load()[1]
    data, spec = CONFIGS[function]
    if form == "configmap":
        fn_config: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "data": data}
    else:
        fn_config = {"apiVersion": config.API_VERSION, "kind": config.KIND, "spec": spec}
        if form == "invalid":
            fn_config["spec"] = {**spec, "bogus": 1}
    fn_config["metadata"] = {"name": "fn-config"}
    return PACKAGE + yaml.safe_dump({"functionConfig": fn_config}, sort_keys=False)


WRAPPER = """\
import atexit, gc, runpy, sys
atexit.register(lambda: sys.stderr.write("MODULES " + " ".join(sorted(sys.modules)) + "\\n"))
atexit.register(lambda: sys.stderr.write(f"FROZEN {gc.get_freeze_count()}\\n"))
sys.argv = [sys.argv[1]]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def _wrapped(wrapper: str, function: str, form: str, tag: str) -> tuple[str, str, int]:
    """Run ``function`` on its input in ``form`` under ``wrapper`` (Python code given the
    function's package): the one stderr line the wrapper wrote after ``tag``, stdout, exit code."""
    done = subprocess.run(
        [sys.executable, "-c", wrapper, BY_NAME[function].package],
        input=_input(function, form),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    listed = [line for line in done.stderr.splitlines() if line.startswith(tag + " ")]
    assert len(listed) == 1, done.stderr[-2000:]
    return listed[0].removeprefix(tag + " "), done.stdout, done.returncode


def _imported(function: str, form: str) -> tuple[set[str], str, int]:
    """The modules a run had imported when it exited, its stdout and exit code."""
    line, stdout, code = _wrapped(WRAPPER, function, form, "MODULES")
    return set(line.split()), stdout, code


def test_the_configs_cover_every_function() -> None:
    assert set(CONFIGS) == set(NOT_IN) == {f.name for f in FUNCTIONS}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("function", sorted(CONFIGS))
def test_no_function_imports_what_it_does_not_use(function: str, form: str) -> None:
    modules, out, code = _imported(function, form)
    assert {"krmlib._config.parse", "krmlib._config.records", BY_NAME[function].package} <= modules
    assert "krmlib._config.as_model" not in modules  # the pydantic bridge: as_model only
    assert "kind: ResourceList" in out
    if form == "invalid":
        assert code == 1 and "spec.bogus: unknown field" in out
    else:
        assert "invalid config" not in out, out
    assert not {m for m in modules if m.split(".")[0] in ("pydantic", "pydantic_core")}
    unused = (NOT_IN[function] | (NOT_AT_START if form != "invalid" else set())) & modules
    unused -= USED.get(function, set())
    unused |= PYYAML_PURE & modules
    assert not unused, sorted(unused)
    round_trip = {m for m in modules if m.startswith("ruamel")}
    assert bool(round_trip) == ((function, form) in ROUND_TRIP), sorted(round_trip)[:3]


# PACKAGE as kpt writes a package (the Kptfile's info after its metadata, as in bench/generate.py's
# packages): every field a run reads is scanned from the text, nothing is parsed through libyaml.
KPT_LAYOUT = PACKAGE.replace(
    "      config.kubernetes.io/path: Kptfile\n",
    "      config.kubernetes.io/path: Kptfile\n  info:\n    description: a package\n",
)
# Runs that parse through the binding all the same: nfdeploy reads back the Kptfile condition it
# has just set (krmlib/_model/kptfile.py parses the entry).
LIBYAML_USED = {"nfdeploy"}


@pytest.mark.parametrize("form", ["none", "configmap"])
@pytest.mark.parametrize("function", sorted(CONFIGS))
def test_the_libyaml_binding_loads_only_for_a_parse(function: str, form: str) -> None:
    """krmlib loads libyaml's binding (PyYAML's small modules and the Cython ``yaml._yaml``:
    about 0.5 MB of peak RSS and 4 ms of CPU) when a parse goes through it, not at start: the
    whole-input check is the C one (krmlib._yaml.ccheck), the reads are scans of the text."""
    text = KPT_LAYOUT
    if form == "configmap":  # as kpt appends it: metadata before data
        fn_config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fn-config"}}
        fn_config["data"] = CONFIGS[function][0]
        text += yaml.safe_dump({"functionConfig": fn_config}, sort_keys=False)
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, BY_NAME[function].package],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "kind: ResourceList" in done.stdout, done.stderr[-2000:]
    [line] = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    modules = set(line.split()[1:])
    assert ("yaml" in modules) == (function in LIBYAML_USED)
    assert ("yaml._yaml" in modules) == (function in LIBYAML_USED)


_BARE = "import atexit, runpy, sys\nprint(' '.join(sys.modules))\n"


@pytest.mark.parametrize("function", sorted(CONFIGS))
def test_no_new_eager_import(function: str) -> None:
    """Every module a run imports beyond the bare interpreter (and the wrapper) is one listed in
    AT_START, AT_START_FOR (with the reason the function needs it) or AT_ERROR (an invalid
    config's message): a module-level import added anywhere under a function fails here."""
    bare = subprocess.run(
        [sys.executable, "-c", _BARE], capture_output=True, text=True, timeout=60, check=True
    )
    before = {m.split(".")[0] for m in bare.stdout.split()}
    allowed = AT_START | AT_START_FOR.get(function, set())
    for form in ("configmap", "invalid"):
        modules = _imported(function, form)[0]
        new = {m.split(".")[0] for m in modules if not m.startswith("_")} - before
        new -= {"krmlib", "krmfn"} | allowed | (AT_ERROR if form == "invalid" else set())
        assert not new, f"{function} ({form}) imports {sorted(new)} at start-up"


# Patterns compiled while a function's modules are imported (module-level ``re.compile`` in
# krmlib and krmfn): at most these many (issue 37). A pattern used only on some inputs is kept as
# text and given to ``re.search(PATTERN, ...)`` (re caches it): compiled on first use.
# Counted in module-level comprehensions too (Python 3.12 inlines them into the module's frame;
# 3.11 gave them frames of their own, which an earlier count missed: 11 patterns, e.g. the
# scans' per-indent tables). Before issue 37 (counted without
# them): 52 for the merger and the preparer, 44 for nfdeploy. What is left is used by
# every run (the reader, the scan) or is on a per-item path where re's cache lookup would cost
# more than the compile; the gate's (krmlib/_io/gate.py, glance.py) are for its helper.
# Round five: the gate's unwritable, escaped and subdomain patterns (a class past U+00FF is built
# as a 64K-entry table, 4.3 M instructions) are text for re on the rare path; the path scan's
# block ends per indent, new files' names and topology-to-pvs's revisions compiled on first use.
# Then (h/startup3) krmlib/_yaml/scan.py's: 16 at import, 5 left (the ones every item's scan
# uses); the header's, metadata's block and map entry patterns per item form compiled on first
# use (a run reads one form: a ResourceList's items or a file's documents), 34-36 -> 23-25.
COMPILED_AT_IMPORT = {
    "applyset-labeler": 23,
    "dnn-generator": 23,
    "interface-expander": 23,
    "ipam-allocator": 23,
    "merger": 25,
    "nad-generator": 23,
    "nfdeploy": 24,
    "preparer": 25,
    "topology-to-pvs": 23,
}

_COUNT_COMPILES = """\
import re, sys
compiled = []
_AT_MODULE = ("<module>", "<dictcomp>", "<listcomp>", "<setcomp>", "<genexpr>")
_compile = re.compile
def counting(pattern, flags=0):
    caller = sys._getframe(1)
    # a comprehension at module level counts too (its own frame before Python 3.12, inlined since)
    if caller.f_code.co_name in _AT_MODULE and caller.f_globals.get("__name__", "").startswith(
        ("krmlib", "krmfn")
    ):
        compiled.append(caller.f_globals["__name__"])
    return _compile(pattern, flags)
re.compile = counting
from krmfn.registry import BY_NAME
__import__(sys.argv[1] + ".__main__")
BY_NAME[sys.argv[2]].load()
print(len(compiled))
"""


@pytest.mark.parametrize("function", sorted(CONFIGS))
def test_patterns_compiled_at_import(function: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_COMPILES, BY_NAME[function].package, function],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert int(done.stdout) <= COMPILED_AT_IMPORT[function], done.stdout


# A string compiled in a run (``compile(text, ..., "eval")``): each ``typing.ForwardRef`` does it
# (a NamedTuple field with a postponed annotation, ``TypeVar(bound="Name")``,
# ``typing.get_type_hints``), and the first builds the AST types: about 10 M instructions, a
# quarter of what issue 37 asked to cut. None in these functions' runs, whatever the config's form
# (records are slotted classes, type variables bound by name are the checker's, a Record's
# annotations are read with eval; the modules that make a NamedTuple on a run's path, krmlib's
# Condition, OwnerKey and ChildChange among them, do not postpone annotations, so typing is given
# the types themselves).
NO_FORWARD_REF = tuple(sorted(CONFIGS))
_COUNT_EVAL_COMPILES = """\
import builtins, atexit, runpy, sys
compiled = []
_compile = builtins.compile
def counting(source, *args, **kwargs):
    if isinstance(source, str):
        frame = sys._getframe(1)  # the nearest module of ours that made it compile
        while frame and not frame.f_globals.get("__name__", "").startswith(("krmlib", "krmfn")):
            frame = frame.f_back
        compiled.append((frame.f_globals["__name__"] if frame else "?", source))
    return _compile(source, *args, **kwargs)
builtins.compile = counting
atexit.register(lambda: sys.stderr.write(f"COMPILED {compiled!r}\\n"))
sys.argv = [sys.argv[1]]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("function", NO_FORWARD_REF)
def test_no_annotation_is_compiled_at_start_up(function: str, form: str) -> None:
    line, stdout, _code = _wrapped(_COUNT_EVAL_COMPILES, function, form, "COMPILED")
    assert "kind: ResourceList" in stdout
    compiled = ast.literal_eval(line)
    assert compiled == [], compiled


# Counted from krmfn.start on: its own import (krmfn's __init__ and start, compiled from source
# when there is no bytecode, as under PYTHONDONTWRITEBYTECODE) may collect before it runs.
_COUNT_COLLECTIONS = """\
import gc, sys
collections = []
from krmfn import start
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info))
main = getattr(start, sys.argv[1].replace("-", "_"))
from krmfn.registry import BY_NAME
BY_NAME[sys.argv[1]].load()  # what main() imports before it reads stdin
print(len(collections), gc.isenabled())
"""


@pytest.mark.parametrize("function", sorted(CONFIGS))
def test_the_console_script_loads_without_collecting(function: str) -> None:
    """``krmfn-<name>`` is ``krmfn.start:<name>``, which turns the cyclic collector off before
    the function's modules load: they live until exit, and the collector ran about 20 times over
    them (5-8 M instructions, issue 37)."""
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_COLLECTIONS, function],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["0", "False"], done.stdout


def test_start_has_only_the_functions() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from krmfn.start import nope"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "ImportError" in done.stderr


def test_the_process_ends_without_a_last_collection() -> None:
    """The console script freezes the heap at exit (krmfn/registry.py): the interpreter's last
    collection over every object of the run is skipped; the output is complete before."""
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, BY_NAME["merger"].package],
        input=PACKAGE,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    frozen = [line for line in done.stderr.splitlines() if line.startswith("FROZEN ")]
    assert frozen and int(frozen[0].split()[1]) > 10_000, done.stderr[-500:]
    assert "kind: ResourceList" in done.stdout and "name: settings" in done.stdout


def test_as_model_still_validates_with_pydantic() -> None:
    """pydantic stays for KubeObject.as_model (the optional extra krmfn[pydantic]), imported
    when that is called."""
    pytest.importorskip("pydantic", reason="the optional extra krmfn[pydantic] is not installed")
    script = (
        "import sys\n"
        "from pydantic import BaseModel\n"
        "from krmlib import KubeObject\n"
        "class Meta(BaseModel):\n"
        "    name: str\n"
        "obj = KubeObject.from_dict({'apiVersion': 'v1', 'kind': 'X', 'metadata': {'name': 'n'}})\n"
        "print(obj.as_model(Meta, 'metadata').name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "n\n"


STARTUP = """\
import sys
from krmfn.registry import BY_NAME
__import__(sys.argv[1] + ".__main__")
BY_NAME[sys.argv[2]].load()  # what main() imports before it reads stdin
print(" ".join(sorted(sys.modules)))
"""


@pytest.mark.parametrize("function", sorted(CONFIGS))
def test_no_function_starts_with_dataclasses(function: str) -> None:
    """A fresh interpreter that imports ``krmfn.<fn>.__main__`` and the function's process and
    config, and one that runs it on a small package, never import dataclasses."""
    done = subprocess.run(
        [sys.executable, "-c", STARTUP, BY_NAME[function].package, function],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    at_start = set(done.stdout.split())
    assert BY_NAME[function].package + ".__main__" in at_start
    assert not DATACLASSES & at_start, sorted(DATACLASSES & at_start)
    after_run = _imported(function, "configmap")[0]
    assert not DATACLASSES & after_run, sorted(DATACLASSES & after_run)


def test_no_module_makes_a_dataclass() -> None:
    """Records in krmlib and the functions are NamedTuples or slotted classes, never
    ``@dataclass`` (ARCHITECTURE.md, "Records")."""
    found = [
        str(path.relative_to(ROOT))
        for folder in ("krmlib", "krmfn")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "@dataclass" in path.read_text(encoding="utf-8")
        or "import dataclasses" in path.read_text(encoding="utf-8")
        or "from dataclasses " in path.read_text(encoding="utf-8")
    ]
    assert not found, found


def test_the_public_records_stay_named_tuples() -> None:
    """krmlib's Condition, OwnerKey and ChildChange are made from real types now (their modules do
    not postpone annotations, issue 37): still NamedTuples with the same fields, defaults and
    type hints."""
    from typing import Literal, get_type_hints

    from krmlib import Condition, KubeObject
    from krmlib.children import Action, ChildChange, OwnerKey

    assert Condition._fields == ("type", "status", "reason", "message")
    assert Condition._field_defaults == {"reason": "", "message": ""}
    status = Literal["True", "False", "Unknown"]
    assert get_type_hints(Condition) == {
        "type": str,
        "status": status,
        "reason": str,
        "message": str,
    }
    assert Condition("Ready", "True") == ("Ready", "True", "", "")
    assert Condition.from_dict({"type": "Ready", "status": "True"}) == Condition("Ready", "True")
    assert OwnerKey._fields == ("api_version", "kind", "name", "namespace")
    assert OwnerKey._field_defaults == {"namespace": ""}
    assert get_type_hints(OwnerKey) == dict.fromkeys(OwnerKey._fields, str)
    assert ChildChange._fields == ("action", "child", "owner")
    hints = {"action": Action, "child": KubeObject, "owner": OwnerKey}
    assert get_type_hints(ChildChange) == hints
    assert all(issubclass(t, tuple) for t in (Condition, OwnerKey, ChildChange))
