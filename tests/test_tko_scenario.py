"""TKO's own test scenario (scripts/test-scenario of nephio-experimental/tko@5973960), in the
fixtures of testdata/tko-scenario: the hello-world, O-RAN CU and O-RAN DU deployments registered
with ``krmfn deployment create``, then ``krmfn prepare-all`` prepares what TKO prepares (children
per site, merges, renames, annotation moves, provisioned sites, approval), reports the TOSCA
topology, and a second run changes nothing."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from krmfn.cli import main as krmfn
from krmlib import KubeObject
from krmlib.packages import read_files

SCENARIO = Path(__file__).parent.parent / "testdata" / "tko-scenario"
SMF_SITES = [
    "india-bangalore-south-100",
    "india-bangalore-south-101",
    "lab-1",
    "provisioned-oran-cu-edge2",
    "provisioned-oran-cu-edge3",
]


def snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def objects(folder: Path) -> list[KubeObject]:
    return [o for o in read_files([str(folder)]) if "/" not in (o.path or "")]


def find(folder: Path, kind: str, name: str, group: str | None = None) -> KubeObject:
    found = [
        o
        for o in objects(folder)
        if o.kind == kind and o.name == name and (group is None or o.group == group)
    ]
    assert len(found) == 1, (folder, kind, name, [o.kind for o in objects(folder)])
    return found[0]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, int]:
    """The scenario after `deployment create` x3 and one `prepare-all` (its output, code)."""
    root = tmp_path_factory.mktemp("tko") / "scenario"
    shutil.copytree(SCENARIO, root)
    (root / "deployments").mkdir()
    catalog = str(root / "catalog")
    created = [
        ["demo/hello-world:v1.0.0", "--site", "lab/1", "hello-world"],
        ["topology/oran/cu:v1.0.0", "oran-cu"],
        ["topology/oran/du:v1.0.0", "oran-du"],
    ]
    for args in created:
        out = str(root / "deployments" / args[-1])
        assert krmfn(["deployment", "create", *args[:-1], "--catalog", catalog, out]) == 0
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = krmfn(["prepare-all", str(root), "--catalog", catalog])
    return root, stdout.getvalue(), stderr.getvalue(), code


def test_prepare_all_prepares_what_tko_prepares(scenario: tuple[Path, str, str, int]) -> None:
    _root, out, err, code = scenario
    assert code == 1, "the TOSCA deployment stays unprepared"
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    cu = "deployments/oran-cu"
    expected = {
        "deployments/hello-world": ("demo/hello-world:v1.0.0", "lab/1", "yes"),
        cu: ("topology/oran/cu:v1.0.0", "-", "yes"),
        "deployments/oran-du": ("topology/oran/du:v1.0.0", "-", "no"),
        f"{cu}/upf-lab-1": ("nf/free5gc/upf:v1.0.0", "lab/1", "yes"),
    }
    for site in SMF_SITES:
        site_id = site.replace("india-bangalore-", "india/bangalore/").replace("lab-1", "lab/1")
        site_id = site_id.replace("provisioned-", "provisioned/")
        expected[f"{cu}/smf-{site}"] = ("nf/free5gc/smf:v1.0.0", site_id, "yes")
    assert {k: tuple(v[1:4]) for k, v in rows.items()} == expected
    approved = {k for k, v in rows.items() if v[4] == "yes"}  # the APPROVED column
    assert approved == {"deployments/hello-world", cu, f"{cu}/upf-lab-1"}  # SMFs are Manual
    assert "TOSCA topologies are not supported" in err


def test_children_are_merged_renamed_and_prepared(scenario: tuple[Path, str, str, int]) -> None:
    root = scenario[0]
    for site in SMF_SITES:
        child = root / "deployments" / "oran-cu" / f"smf-{site}"
        # smf1 renamed smf, merged into the template's Namespace smf
        namespace = find(child, "Namespace", "smf", "workload.plugin.nephio.org")
        assert namespace.get("spec.namespace") == "smf"
        assert namespace.annotations.get("nephio.org/prepare") == "Here"  # Postpone moved on
        assert namespace.annotations.get("nephio.org/prepared") == "true"  # by the plugin here
        smf = find(child, "SMF", "free5gc-smf")
        assert smf.annotations.get("nephio.org/prepare") == "Never"  # Here moved on
        assert smf.get("status.sessionCapacity") == 3000  # the TKO-protocol plugin, in the parent
        assert smf.get("spec.blahBlah") == 3
        workload = [o for o in objects(child) if o.is_kind("v1", "Namespace")]
        assert [o.name for o in workload] == ["smf"]  # named by the Namespace plugin
        deployment = find(child, "Deployment", "deployment")
        assert deployment.annotations.get("nephio.org/prepared") == "true"
        assert "nephio.org/approved" not in deployment.annotations  # Manual in the template
        assert deployment.get("spec.parentDeploymentId") == "oran-cu"
    upf = find(root / "deployments" / "oran-cu" / "upf-lab-1", "Deployment", "deployment")
    assert upf.annotations.get("nephio.org/approved") == "true"
    hello = find(root / "deployments" / "hello-world", "Deployment", "deployment")
    assert hello.annotations.get("nephio.org/approved") == "true"
    kptfile = find(root / "deployments" / "hello-world", "Kptfile", "hello-world")
    assert "catalog.nephio.org/id" not in kptfile.annotations


def test_provisioned_sites_are_registered(scenario: tuple[Path, str, str, int]) -> None:
    sites = scenario[0] / "catalog" / "sites" / "provisioned"
    assert sorted(p.name for p in sites.iterdir()) == ["oran-cu-edge2", "oran-cu-edge3"]
    edge2 = find(sites / "oran-cu-edge2", "Site", "edge2")
    assert edge2.annotations.get("nephio.org/metadata") == "Here"  # Postpone moved on
    assert find(sites / "oran-cu-edge2", "Cluster", "edge2").get("name") == "edge2"
    edge3 = find(sites / "oran-cu-edge3", "Kptfile", "oran-cu-edge3")
    assert edge3.annotations.get("catalog.nephio.org/template") == "site/gdce:v1.0.0"


def test_a_second_run_changes_nothing(scenario: tuple[Path, str, str, int]) -> None:
    root = scenario[0]
    before = snapshot(root)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = krmfn(["prepare-all", str(root), "--catalog", str(root / "catalog")])
    assert code == 1
    assert snapshot(root) == before


def test_deployments_list_filters(
    scenario: tuple[Path, str, str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(scenario[0])
    capsys.readouterr()

    def listed(*args: str) -> list[str]:
        assert krmfn(["deployments", "list", root, "-o", "json", *args]) == 0
        return [row["id"] for row in json.loads(capsys.readouterr().out)]

    assert listed("--unprepared") == ["deployments/oran-du"]
    smf = listed("--template", "nf/free5gc/smf:*")
    assert len(smf) == 5
    assert listed("--metadata", "NetworkFunction.type=SMF") == smf
    assert listed("--prepared", "--unapproved") == smf
    assert listed("--site", "provisioned/*") == smf[3:]
    assert listed("--site", "india/**") == smf[:2]
    assert listed("--parent", "oran-cu", "--approved") == ["deployments/oran-cu/upf-lab-1"]
    assert krmfn(["deployments", "list", root]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["ID", "TEMPLATE", "SITE", "PARENT", "PREPARED", "APPROVED"]


def test_deployment_approve(
    scenario: tuple[Path, str, str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    root = scenario[0]
    child = root / "deployments" / "oran-cu" / "smf-lab-1"
    work = root.parent / "approve-copy"
    shutil.copytree(child, work)
    assert krmfn(["deployment", "approve", str(work)]) == 0
    assert find(work, "Deployment", "deployment").annotations["nephio.org/approved"] == "true"
    text = (work / "deployment.yaml").read_text()
    assert "# a person approves every SMF" in text  # the file keeps its comment
    assert krmfn(["deployment", "approve", str(work)]) == 0
    assert "already approved" in capsys.readouterr().out
    assert krmfn(["deployment", "approve", str(root / "deployments" / "oran-du")]) == 1
    assert "not prepared yet" in capsys.readouterr().err


def test_check_before_preparing_changes_nothing_not_even_the_catalog(
    tmp_path: Path,
) -> None:
    """`prepare-all --check` on the unprepared scenario: exit 1, and no file changes anywhere
    under the root, the catalog included (a provisioned site is registered in memory only)."""
    root = tmp_path / "scenario"
    shutil.copytree(SCENARIO, root)
    (root / "deployments").mkdir()
    catalog = str(root / "catalog")
    out = str(root / "deployments" / "oran-cu")
    assert (
        krmfn(["deployment", "create", "topology/oran/cu:v1.0.0", "--catalog", catalog, out]) == 0
    )
    before = snapshot(root)
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = krmfn(["prepare-all", "--check", str(root), "--catalog", catalog])
    assert code == 1, stderr.getvalue()
    assert "deployments/oran-cu" in stderr.getvalue()
    assert snapshot(root) == before
    assert not (root / "catalog" / "sites" / "provisioned").exists()
