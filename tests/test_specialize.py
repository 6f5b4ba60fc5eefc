"""`krmfn specialize` on examples/free5gc-two-clusters with real kpt: every readiness gate True
from a clean tree, addresses consistent across packages, a rerun changes nothing, --check passes
and names the package after a hand edit, a kill converges on the rerun."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.durability_support import env, krmfn, snapshot

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "free5gc-two-clusters"
PACKAGES = [
    "edge01/free5gc-upf",
    "edge02/free5gc-upf",
    "regional/free5gc-amf",
    "regional/free5gc-smf",
]

pytestmark = pytest.mark.kpt


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _tree(root: Path, kind: str) -> dict[str, list[dict[str, Any]]]:
    """Every object of ``kind`` under ``root``, by package."""
    out: dict[str, list[dict[str, Any]]] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.yaml")):
            out.setdefault(package, []).extend(d for d in _docs(path) if d.get("kind") == kind)
    return out


@pytest.fixture(scope="module")
def specialized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("specialize") / "tree"
    shutil.copytree(EXAMPLE, root)
    done = krmfn("specialize", root, "-o", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    return root, json.loads(done.stdout)


def test_every_readiness_gate_is_true_from_a_clean_tree(
    specialized: tuple[Path, dict[str, Any]],
) -> None:
    root, report = specialized
    assert report["converged"] and report["ready"] == report["total"] == 4
    assert [p["package"] for p in report["packages"]] == PACKAGES
    for package in PACKAGES:
        kptfile = _docs(root / package / "Kptfile")[0]
        gates = [g["conditionType"] for g in kptfile["info"]["readinessGates"]]
        assert gates == ["nephio.org.Specializer.specialize"]
        conditions = kptfile["status"]["conditions"]
        assert all(c["status"] == "True" for c in conditions), (package, conditions)


def test_allocations_are_consistent_across_packages(
    specialized: tuple[Path, dict[str, Any]],
) -> None:
    root, _ = specialized
    ledger = _docs(root / "network" / "ledger.yaml")[0]
    by_owner = {e["owner"]: e for e in ledger["ip"]}
    claims = _tree(root, "IPClaim")
    seen: dict[tuple[str, str], str] = {}
    for package, objects in claims.items():
        for claim in objects:
            owner = f"{package}/{claim['metadata']['name']}"
            assert claim["status"]["prefix"] == by_owner[owner]["prefix"]
            key = (claim["spec"]["networkInstance"]["name"], claim["status"]["prefix"])
            assert key not in seen, f"{owner} and {seen[key]} share {key}"
            seen[key] = owner
    assert len(seen) == len(by_owner)
    # every NFDeployment interface and NAD carries its claim's address
    nfds = {p: objs[0] for p, objs in _tree(root, "NFDeployment").items()}
    nads = _tree(root, "NetworkAttachmentDefinition")
    for package, nfd in nfds.items():
        for itf in nfd["spec"]["interfaces"]:
            claim_name = f"{nfd['metadata']['name']}-{itf['name']}-ipv4"
            assert itf["ipv4"]["address"] == by_owner[f"{package}/{claim_name}"]["prefix"]
            nad = next(
                n for n in nads[package] if n["metadata"]["name"].endswith(f"-{itf['name']}")
            )
            assert itf["ipv4"]["address"] in nad["spec"]["config"]
    # the SMF's and AMF's UPF addresses are the UPFs' own
    for package in ("regional/free5gc-smf", "regional/free5gc-amf"):
        configs = {c["metadata"]["name"]: c for c in _tree(root, "Config")[package]}
        nf = package.split("-")[-1]
        for edge in ("edge01", "edge02"):
            injected = configs[f"{nf}-regional-upf-{edge}"]["spec"]["config"]
            assert injected["spec"] == nfds[f"{edge}/free5gc-upf"]["spec"]
        refs = [r["name"] for r in nfds[package]["spec"]["parametersRefs"]]
        assert refs == [f"{nf}-regional-upf-edge01", f"{nf}-regional-upf-edge02"]
    # one VLAN per network and cluster, shared by the SMF and the AMF on regional
    vlans = {(v["index"], v["claim"]): v["vlanID"] for v in ledger["vlan"]}
    assert len(set(vlans.values())) <= len(vlans)
    for package, objects in _tree(root, "VLANClaim").items():
        for claim in objects:
            sent = claim["metadata"]["annotations"]["specializer.nephio.org/vlanClaimName"]
            index = claim["spec"]["vlanIndex"]["name"]
            assert claim["status"]["vlanID"] == vlans[(index, sent)], package


def test_a_rerun_changes_nothing_and_check_passes(
    specialized: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    root = shutil.copytree(specialized[0], tmp_path / "tree")
    before = snapshot(root)
    done = krmfn("specialize", root, "-q")
    assert done.returncode == 0, done.stderr
    assert snapshot(root) == before
    check = krmfn("specialize", "--check", root)
    assert check.returncode == 0, check.stderr
    assert snapshot(root) == before


def test_check_names_the_package_after_a_hand_edit(
    specialized: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    root = shutil.copytree(specialized[0], tmp_path / "tree")
    claim = root / "edge02/free5gc-upf/ipclaim_upf-edge02-n3-ipv4.yaml"
    claim.write_text(claim.read_text().replace("172.3.1.2/24", "172.3.1.9/24"))
    kptfile = root / "regional/free5gc-amf/Kptfile"
    text = kptfile.read_text()
    edited = text.replace('status: "True"\n    reason: Ready', 'status: "False"\n    reason: Ready')
    assert edited != text
    kptfile.write_text(edited)
    before = snapshot(root)
    check = krmfn("specialize", "--check", root, "-o", "json")
    assert check.returncode == 1
    assert snapshot(root) == before  # --check changes nothing
    assert (
        "edge02/free5gc-upf (" in check.stderr and "ipclaim_upf-edge02-n3-ipv4.yaml" in check.stderr
    )
    assert "regional/free5gc-amf (Kptfile" in check.stderr
    report = json.loads(check.stdout)
    changed = {p["package"]: p["changed"] for p in report["packages"]}
    assert changed["edge01/free5gc-upf"] == [] and changed["regional/free5gc-smf"] == []
    # the run puts both back: the ledger wins over a hand-edited status
    assert krmfn("specialize", root, "-q").returncode == 0
    assert snapshot(root) == snapshot(specialized[0])


def test_a_ledger_giving_one_address_twice_is_an_error_naming_both(
    specialized: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    root = shutil.copytree(specialized[0], tmp_path / "tree")
    ledger = root / "network/ledger.yaml"
    ledger.write_text(ledger.read_text().replace("172.3.1.2/24", "172.3.0.2/24"))
    done = krmfn("specialize", "--check", root)
    assert done.returncode == 1
    assert "edge02/free5gc-upf/upf-edge02-n3-ipv4 overlaps what " in done.stderr
    assert "edge01/free5gc-upf/upf-edge01-n3-ipv4 holds" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_kill_at_any_point_converges_on_the_rerun(
    specialized: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    root = shutil.copytree(EXAMPLE, tmp_path / "tree")
    started = subprocess.Popen(
        [str(Path(env()["PATH"].split(os.pathsep)[0]) / "krmfn"), "specialize", str(root), "-q"],
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(12)  # mid-run: after the first renders, during the allocation or the next pass
    os.killpg(started.pid, signal.SIGKILL)
    started.wait()
    done = krmfn("specialize", root, "-q")
    assert done.returncode == 0, done.stderr
    assert snapshot(root) == snapshot(specialized[0])


def test_usage_and_an_empty_tree(tmp_path: Path) -> None:
    done = krmfn("specialize", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: krmfn specialize ROOT")
    assert krmfn("specialize").returncode == 2
    assert krmfn("specialize", tmp_path, "--max-passes", "0").returncode == 2
    outside = krmfn("specialize", tmp_path, "--ledger", "/tmp/elsewhere.yaml")
    assert outside.returncode == 2 and "must lie inside ROOT" in outside.stderr
    missing = krmfn("specialize", tmp_path / "nowhere")
    assert missing.returncode == 1 and "not a folder" in missing.stderr
    empty = krmfn("specialize", tmp_path, "-q")
    assert empty.returncode == 0 and "no package under" in empty.stderr
    assert krmfn("specialize", "--check", tmp_path).returncode == 1
