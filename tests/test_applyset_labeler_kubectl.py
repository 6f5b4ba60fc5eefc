"""kubectl mode checked with the real kubectl (issue 38.3).

Every command applyset-labeler prints in kubectl mode runs, as printed plus ``--dry-run=client
--validate=false``, with the real kubectl on the package as the golden case leaves it, against
a tiny API server double on loopback (tests/kubectl_double.py: discovery, 404s, empty lists). The
behaviours follow kubernetes/kubectl @dee3483a6a64c07fdf746caf80af446dee99ac:
pkg/cmd/apply/apply.go (the parent's namespace from -n only; EnforceNamespace) and
pkg/cmd/apply/applyset.go (ParseApplySetParentRef through the RESTMapper, fetchParent, the
applyset.kubernetes.io keys, AllPrunableNamespaces).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from .kubectl_double import BUILTIN, ApiDouble, serve

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "testdata" / "applyset-labeler"
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")
PREFIX = "apply with kubectl: "


def _output(case: Path) -> dict[str, Any]:
    data = yaml.safe_load((case / "expected" / "output.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _messages(out: dict[str, Any]) -> list[str]:
    return [str(r["message"]) for r in out.get("results") or []]


def _printed(case: Path) -> tuple[str, str, dict[str, Any]]:
    """(the printed command, the ApplySet id, the output) of a kubectl-mode golden case."""
    out = _output(case)
    [command] = [m for m in _messages(out) if m.startswith(PREFIX)]
    [summary] = [m for m in _messages(out) if "(kubectl mode)" in m]
    return command[len(PREFIX) :].split(";")[0], summary.split()[1], out


KUBECTL_CASES = sorted(
    case
    for case in CASES.iterdir()
    if (case / "expected" / "output.yaml").is_file()
    and PREFIX in (case / "expected" / "output.yaml").read_text(encoding="utf-8")
)


def _custom_parent(command: str, set_id: str, out: dict[str, Any]) -> ApiDouble:
    """A double that serves a custom parent kind, its CRD (labelled a parent type) and the live
    parent (kubectl requires a custom parent to exist: fetchParent)."""
    ref = re.search(r"--applyset=(\S+)/(\S+)", command)
    assert ref is not None
    resource, name = ref.group(1), ref.group(2)
    singular, _, group = resource.partition(".")
    [summary] = [m for m in _messages(out) if "(kubectl mode)" in m]
    kind_gk = summary.split("parent ")[1].split("/")[0]
    kind = kind_gk.split(".")[0]
    plural = singular + "s" if not singular.endswith("s") else singular
    gks = summary.rsplit("group-kinds ", 1)[1]
    parent: dict[str, Any] = {
        "apiVersion": f"{group}/v1",
        "kind": kind,
        "metadata": {
            "name": name,
            "labels": {"applyset.kubernetes.io/id": set_id},
            "annotations": {
                "applyset.kubernetes.io/tooling": "kubectl/v1.32",
                "applyset.kubernetes.io/contains-group-kinds": gks,
            },
        },
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"{plural}.{group}",
            "labels": {"applyset.kubernetes.io/is-parent-type": "true"},
        },
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": singular},
            "scope": "Cluster",
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }
    return ApiDouble(
        extra=[(group, "v1", plural, singular, kind, False)],
        objects={f"/apis/{group}/v1/{plural}/{name}": parent},
        lists={"/apis/apiextensions.k8s.io/v1/customresourcedefinitions": [crd]},
    )


def _kubectl(
    command: str, package: Path, double: ApiDouble, tmp: Path
) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    assert words[0] == "KUBECTL_APPLYSET=true" and words[1] == "kubectl", command
    with serve(double, tmp) as env:
        return subprocess.run(
            [str(KUBECTL), *words[2:], "--dry-run=client", "--validate=false"],
            cwd=package,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


@needs_kubectl
@pytest.mark.parametrize("case", KUBECTL_CASES, ids=lambda p: p.name)
def test_every_printed_command_runs_with_kubectl(case: Path, tmp_path: Path) -> None:
    command, set_id, out = _printed(case)
    package = tmp_path / "package"
    shutil.copytree(case / "expected" / "package", package)
    core = re.search(r"--applyset=(secrets|configmaps)/", command) is not None
    double = ApiDouble() if core else _custom_parent(command, set_id, out)
    done = _kubectl(command, package, double, tmp_path)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    files = re.findall(r"-f (\S+)", command)
    members = [
        o
        for o in out["items"]
        if o["metadata"].get("annotations", {}).get("config.kubernetes.io/path") in files
    ]
    assert members
    for obj in members:  # every object of the printed files is applied, and only those
        group = obj["apiVersion"].rpartition("/")[0]
        name = f"{obj['kind'].lower()}{'.' + group if group else ''}/{obj['metadata']['name']}"
        assert name in done.stdout.lower(), (name, done.stdout)
    assert done.stdout.count("(dry run)") == len(members), done.stdout


def test_there_are_kubectl_cases() -> None:
    names = {case.name for case in KUBECTL_CASES}
    assert {"kubectl-secret-parent", "kubectl-cluster-parent-namespaceless"} <= names


@needs_kubectl
def test_kubectl_refuses_a_member_outside_the_parents_namespace(tmp_path: Path) -> None:
    """What check-kubectl-member-other-namespace prevents: the command printed before issue 38
    for that package fails in kubectl, after applying the members before it."""
    case = CASES / "check-kubectl-member-other-namespace"
    package = tmp_path / "package"
    # the kubectl-secret-parent package as the function leaves it, and the member in monitoring
    shutil.copytree(CASES / "kubectl-secret-parent" / "expected" / "package", package)
    shutil.copy(case / "package" / "other-ns.yaml", package)
    old = "KUBECTL_APPLYSET=true kubectl apply -n prod --prune --applyset=secrets/web -f app.yaml -f other-ns.yaml"
    done = _kubectl(old, package, ApiDouble(), tmp_path)
    assert done.returncode != 0
    assert "does not match the namespace" in done.stderr
    assert "created (dry run)" in done.stdout  # part of the set went first
    [error] = [r for r in _output(case)["results"] if r["severity"] == "error"]
    assert error["field"] == {"path": "metadata.namespace"}
    assert "kubectl apply -n prod refuses it" in error["message"]


@needs_kubectl
@pytest.mark.parametrize(
    ("resource", "works"),
    [
        ("applysets.company.com", True),
        ("applyset.company.com", True),
        ("applysetss.company.com", False),
    ],
)
def test_kubectl_maps_the_singular_not_a_guessed_plural(
    resource: str, works: bool, tmp_path: Path
) -> None:
    """The lower-case singular is a resource name kubectl's RESTMapper maps (as the plural is); a
    guessed plural that is not the real one (policys for Policy) is not."""
    case = CASES / "kubectl-cluster-parent-namespaceless"
    command, set_id, out = _printed(case)
    package = tmp_path / "package"
    shutil.copytree(case / "expected" / "package", package)
    double = _custom_parent(command, set_id, out)
    changed = re.sub(r"--applyset=\S+/", f"--applyset={resource}/", command)
    done = _kubectl(changed, package, double, tmp_path)
    assert (done.returncode == 0) is works, done.stderr


@needs_kubectl
def test_kubectl_reads_only_the_kubernetes_io_prefix(tmp_path: Path) -> None:
    """check-kubectl-key-prefix refuses keyPrefix applyset.k8s.io in kubectl mode: kubectl takes
    a parent labelled applyset.k8s.io/id as one without the id label."""
    case = CASES / "kubectl-cluster-parent-namespaceless"
    command, set_id, out = _printed(case)
    package = tmp_path / "package"
    shutil.copytree(case / "expected" / "package", package)
    double = _custom_parent(command, set_id, out)
    [parent] = double.objects.values()
    parent["metadata"]["labels"] = {"applyset.k8s.io/id": set_id}
    done = _kubectl(command, package, double, tmp_path)
    assert done.returncode != 0
    assert "applyset.kubernetes.io/id" in done.stderr
    refused = (CASES / "check-kubectl-key-prefix" / "expected" / "output.yaml").read_text()
    assert "kubectl mode needs applyset.kubernetes.io" in refused


def _collection(obj: dict[str, Any]) -> str:
    """The list path of a live object's kind in its namespace (the double's built-in kinds)."""
    group, _, version = obj["apiVersion"].rpartition("/")
    [(resource, namespaced)] = [
        (r, n) for g, v, r, _s, k, n in BUILTIN if (g, v, k) == (group, version, obj["kind"])
    ]
    base = f"/apis/{group}/{version}" if group else f"/api/{version}"
    namespace = obj["metadata"].get("namespace", "")
    return f"{base}/namespaces/{namespace}/{resource}" if namespaced else f"{base}/{resource}"


@needs_kubectl
def test_the_prune_preview_prunes_what_kubectl_prunes(tmp_path: Path) -> None:
    """kubectl-prune-preview-scope: the double serves the snapshot (the live parent by its path,
    the members in their lists); what the real kubectl prunes (client dry run) is exactly what
    the preview says "would be pruned", and not the members outside the live parent's scope."""
    case = CASES / "kubectl-prune-preview-scope"
    command, set_id, out = _printed(case)
    config = yaml.safe_load((case / "config.yaml").read_text(encoding="utf-8"))
    objects: dict[str, dict[str, Any]] = {}
    lists: dict[str, list[dict[str, Any]]] = {}
    for index, live in enumerate(config["spec"]["liveObjects"]):
        live["metadata"]["uid"] = f"uid-{index}"
        if live["metadata"].get("labels", {}).get("applyset.kubernetes.io/id") == set_id:
            objects[f"{_collection(live)}/{live['metadata']['name']}"] = live
        elif live["kind"] != "Deployment":  # the member in the package: applied, not pruned
            lists.setdefault(_collection(live), []).append(live)
    package = tmp_path / "package"
    shutil.copytree(case / "expected" / "package", package)
    done = _kubectl(command, package, ApiDouble(objects=objects, lists=lists), tmp_path)
    assert done.returncode == 0, done.stderr
    pruned_by_kubectl = sorted(re.findall(r"^(\S+) pruned \(dry run\)$", done.stdout, re.M))
    preview = [
        f"{r['resourceRef']['kind'].lower()}/{r['resourceRef']['name']}"
        for r in out["results"]
        if str(r["message"]).startswith("would be pruned")
    ]
    assert pruned_by_kubectl == sorted(preview) == ["configmap/web-old"]
    not_pruned = [r for r in out["results"] if str(r["message"]).startswith("not pruned")]
    assert {r["resourceRef"]["name"] for r in not_pruned} == {"web-staging", "web"}
