"""``krmfn deployment create``: a template copy, merges, a Deployment resource; kpt reads it."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from krmfn.merger import create_deployment
from krmfn.merger.commands import main
from krmlib import KrmError
from krmlib.testing import run_kpt

KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: smf-template
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: the SMF template
"""

RESOURCES = """\
# the NF's namespace
apiVersion: workload.plugin.nephio.org/v1alpha1
kind: Namespace
metadata:
  name: smf
spec:
  labels:
    team: core # who runs it
---
apiVersion: free5gc.plugin.nephio.org/v1alpha1
kind: SMF
metadata:
  name: free5gc-smf
spec:
  dnn: internet
"""

UNTOUCHED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: untouched
data:
  on: "yes"   # odd spacing that a rewrite would lose
"""

MERGE_A = """\
apiVersion: workload.plugin.nephio.org/v1alpha1
kind: Namespace
metadata:
  name: smf1
  annotations:
    nephio.org/rename: smf
    nephio.org/prepare: Postpone
spec:
  labels:
    site: edge1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
data:
  a: "1"
"""

MERGE_B = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
data:
  a: "2"
"""


@pytest.fixture
def template(tmp_path: Path) -> Path:
    root = tmp_path / "catalog" / "smf"
    root.mkdir(parents=True)
    (root / "Kptfile").write_text(KPTFILE)
    (root / "resources.yaml").write_text(RESOURCES)
    (root / "untouched.yaml").write_text(UNTOUCHED)
    (root / "README.md").write_text("not yaml\n")
    sub = root / "sub"
    sub.mkdir()
    (sub / "Kptfile").write_text(KPTFILE.replace("smf-template", "sub"))
    (sub / "cm.yaml").write_text(UNTOUCHED.replace("untouched", "extra"))
    (tmp_path / "a.yaml").write_text(MERGE_A)
    (tmp_path / "b.yaml").write_text(MERGE_B)
    return root


def test_create_copies_merges_and_adds_the_deployment(template: Path, tmp_path: Path) -> None:
    out = tmp_path / "deployments" / "smf-edge1"
    create_deployment(template, [tmp_path / "a.yaml", tmp_path / "b.yaml"], out, site_id="lab/1")
    assert (out / "Kptfile").read_text() == KPTFILE.replace("smf-template", "smf-edge1")
    assert (out / "untouched.yaml").read_bytes() == (template / "untouched.yaml").read_bytes()
    assert (out / "README.md").exists()
    assert (out / "sub" / "cm.yaml").read_text() == (template / "sub" / "cm.yaml").read_text()
    resources = (out / "resources.yaml").read_text()
    assert resources == RESOURCES.replace(
        "    team: core # who runs it\n",
        "    team: core # who runs it\n    site: edge1\n",
    ).replace("  name: smf\n", "  name: smf\n  annotations:\n    nephio.org/prepare: Postpone\n", 1)
    assert (out / "configmap_extra.yaml").read_text() == (
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  a: "2"\n'
    )
    assert (out / "deployment.yaml").read_text() == (
        "apiVersion: deployment.nephio.org/v1alpha1\nkind: Deployment\nmetadata:\n"
        "  name: deployment\nspec:\n  templateId: smf\n  siteId: lab/1\n"
    )


def test_the_template_deployment_gives_the_id_and_is_prepared_again(
    template: Path, tmp_path: Path
) -> None:
    (template / "deployment.yaml").write_text(
        "apiVersion: deployment.nephio.org/v1alpha1\nkind: Deployment\nmetadata:\n"
        '  name: deployment\n  annotations:\n    nephio.org/prepared: "true"\n'
        "spec:\n  templateId: nf/free5gc/smf:v1.0.0\n"
    )
    out = tmp_path / "out"
    create_deployment(template, [], out)
    assert (out / "deployment.yaml").read_text() == (
        "apiVersion: deployment.nephio.org/v1alpha1\nkind: Deployment\nmetadata:\n"
        "  name: deployment\nspec:\n  templateId: nf/free5gc/smf:v1.0.0\n"
    )
    assert (out / "resources.yaml").read_bytes() == (template / "resources.yaml").read_bytes()


def test_a_template_without_kptfile_gets_one(tmp_path: Path) -> None:
    template = tmp_path / "plain"
    template.mkdir()
    (template / "cm.yaml").write_text(UNTOUCHED)
    out = tmp_path / "new"
    create_deployment(template, [], out)
    assert "name: new\n" in (out / "Kptfile").read_text()
    assert "templateId: plain\n" in (out / "deployment.yaml").read_text()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("out-not-empty", "exists and is not an empty folder"),
        ("missing-merge", "merge file"),
        ("bad-merge", "cycle among merge inputs"),
        ("missing-template", "is not a folder"),
    ],
)
def test_failures_create_nothing(template: Path, tmp_path: Path, setup: str, message: str) -> None:
    out = tmp_path / "out"
    merges = [tmp_path / "a.yaml"]
    if setup == "out-not-empty":
        out.mkdir()
        (out / "x").write_text("x")
    elif setup == "missing-merge":
        merges.append(tmp_path / "missing.yaml")
    elif setup == "bad-merge":
        (tmp_path / "c.yaml").write_text(
            # (not `y`: a name YAML 1.1 reads as a boolean is refused before the merge)
            MERGE_B.replace("name: extra", "name: cm-a\n  annotations: {nephio.org/rename: cm-b}")
            + "---\n"
            + MERGE_B.replace("name: extra", "name: cm-b\n  annotations: {nephio.org/rename: cm-a}")
        )
        merges.append(tmp_path / "c.yaml")
    else:
        template = tmp_path / "nowhere"
    with pytest.raises(KrmError, match=message):
        create_deployment(template, merges, out)
    assert not out.exists() or [p.name for p in out.iterdir()] == ["x"]


def test_cli_accepts_merge_files_before_out_dir(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli"
    code = main(
        [
            "deployment",
            "create",
            str(template),
            "--site",
            "lab/2",
            "--merge",
            str(tmp_path / "a.yaml"),
            str(tmp_path / "b.yaml"),
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert 'a: "2"' in (out / "configmap_extra.yaml").read_text()
    assert "siteId: lab/2" in (out / "deployment.yaml").read_text()


def test_cli_errors(template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "deployment",
                "create",
                str(template),
                str(tmp_path / "missing"),
                "--merge",
                str(tmp_path / "nope.yaml"),
            ]
        )
        == 1
    )
    assert "merge file" in capsys.readouterr().err
    assert main(["deployment", "delete"]) == 2
    with pytest.raises(SystemExit):
        main(["deployment", "create", str(template)])


def test_umbrella_dispatches_deployment(template: Path, tmp_path: Path) -> None:
    out = tmp_path / "via-krmfn"
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "krmfn"),
            "deployment",
            "create",
            str(template),
            "--merge",
            str(tmp_path / "a.yaml"),
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "deployment.yaml").exists()


@pytest.mark.kpt
def test_kpt_reads_the_created_package(template: Path, tmp_path: Path) -> None:
    out = tmp_path / "smf-edge1"
    create_deployment(template, [tmp_path / "a.yaml", tmp_path / "b.yaml"], out, site_id="lab/1")
    tree = run_kpt(["pkg", "tree", str(out)])
    assert tree.returncode == 0, tree.stderr
    for line in (
        'Package "smf-edge1"',
        "[deployment.yaml]  Deployment deployment",
        "[configmap_extra.yaml]  ConfigMap extra",
        "[resources.yaml]  Namespace smf",
        'Package "sub"',
    ):
        assert line in tree.stdout
    rendered = tmp_path / "rendered" / "smf-edge1"
    shutil.copytree(out, rendered)
    done = run_kpt(["fn", "render", str(rendered)])
    assert done.returncode == 0, done.stderr
    same = filecmp.dircmp(out, rendered)
    assert not (same.left_only or same.right_only)
    # The files we wrote are as kpt writes them (kpt reformats the template's odd spacing).
    assert same.diff_files == ["untouched.yaml"]
    for name in ("deployment.yaml", "configmap_extra.yaml", "resources.yaml", "Kptfile"):
        assert (out / name).read_bytes() == (rendered / name).read_bytes(), name


def test_a_merge_folder_is_read_in_name_order(template: Path, tmp_path: Path) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "1-base.yaml").write_text(MERGE_A)
    (folder / "2-overlay.yml").write_text(MERGE_B)
    out = tmp_path / "from-folder"
    create_deployment(template, [folder], out)
    assert 'a: "2"' in (out / "configmap_extra.yaml").read_text()
    assert "site: edge1" in (out / "resources.yaml").read_text()


# --- TKO's options (issue 15.5) -------------------------------------------------------------


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    template = root / "templates" / "smf"
    template.mkdir(parents=True)
    (template / "Kptfile").write_text(
        KPTFILE.replace(
            '    config.kubernetes.io/local-config: "true"\n',
            '    config.kubernetes.io/local-config: "true"\n'
            "    catalog.nephio.org/id: nf/smf:v1.0.0\n",
        )
    )
    (template / "resources.yaml").write_text(RESOURCES)
    site = root / "sites" / "lab"
    site.mkdir(parents=True)
    (site / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: lab\n"
        "  annotations: {catalog.nephio.org/id: lab/1}\n"
    )
    return root


def deployment_of(folder: Path) -> str:
    return (folder / "deployment.yaml").read_text()


def test_a_catalog_id_is_the_template_id_and_the_catalog_annotation_goes(
    catalog: Path, tmp_path: Path
) -> None:
    out = tmp_path / "d1"
    create_deployment("nf/smf:v1.0.0", [], out, site_id="lab/1", catalog=catalog)
    assert "templateId: nf/smf:v1.0.0" in deployment_of(out)
    assert "catalog.nephio.org/id" not in (out / "Kptfile").read_text()
    # a folder inside a catalog gives the same id, and the catalog to check the site in
    out2 = tmp_path / "d2"
    create_deployment(catalog / "templates" / "smf", [], out2, site_id="lab/1")
    assert "templateId: nf/smf:v1.0.0" in deployment_of(out2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"template": "nf/nope:v1"}, "unknown template nf/nope:v1"),
        ({"site_id": "lab/9"}, "unknown site lab/9"),
        ({"parent": "nowhere"}, "unknown parent deployment"),
        ({"parent": "templates/smf"}, "has no deployment.nephio.org Deployment"),
    ],
)
def test_unknown_template_site_or_parent_is_an_error(
    catalog: Path, tmp_path: Path, kwargs: dict[str, str], message: str
) -> None:
    template = kwargs.pop("template", "nf/smf:v1.0.0")
    parent = kwargs.pop("parent", None)
    out = tmp_path / "out"
    with pytest.raises(KrmError, match=message):
        create_deployment(
            template,
            [],
            out,
            catalog=catalog,
            parent=catalog / parent if parent else None,
            site_id=kwargs.get("site_id"),
        )
    assert not out.exists()


def test_parent_metadata_prepared_approved_and_stdin(
    catalog: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = tmp_path / "topology"
    create_deployment("nf/smf:v1.0.0", [], parent, catalog=catalog)
    out = tmp_path / "child"
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(MERGE_B))
    code = main(
        [
            "deployment",
            "create",
            "nf/smf:v1.0.0",
            "--catalog",
            str(catalog),
            "--parent",
            str(parent),
            "-m",
            "tier=gold",
            "--metadata",
            "zone=a",
            "--prepared",
            "--approved",
            "--stdin",
            str(out),
        ]
    )
    assert code == 0
    text = deployment_of(out)
    assert "parentDeploymentId: topology" in text
    assert "metadata:\n    tier: gold\n    zone: a" in text
    assert 'nephio.org/prepared: "true"' in text and 'nephio.org/approved: "true"' in text
    assert (out / "configmap_extra.yaml").is_file()  # merged from stdin


def test_a_half_made_copy_is_read_by_the_copying_walker(tmp_path: Path) -> None:
    """``deployment create`` takes a folder for an older version's half-made copy only when it
    holds byte-identical copies of template files, read by the one copying walker: a symbolic
    link (even to the template's own file) is no copy of ours (issue 41: it was read through)."""
    from krmfn.merger.deployment import _partial_copy

    template = tmp_path / "template"
    (template / "sub").mkdir(parents=True)
    (template / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\n")
    (template / "sub" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "sub" / "cm.yaml").write_bytes((template / "sub" / "cm.yaml").read_bytes())
    assert _partial_copy(out, template)
    (out / "Kptfile").symlink_to(template / "Kptfile")
    assert not _partial_copy(out, template)
    (out / "Kptfile").unlink()
    (out / "sub" / "cm.yaml").write_text("apiVersion: v1\nkind: Secret\n")  # someone's work
    assert not _partial_copy(out, template)
