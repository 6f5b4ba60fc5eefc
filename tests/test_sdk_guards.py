"""krmlib never emits what it would refuse, and guards a function author's first hour (issue 34).

The output gate: an item a function made or changed that krmlib's own reader would refuse (NUL
or a lone surrogate in a value, a name with ``/``, no metadata, two items with one identity, a
path annotation leaving the package, text that does not parse, a bad label) is an error result
naming the item, the field and the author's line; the ResourceList written holds only the
results, and exit 1. The guard rails: ``print`` goes to stderr, ``sys.exit`` and a returned value
are error results, a path mistake names the author's line without a Python repr. Each runs in
process (``run_text``) and, where kpt's behaviour is the point, under real kpt on a package that
must stay byte for byte as it was."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from krmlib import KubeObject, ResourceList
from krmlib.testing import read_tree, run_kpt, run_text
from tests.gate_support import marked_line

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
CM = (
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n    annotations:\n"
    "      config.kubernetes.io/path: cm.yaml\n      internal.config.kubernetes.io/path: cm.yaml\n"
    "  data:\n    a: b\n"
)
DEPLOYMENT = (
    "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n"
    "  spec:\n    template:\n      spec:\n        containers:\n        - name: c\n"
    "          image: nginx\n"
)
THIS = "tests/test_sdk_guards.py"


def _line(marker: str) -> int:
    return marked_line(__file__, marker)


class _Result:
    """A result as written (message, severity, field path, resourceRef)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.message: str = data["message"]
        self.severity: str = data["severity"]
        self.field_path: str | None = data.get("field", {}).get("path")
        self.resource_ref: dict[str, str] | None = data.get("resourceRef")


def _read(out: str) -> tuple[list[KubeObject], list[_Result]]:
    """The items and the results of an output ResourceList (read back by krmlib's reader)."""
    rl = ResourceList.parse(out)
    results = KubeObject.from_yaml(out).get("results") or []
    return list(rl.items), [_Result(r) for r in results]


def _cm(rl: ResourceList) -> KubeObject:
    found = rl.items.first(kind="ConfigMap")
    assert found is not None
    return found


def nul(rl: ResourceList, config: None) -> None:
    _cm(rl).set("data.x", "a\x00b")  # nul


def surrogate(rl: ResourceList, config: None) -> None:
    _cm(rl).set("data.x", "a\ud800b")  # surrogate


def slash(rl: ResourceList, config: None) -> None:
    _cm(rl).set("metadata.name", "a/b")  # slash


def upper(rl: ResourceList, config: None) -> None:
    _cm(rl).set("metadata.name", "Web_1")  # upper


def no_metadata(rl: ResourceList, config: None) -> None:
    _cm(rl).delete("metadata")  # no_metadata


def duplicate(rl: ResourceList, config: None) -> None:
    new = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}
    rl.items.append(KubeObject.from_dict(new))  # duplicate


def up(rl: ResourceList, config: None) -> None:
    _cm(rl).annotations["internal.config.kubernetes.io/path"] = "../x.yaml"  # up


def absolute(rl: ResourceList, config: None) -> None:
    _cm(rl).annotations["config.kubernetes.io/path"] = "/etc/x.yaml"  # absolute


def bad_label(rl: ResourceList, config: None) -> None:
    _cm(rl).labels["team"] = "net work"  # bad_label


def bad_text(rl: ResourceList, config: None) -> None:
    text = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: t\n  data: {a: [b\n"
    rl.items.append(KubeObject.from_item(text))  # bad_text


CASES = [
    (nul, "a value holds a NUL", "data.x"),
    (surrogate, "a value holds a lone surrogate", "data.x"),
    (slash, "metadata.name 'a/b' can never be a valid Kubernetes name", "metadata.name"),
    (upper, "gives the ConfigMap the name 'Web_1', which an API server refuses", "metadata.name"),
    (no_metadata, "has no metadata.name", "metadata.name"),
    (duplicate, "another item has the same identity", "metadata.name"),
    (up, "path '../x.yaml' leaves the package",
     'metadata.annotations["internal.config.kubernetes.io/path"]'),
    (absolute, "path '/etc/x.yaml' must be relative to the package",
     'metadata.annotations["config.kubernetes.io/path"]'),
    (bad_label, "label team:", 'metadata.labels["team"]'),
    (bad_text, "invalid YAML", None),
]  # fmt: skip


@pytest.mark.parametrize(("process", "says", "field"), CASES, ids=[c[0].__name__ for c in CASES])
def test_the_gate_refuses_what_the_reader_would(process: object, says: str, field: str) -> None:
    out, code = run_text(process, None, HEAD + CM + DEPLOYMENT)  # type: ignore[call-overload]
    assert code == 1
    items, [result] = _read(out)  # what was written reads back
    assert items == [], out  # nothing of the refused output
    assert result.severity == "error"
    assert result.message.startswith("output refused: ") and says in result.message, out
    line = _line(process.__name__)  # type: ignore[attr-defined]
    assert f"(written at {THIS}:{line})" in result.message, out
    assert result.field_path == field


def test_an_edit_the_reader_accepts_passes_the_gate_unchanged() -> None:
    def fine(rl: ResourceList, config: None) -> None:
        _cm(rl).labels["team"] = "net"
        _cm(rl).set("data.x", "é ✓")
        rl.items.append(KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap",
                                              "metadata": {"name": "cm2"}}))  # fmt: skip

    out, code = run_text(fine, None, HEAD + CM + DEPLOYMENT)
    assert code == 0 and "team: net" in out and "name: cm2" in out


def test_duplicates_already_in_the_input_are_not_the_functions() -> None:
    def touch(rl: ResourceList, config: None) -> None:
        _cm(rl).labels["team"] = "net"

    out, code = run_text(touch, None, HEAD + CM + CM.replace("a: b", "a: c"))
    assert code == 0, out


def exits(rl: ResourceList, config: None) -> None:
    sys.exit(0)  # exits


def returns(rl: ResourceList, config: None) -> tuple[bool, str]:
    for obj in rl.items:
        if obj.kind == "Deployment":
            return False, "bad"  # returns
    return True, ""


def wrong_path(rl: ResourceList, config: None) -> None:
    for obj in rl.items.where(kind="Deployment"):
        obj.set("spec.template.spec.containers.image", "nginx:2")  # wrong_path


def test_sys_exit_in_process_is_an_error_result_never_empty_output() -> None:
    out, code = run_text(exits, None, HEAD + CM)
    assert code == 1
    _items, [result] = _read(out)
    assert result.message.startswith("the function called sys.exit(0) (at ")
    assert f"{THIS}:{_line('exits')} in exits" in result.message


def test_a_returned_value_is_an_error_naming_the_return_line() -> None:
    out, code = run_text(returns, None, HEAD + CM + DEPLOYMENT)  # type: ignore[arg-type]
    assert code == 1
    _items, [result] = _read(out)
    assert result.message.startswith("the function returned (False, 'bad')")
    assert f"(at {THIS}:{_line('returns')})" in result.message


def test_a_path_through_a_list_names_the_authors_line_and_the_item_without_a_repr() -> None:
    out, code = run_text(wrong_path, None, HEAD + DEPLOYMENT)
    assert code == 1
    _items, [result] = _read(out)
    assert "<KubeObject" not in result.message
    assert "spec.template.spec.containers is not a map" in result.message
    assert f"at {THIS}:{_line('wrong_path')} in wrong_path" in result.message
    assert result.resource_ref == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def test_print_goes_to_stderr_with_one_warning(capsys: pytest.CaptureFixture[str]) -> None:
    def prints(rl: ResourceList, config: None) -> None:
        print("hello: world")  # prints
        print("second")

    out, code = run_text(prints, None, HEAD + CM)
    assert code == 0 and "hello" not in out
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("krmlib: warning: the function printed to stdout") == 1
    assert f"printed to stdout (at {THIS}:{_line('prints')});" in captured.err  # the first one
    assert "hello: world\nsecond\n" in captured.err


HOSTILE = textwrap.dedent(
    """\
    import atexit
    import sys

    from krmlib import KubeObject, ResourceList, run

    MODE = {mode!r}


    def process(rl: ResourceList, config: None) -> None:
        for obj in rl.items.where(kind="ConfigMap"):
            if MODE == "exit":
                sys.exit(0)
            if MODE == "print":
                print("not yaml: [")
                atexit.register(lambda: print("late: text"))
            if MODE == "return":
                return False, "bad"
            if MODE == "nul":
                obj.set("data.x", "a\\x00b")
            if MODE == "escape":
                obj.annotations["internal.config.kubernetes.io/path"] = "../x.yaml"
                obj.annotations["config.kubernetes.io/path"] = "../x.yaml"
            if MODE == "slash":
                obj.set("metadata.name", "a/b")


    if __name__ == "__main__":
        sys.exit(run(process, None, name="hostile"))
    """
)


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n"
        '  annotations:\n    config.kubernetes.io/local-config: "true"\n'
    )
    (pkg / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm # keep\ndata:\n  a: b\n"
    )
    return pkg


@pytest.mark.kpt
@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("exit", "the function called sys.exit(0) (at hostile.py:12 in process)"),
        ("return", "the function returned (False, 'bad') (at hostile.py:17)"),
        ("nul", "a value holds a NUL"),
        ("escape", "leaves the package"),
        ("slash", "can never be a valid Kubernetes name"),
    ],
)
@pytest.mark.parametrize("command", ["eval", "render"])
def test_under_kpt_the_package_stays_as_it_was(
    tmp_path: Path, mode: str, says: str, command: str
) -> None:
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE.format(mode=mode))
    pkg = _package(tmp_path)
    before = read_tree(pkg)
    exec_ = f"{sys.executable} {script}"
    if command == "eval":
        done = run_kpt(["fn", "eval", str(pkg), "--exec", exec_, "--truncate-output=false"])
    else:
        kptfile = pkg / "Kptfile"
        kptfile.write_text(kptfile.read_text() + f"pipeline:\n  mutators:\n  - exec: {exec_}\n")
        before = read_tree(pkg)
        done = run_kpt(["fn", "render", str(pkg), "--allow-exec", "--truncate-output=false"])
    shown = done.stdout + done.stderr
    assert done.returncode != 0, shown
    assert says in shown, shown
    if mode in ("nul", "slash", "escape"):  # the line that last wrote the item
        line = {"nul": 19, "escape": 22, "slash": 24}[mode]
        assert f"(written at hostile.py:{line})" in shown, shown
    assert read_tree(pkg) == before
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.kpt
def test_under_kpt_a_print_and_a_late_print_leave_the_output_intact(tmp_path: Path) -> None:
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE.format(mode="print"))
    pkg = _package(tmp_path)
    before = read_tree(pkg)
    done = run_kpt(["fn", "eval", str(pkg), "--exec", f"{sys.executable} {script}"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_tree(pkg) == before  # nothing changed, nothing lost
    # kpt shows the function's stderr: the warning names the print's line, then the text
    shown = done.stdout + done.stderr
    assert "the function printed to stdout (at hostile.py:14)" in shown, shown
    assert "not yaml: [" in shown and "late: text" in shown


def test_a_late_print_goes_to_stderr_after_the_output(tmp_path: Path) -> None:
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE.format(mode="print"))
    done = subprocess.run(
        [sys.executable, str(script)], input=HEAD + CM, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0
    ResourceList.parse(done.stdout)
    assert "late: text" not in done.stdout and "late: text" in done.stderr
    assert "not yaml: [" in done.stderr


def test_krmlib_log_writes_to_stderr_never_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    import krmlib

    def logs(rl: ResourceList, config: None) -> None:
        krmlib.log.info("looked at %d items", len(rl.items))

    out, code = run_text(logs, None, HEAD + CM)
    assert code == 0 and "looked at" not in out
    captured = capsys.readouterr()
    assert captured.out == "" and "INFO: looked at 1 items\n" in captured.err


@pytest.mark.parametrize("name", ["class", "krmlib", "yaml", "typing", "match", "json", "ruamel"])
def test_krmlib_new_refuses_names_that_would_not_import(name: str) -> None:
    from krmlib._io.scaffold import ScaffoldError, placeholders

    with pytest.raises(ScaffoldError, match="would not import"):
        placeholders(name, "0.1.0")
    assert placeholders("my-" + name, "0.1.0")["__MODULE__"] == "my_" + name


def test_doc_prints_the_functions_documentation_as_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from krmlib import FunctionConfig, run

    class Labels(FunctionConfig):
        API_VERSION = "fn.example.com/v1"
        KIND = "Labels"
        team: str = "net"

    def nothing(rl: ResourceList, config: Labels) -> None:
        pass

    text = "# labels\n\nAdds a team label to every object.\n"
    code = run(nothing, Labels, name="labels", help_text=text, version="1.2.3", argv=["--doc"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["name"] == "labels" and doc["version"] == "1.2.3"
    assert doc["summary"] == "Adds a team label to every object."
    assert doc["config"] == {"apiVersion": "fn.example.com/v1", "kind": "Labels"}
    assert doc["doc"] == text and doc["usage"].startswith("usage: labels [-h] [--version]")


def test_a_config_field_takes_its_camel_case_krm_name() -> None:
    from krmlib import FunctionConfig, parse_config

    class Sidecars(FunctionConfig):
        API_VERSION = "fn.example.com/v1"
        KIND = "Sidecars"
        init_containers: list[str] = []
        max_count: int = 1

    typed = KubeObject.from_yaml(
        "apiVersion: fn.example.com/v1\nkind: Sidecars\nmetadata:\n  name: s\n"
        "spec:\n  initContainers: [a, b]\n  max_count: 2\n"
    )
    config = parse_config(Sidecars, typed)
    assert config.init_containers == ["a", "b"] and config.max_count == 2
    assert Sidecars.model_fields["init_containers"].alias == "initContainers"


def test_get_is_a_copy_and_at_is_a_live_view() -> None:
    rl = ResourceList.parse(HEAD + DEPLOYMENT)
    web = rl.items[0]
    copy = web.get("spec.template.spec.containers")
    copy[0]["image"] = "changed"
    assert web.get("spec.template.spec.containers[0].image") == "nginx"  # a copy
    containers = web.at("spec.template.spec.containers").items()
    assert [c.path for c in containers] == ["spec.template.spec.containers[0]"]
    containers[0].set("image", "nginx:1.27")
    containers[0].at("resources.limits").set("cpu", "1")
    assert web.get("spec.template.spec.containers[0].image") == "nginx:1.27"
    assert web.get("spec.template.spec.containers[0].resources") == {"limits": {"cpu": "1"}}
    assert web.at("spec.template").get("spec.containers[0].name") == "c"
    assert "image: nginx:1.27\n" in rl.to_yaml()


def _warn_db(rl: ResourceList, config: None) -> None:
    for obj in rl.items.where(kind="ConfigMap"):
        rl.results.warning("checked", obj)


@pytest.mark.kpt
def test_under_render_a_subpackages_result_names_the_file_from_the_rendered_package(
    tmp_path: Path,
) -> None:
    script = tmp_path / "warn.py"
    script.write_text(
        "import sys\nfrom krmlib import run\nfrom tests.test_sdk_guards import _warn_db\n"
        "sys.exit(run(_warn_db, None, name='warn'))\n"
    )
    pkg = _package(tmp_path)
    (pkg / "cm.yaml").unlink()
    db = pkg / "db"
    db.mkdir()
    (db / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: db\n")
    (db / "db.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n")
    kptfile = pkg / "Kptfile"
    exec_ = f"{sys.executable} {script}"
    kptfile.write_text(kptfile.read_text() + f"pipeline:\n  validators:\n  - exec: {exec_}\n")
    root = Path(__file__).resolve().parent.parent
    done = run_kpt(
        ["fn", "render", str(pkg), "--allow-exec", "--truncate-output=false",
         "--results-dir", str(tmp_path / "results")],
        env={"PYTHONPATH": str(root)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    written = "".join(p.read_text() for p in (tmp_path / "results").iterdir())
    assert "path: db/db.yaml" in written, written


def test_a_new_project_builds_its_image_with_one_command(tmp_path: Path) -> None:
    import shutil

    from krmlib._io.scaffold import new_project

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    new_project("set-team", tmp_path / "p", "0.1.0")
    done = subprocess.run(
        ["make", "-n", "image", "ENGINE=podman", "KRMLIB_WHEELS=/w"], cwd=tmp_path / "p",
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "python3 -m pip wheel --quiet --wheel-dir wheels . --find-links /w" in done.stdout
    assert "podman build -t localhost/set-team:v0.1.0 ." in done.stdout


def test_krmlib_variables_are_named_krmlib_and_the_old_names_still_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from krmlib._base.errors import setting
    from krmlib.testing import updating

    monkeypatch.delenv("KRMLIB_UPDATE_GOLDEN", raising=False)
    monkeypatch.delenv("KRMFN_UPDATE_GOLDEN", raising=False)
    assert not updating()
    monkeypatch.setenv("KRMLIB_UPDATE_GOLDEN", "1")
    assert updating()
    monkeypatch.delenv("KRMLIB_UPDATE_GOLDEN")
    monkeypatch.setenv("KRMFN_UPDATE_GOLDEN", "1")
    with pytest.warns(DeprecationWarning, match="KRMFN_UPDATE_GOLDEN is deprecated"):
        assert updating()
    monkeypatch.setenv("KRMFN_DEBUG", "1")
    with pytest.warns(DeprecationWarning, match="set KRMLIB_DEBUG"):
        assert setting("DEBUG") == "1"


def test_the_core_page_comes_first_and_its_function_runs(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    index = (root / "docs" / "index.rst").read_text()
    assert index.index("   core\n") < index.index("   tutorial\n")
    page = (root / "docs" / "core.rst").read_text()
    block = page.split(".. code-block:: python\n\n", 1)[1].split("\n\n**", 1)[0]
    code = textwrap.dedent(block)
    script = tmp_path / "set_team.py"
    script.write_text(code)
    config = (
        "functionConfig:\n  apiVersion: fn.example.com/v1alpha1\n  kind: SetTeam\n"
        "  metadata:\n    name: c\n  spec:\n    team: net\n    extraLabels: {a: b}\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], input=HEAD + DEPLOYMENT + config,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "example.com/team: net" in done.stdout
    assert "INFO: labelled the Deployments" in done.stderr


def test_file_mode_passes_the_gate_too(tmp_path: Path) -> None:
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE.format(mode="slash"))
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n")
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "cm.yaml")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "a/b" not in done.stdout.replace("'a/b'", "")  # no item written
    assert "output refused" in done.stderr and "(written at hostile.py:" in done.stderr


@pytest.mark.parametrize(
    "value",
    ["'../x.yaml'", "/etc/x.yaml", "x\n        /../../../../etc/x.yaml", '"..\\x2fx.yaml"',
     "|\n        ../x.yaml", "a/../../x.yaml"],
)  # fmt: skip
def test_a_handed_over_item_with_an_escaping_path_is_refused(value: str) -> None:
    def hands(rl: ResourceList, config: None) -> None:
        text = (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n  annotations:\n"
            f"    internal.config.kubernetes.io/path: {value}\n"
        )
        rl.items.append(KubeObject.from_yaml(text.replace("\n        ", "\n      ")))

    out, code = run_text(hands, None, HEAD + CM)
    assert code == 1, out
    _items, [result] = _read(out)
    assert result.message.startswith("output refused: "), result.message
