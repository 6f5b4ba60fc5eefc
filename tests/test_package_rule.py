"""One rule for "this function's package" (`ResourceList.package()`), checked against kpt.

kpt 1.0.0-beta.56 gives a pipeline's function: under `kpt fn render` of a package with
subpackages, the subpackages' items first, each with a path relative to its own package and
`internal.config.kubernetes.io/package-path` naming its folder, then the package's own; under
`kpt fn eval`, paths relative to the package (`sub/Kptfile`) and no package-path. The layouts are
captured here from the real binary (an exec function that saves its input), and each function is
run under `kpt fn render` of a package with a subpackage to show it works for the rendered
package, not for the subpackage whose items come first.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from krmfn.registry import BY_NAME
from krmlib import FunctionPackage, Items, KrmError, KubeObject, ResourceList
from krmlib._model import storage as _storage
from krmlib.testing import GoldenCase, case_env, golden_cases, read_tree, run_kpt

from .kpt_packages import render

BIN = Path(sys.executable).parent
KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: {name}\n"


def cm(name: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def item(kind: str, name: str, path: str | None, package: str | None) -> KubeObject:
    annotations = {}
    if path is not None:
        annotations["internal.config.kubernetes.io/path"] = path
    if package is not None:
        annotations["internal.config.kubernetes.io/package-path"] = package
    api = "kpt.dev/v1" if kind == "Kptfile" else "v1"
    metadata = {"name": name, "annotations": annotations}
    return KubeObject.from_dict({"apiVersion": api, "kind": kind, "metadata": metadata})


# --- the rule on its own -------------------------------------------------------------------------


def test_render_layout_subpackages_first() -> None:
    items = [
        item("Kptfile", "sub", "Kptfile", "/p/sub"),
        item("ConfigMap", "s", "cm.yaml", "/p/sub"),
        item("Kptfile", "deep", "Kptfile", "/p/sub/deep"),
        item("Kptfile", "root", "Kptfile", "/p"),
        item("ConfigMap", "r", "cm.yaml", "/p"),
    ]
    package = FunctionPackage.of(items)
    assert package.folder == "/p"
    assert package.kptfile is items[3]


def test_eval_layout_and_standalone_files() -> None:
    items = [
        item("Kptfile", "root", "Kptfile", None),
        item("Kptfile", "sub", "sub/Kptfile", None),
        item("ConfigMap", "s", "sub/cm.yaml", None),
    ]
    package = FunctionPackage.of(items)
    assert (package.kptfile, package.folder) == (items[0], None)
    none = FunctionPackage.of([item("ConfigMap", "a", None, None)])
    assert (none.kptfile, none.folder) == (None, None)
    alone = FunctionPackage.of([item("ConfigMap", "a", "a.yaml", "/p")])
    assert (alone.kptfile, alone.folder) == (None, "/p")


def test_one_spelling_of_the_rule() -> None:
    """``rl.package()`` is the rule's one spelling: ``Items.kptfile`` (a second one, which
    picked the first Kptfile before issue 33) is gone, and no function or example uses it."""
    assert not hasattr(Items, "kptfile")
    root = Path(__file__).resolve().parent.parent
    uses = [
        f"{path.relative_to(root)}:{number}"
        for folder in ("krmfn", "krmlib", "examples")
        for path in sorted((root / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "items.kptfile" in line
    ]
    assert uses == []


def test_package_is_kept_and_never_stale() -> None:
    """``rl.package()`` is computed once (the runner and the function ask in turn) and its
    kept answer goes on every change the rule reads: an item added, removed or replaced, the
    items list replaced, a path, package-path, kind or apiVersion written, a text replaced."""
    sub = item("Kptfile", "sub", "Kptfile", "/p/sub")
    root = item("Kptfile", "root", "Kptfile", "/p")
    rl = ResourceList(items=Items([sub, item("ConfigMap", "s", "cm.yaml", "/p/sub")]))
    first = rl.package()
    assert first is rl.package()  # kept: not computed again
    assert (first.kptfile, first.folder) == (sub, "/p/sub")
    rl.items.append(root)  # an item added
    assert (rl.package().kptfile, rl.package().folder) == (root, "/p")
    rl.items.remove(root)  # removed
    assert rl.package().kptfile is sub
    sub.annotations["internal.config.kubernetes.io/package-path"] = "/p"  # renamed
    assert rl.package().folder == "/p"
    rl.items[1].annotations["internal.config.kubernetes.io/package-path"] = "/p"
    assert rl.package().kptfile is sub
    sub.set_path("sub/Kptfile")  # no longer the package's Kptfile
    assert rl.package().kptfile is None
    sub.set_path("Kptfile")
    assert rl.package().kptfile is sub
    sub.set("kind", "ConfigMap")  # no longer a Kptfile
    assert rl.package().kptfile is None
    sub.set("kind", "Kptfile")
    sub.set("apiVersion", "v1")  # not kpt's
    assert rl.package().kptfile is None
    rl.items.replace_all([root])  # the list rebuilt
    assert rl.package().kptfile is root
    rl.items = Items([sub])  # the list replaced
    assert rl.package().kptfile is None
    parsed = ResourceList.parse(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: a\n"
        "    annotations:\n      internal.config.kubernetes.io/path: Kptfile\n"
    )
    kptfile = parsed.package().kptfile
    assert kptfile is not None
    text = kptfile.to_item().replace("path: Kptfile", "path: other/Kptfile")
    _storage.of(kptfile).replace_text(text)  # the whole text replaced (the reader's edits)
    assert parsed.package().kptfile is None
    kptfile.annotations["internal.config.kubernetes.io/path"] = "Kptfile"
    assert parsed.package().kptfile is kptfile


@pytest.mark.parametrize(
    ("items", "wrong", "message"),
    [
        (  # a forged item shorter than the package: it would move the folder
            [item("Kptfile", "root", "Kptfile", "/p"), item("ConfigMap", "x", "x.yaml", "/")],
            1,
            "outside the package being rendered",
        ),
        (
            [item("Kptfile", "root", "Kptfile", "/p"), item("ConfigMap", "x", "x.yaml", "/q")],
            1,
            "outside the package being rendered",
        ),
        (  # a sibling folder sharing a prefix is not inside
            [item("Kptfile", "root", "Kptfile", "/p"), item("ConfigMap", "x", "x.yaml", "/p2")],
            1,
            "outside",
        ),
        (
            [item("Kptfile", "a", "Kptfile", "/p"), item("Kptfile", "b", "Kptfile", "/p")],
            1,
            "a second Kptfile",
        ),
        (
            [item("Kptfile", "a", "Kptfile", None), item("Kptfile", "b", "Kptfile", None)],
            1,
            "a second Kptfile",
        ),
        (
            [item("ConfigMap", "a", "a.yaml", "/p"), item("ConfigMap", "b", "b.yaml", "/q")],
            1,
            "different package folders",
        ),
    ],
)
def test_items_that_contradict_the_rule_are_an_error(
    items: list[KubeObject], wrong: int, message: str
) -> None:
    with pytest.raises(KrmError, match=message) as caught:
        FunctionPackage.of(items)
    assert caught.value.obj is items[wrong]
    assert caught.value.field is not None and "kubernetes.io/" in caught.value.field


# --- the layouts kpt gives -----------------------------------------------------------------------

SAVE = """\
#!{python}
import os, sys, time
data = sys.stdin.read()
with open(os.path.join({out!r}, str(time.time_ns()) + ".yaml"), "w") as handle:
    handle.write(data)
sys.stdout.write(data)
"""


def captured(out: Path) -> list[ResourceList]:
    return [ResourceList.parse(p.read_text()) for p in sorted(out.iterdir())]


def tree(root: Path, pipeline: str) -> Path:
    return write(
        root,
        {
            "Kptfile": KPTFILE.format(name="root") + pipeline,
            "cm.yaml": cm("root-cm"),
            "plain/p.yaml": cm("plain"),
            "sub/Kptfile": KPTFILE.format(name="sub"),
            "sub/cm.yaml": cm("sub-cm"),
            "sub/deep/Kptfile": KPTFILE.format(name="deep"),
            "sub/deep/cm.yaml": cm("deep-cm"),
        },
    )


@pytest.mark.kpt
def test_the_rule_holds_in_every_layout_kpt_gives(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    save = tmp_path / "save.py"
    save.write_text(SAVE.format(python=sys.executable, out=str(out)))
    save.chmod(0o755)
    pipeline = f"pipeline:\n  mutators:\n  - exec: {save}\n"
    root = tree(tmp_path / "root", pipeline)
    render(root)
    (rendered,) = captured(out)
    first = rendered.items[0]
    assert first.kind == "Kptfile" and first.path == "Kptfile" and first.name != "root"
    package = rendered.package()
    assert package.kptfile is not None and package.kptfile.name == "root"
    assert package.folder == str(root.resolve())

    for saved in out.iterdir():
        saved.unlink()
    done = run_kpt(["fn", "eval", str(root), "--exec", str(save)])
    assert done.returncode == 0, done.stderr
    (evaluated,) = captured(out)
    package = evaluated.package()
    assert package.kptfile is not None and package.kptfile.name == "root"
    assert package.folder is None

    for saved in out.iterdir():
        saved.unlink()
    plain = write(tmp_path / "plain", {"a.yaml": cm("a")})
    done = run_kpt(["fn", "eval", str(plain), "--exec", str(save)])
    assert done.returncode == 0, done.stderr
    (standalone,) = captured(out)
    assert (standalone.package().kptfile, standalone.package().folder) == (None, None)


# --- each function under kpt fn render with a subpackage -------------------------------------------


def with_subpackage(root: Path, pipeline: str, files: dict[str, str]) -> Path:
    return write(
        root,
        {
            "Kptfile": KPTFILE.format(name="root") + pipeline,
            "sub/Kptfile": KPTFILE.format(name="sub"),
            "sub/cm.yaml": cm("sub-cm"),
            **files,
        },
    )


@pytest.mark.kpt
def test_interface_expander_writes_the_rendered_packages_kptfile(tmp_path: Path) -> None:
    case = Path(__file__).parent.parent / "testdata" / "interface-expander" / "default-network"
    files = {p.name: p.read_text() for p in (case / "package").iterdir() if p.name != "Kptfile"}
    pipeline = "pipeline:\n  mutators:\n  - exec: krmfn-interface-expander\n"
    root = with_subpackage(tmp_path / "root", pipeline, files)
    sub_before = (root / "sub" / "Kptfile").read_text()
    render(root, cwd=root.parent)
    assert (root / "sub" / "Kptfile").read_text() == sub_before
    assert "conditions:" in (root / "Kptfile").read_text()


@pytest.mark.kpt
def test_applyset_labeler_names_the_parent_after_the_rendered_package(tmp_path: Path) -> None:
    config = textwrap.dedent(
        """\
        apiVersion: krmfn.dev/v1alpha1
        kind: ApplySet
        metadata:
          name: set
          annotations:
            config.kubernetes.io/local-config: "true"
        spec:
          parent: {kind: ConfigMap, namespace: prod}
        """
    )
    pipeline = (
        "pipeline:\n  mutators:\n  - exec: krmfn-applyset-labeler\n    configPath: set.yaml\n"
    )
    root = with_subpackage(tmp_path / "root", pipeline, {"set.yaml": config})
    render(root, cwd=root.parent)
    assert (root / "configmap_root.yaml").exists()
    assert not (root / "sub" / "configmap_sub.yaml").exists()
    assert not (root / "configmap_sub.yaml").exists()


@pytest.mark.kpt
def test_merger_reads_its_files_from_the_rendered_package(tmp_path: Path) -> None:
    config = textwrap.dedent(
        """\
        apiVersion: krmfn.dev/v1alpha1
        kind: Merge
        metadata:
          name: merge
          annotations:
            config.kubernetes.io/local-config: "true"
        spec:
          files: [inputs/extra.yaml]
        """
    )
    pipeline = "pipeline:\n  mutators:\n  - exec: krmfn-merger\n    configPath: merge.yaml\n"
    root = with_subpackage(
        tmp_path / "root",
        pipeline,
        {"merge.yaml": config, "cm.yaml": cm("root-cm"), "inputs/extra.yaml": cm("merged")},
    )
    (root / ".krmignore").write_text("inputs/\n")  # the file is an input, not a resource
    render(root, cwd=root.parent)
    assert "name: merged" in "".join(p.read_text() for p in root.glob("*.yaml"))


@pytest.mark.kpt
def test_preparer_prepares_the_rendered_package_not_a_subpackage(tmp_path: Path) -> None:
    pipeline = "pipeline:\n  mutators:\n  - exec: krmfn-preparer\n"
    root = with_subpackage(tmp_path / "root", pipeline, {"cm.yaml": cm("root-cm")})
    render(root, cwd=root.parent)
    own = [p.name for p in root.iterdir() if p.is_file()]
    assert any("deployment" in name.lower() for name in own), own
    assert sorted(p.name for p in (root / "sub").iterdir()) == ["Kptfile", "cm.yaml"]


# --- every function of the registry, on kpt's render layout --------------------------------------

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"


# Unrelated to every function: a local-config object (never applied, so no ApplySet member).
LOCAL_CM = cm("sub-cm") + "  annotations:\n    config.kubernetes.io/local-config: 'true'\n"


def _first_case(function: str) -> GoldenCase:
    """The function's first golden case that succeeds and has a Kptfile (with its config)."""
    return next(
        c
        for c in golden_cases(TESTDATA, function)
        if c.exit_code == 0 and c.kpt and (c.package / "Kptfile").exists()
    )


def _rendered(case: GoldenCase, root: Path, subpackage: bool) -> dict[str, bytes]:
    """The case's package as the root of a render (its function in the pipeline, its config
    beside it), with or without an unrelated subpackage; the files after ``kpt fn render``."""
    shutil.copytree(case.package, root)
    step = {"exec": BY_NAME[case.function].script}
    if case.config is not None:
        shutil.copy(case.config, root / "fn-config.yaml")
        step["configPath"] = "fn-config.yaml"
    kptfile = KubeObject.from_yaml((root / "Kptfile").read_text())
    kptfile.set("pipeline", {"mutators": [step]})  # the function alone: the case's pipeline out
    (root / "Kptfile").write_text(kptfile.to_yaml())
    if subpackage:
        write(root, {"sub/Kptfile": KPTFILE.format(name="sub"), "sub/cm.yaml": LOCAL_CM})
    done = run_kpt(
        ["fn", "render", str(root), "--allow-exec", "--truncate-output=false"],
        env=case_env(case),
        cwd=root.parent,
    )
    assert done.returncode == 0, f"{case}: {done.stdout}{done.stderr}"
    return read_tree(root)


@pytest.mark.kpt
@pytest.mark.parametrize("function", sorted(BY_NAME))
def test_a_subpackage_changes_nothing_in_the_rendered_package(
    function: str, tmp_path: Path
) -> None:
    """Each function of the registry under ``kpt fn render --allow-exec``: the package's own
    files come out the same with an unrelated subpackage as without it (kpt gives the
    subpackage's items first: a function that took the first Kptfile found the subpackage's),
    and the subpackage is left as it was. nad-generator wrote no NAD here until it took its
    Kptfile from ``ResourceList.package()`` (issue 33.6)."""
    case = _first_case(function)
    alone = _rendered(case, tmp_path / "alone" / "root", subpackage=False)
    assert alone != read_tree(case.package), f"{case}: the render changed nothing to compare"
    with_sub = _rendered(case, tmp_path / "with" / "root", subpackage=True)
    assert with_sub.pop("sub/Kptfile") == KPTFILE.format(name="sub").encode()
    assert with_sub.pop("sub/cm.yaml") == LOCAL_CM.encode()
    assert with_sub == alone


@pytest.mark.parametrize("function", sorted(BY_NAME))
def test_a_forged_package_path_is_an_error_result(function: str, tmp_path: Path) -> None:
    """One item naming a folder outside the package (here `/`): an error result, exit 1, for
    every function of the registry (its first case's config)."""
    import subprocess

    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: root\n"
        "    annotations:\n      internal.config.kubernetes.io/path: 'Kptfile'\n"
        f"      internal.config.kubernetes.io/package-path: '{tmp_path}'\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: forged\n"
        "    annotations:\n      internal.config.kubernetes.io/path: 'x.yaml'\n"
        "      internal.config.kubernetes.io/package-path: '/'\n"
    )
    case = _first_case(function)
    if case.config is not None:
        config = ResourceList.parse(case.config.read_text()).items[0].to_yaml()
        text += "functionConfig:\n" + "".join(f"  {line}\n" for line in config.splitlines())
    done = subprocess.run(
        [str(BIN / f"krmfn-{function}")],
        input=text,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PATH": f"{BIN}:/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 1, done.stdout
    results = yaml.safe_load(done.stdout)["results"]
    errors = [r["message"] for r in results if r["severity"] == "error"]
    assert any("outside the package being rendered" in m for m in errors), errors
