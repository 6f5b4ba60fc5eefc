"""Rules of krmfn-applyset-labeler that the golden cases do not show well."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from krmfn.applyset_labeler import Config, applyset_id, process
from krmfn.applyset_labeler.prune import first_difference
from krmfn.applyset_labeler.scope import Scopes
from krmlib import KubeObject, ResourceList
from krmlib.testing import run_resource_list

ID_RE = re.compile(r"^applyset-[A-Za-z0-9_-]{43}-v1$")


def _rl(*docs: str, config: str = "") -> str:
    items = "".join("- " + doc.strip().replace("\n", "\n  ") + "\n" for doc in docs)
    text = f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}"
    if config:
        text += "functionConfig:\n  " + config.strip().replace("\n", "\n  ") + "\n"
    return text


def _run(text: str) -> ResourceList:
    return run_resource_list(process, Config, text)


CONFIG = """
apiVersion: krmfn.dev/v1alpha1
kind: ApplySet
metadata: {name: s}
spec:
  parent: {kind: ConfigMap, name: s, namespace: prod}
"""
DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
"""


def test_id_matches_the_spec_example() -> None:
    got = applyset_id("test", "default", "ConfigMap", "")
    assert got == "applyset-XYWvxXDUlCqMdjmmY1arThcdGiF0cvBW6sAfSMWYUdE-v1"
    assert len(got) == 55


@pytest.mark.parametrize(
    ("name", "namespace", "kind", "group"),
    [
        ("my-set", "", "ApplySet", "company.com"),
        ("x", "ns", "Secret", ""),
        ("a" * 253, "b", "K", ""),
    ],
)
def test_id_is_a_55_character_url_safe_label_value(
    name: str, namespace: str, kind: str, group: str
) -> None:
    got = applyset_id(name, namespace, kind, group)
    assert ID_RE.match(got), got
    assert len(got) == 55


def test_id_keeps_empty_namespace_and_group() -> None:
    # '..' and the trailing '.' are part of the hashed text: dropping them gives another ID
    assert applyset_id("s", "", "K", "g") != applyset_id("s", "K", "g", "")
    assert applyset_id("s", "ns", "Secret", "") != applyset_id("s", "ns", "Secret", "core")


def test_members_get_part_of_and_the_parent_its_annotations() -> None:
    rl = _run(_rl(DEPLOYMENT, config=CONFIG))
    assert not rl.results.has_errors, [str(r) for r in rl.results]
    set_id = applyset_id("s", "prod", "ConfigMap", "")
    web, parent = rl.items[0], rl.items[1]
    assert web.labels["applyset.kubernetes.io/part-of"] == set_id
    assert parent.kind == "ConfigMap"
    assert parent.labels["applyset.kubernetes.io/id"] == set_id
    assert parent.annotations["applyset.kubernetes.io/contains-group-kinds"] == "Deployment.apps"
    assert parent.path == "configmap_s.yaml"


def test_second_run_edits_nothing() -> None:
    once = _run(_rl(DEPLOYMENT, config=CONFIG)).to_yaml(with_results=False)
    again = _run(once)
    assert not again.results.has_errors
    assert [obj.changed for obj in again.items] == [False, False]


def test_configmap_form_and_cluster_scoped_kinds() -> None:
    config = Config.from_configmap(
        {
            "parent-api-version": "company.com/v1",
            "parent-kind": "ApplySet",
            "parent-name": "p",
            "cluster-scoped-kinds": "ApplySet.company.com, Widget",
            "tool-labels": "a=b,c=d",
            "mode": "kubectl",
            "owner-uid": "u1",
            "owner-controller": "true",
            "force": "true",
        }
    )
    assert config.parent.group_kind == "ApplySet.company.com"
    assert config.cluster_scoped_kinds == ["ApplySet.company.com", "Widget"]
    assert config.tool_labels == {"a": "b", "c": "d"}
    assert config.owner_references is not None and config.owner_references.controller is True
    assert config.force is True
    assert config.effective_tooling() == "kubectl/v1.32"


def test_kubectl_mode_refuses_another_tooling() -> None:
    text = _rl(
        DEPLOYMENT,
        config=CONFIG.replace("spec:\n", "spec:\n  mode: kubectl\n  tooling: krmfn/v1\n"),
    )
    rl = _run(text)
    errors = [r for r in rl.results if r.severity == "error"]
    assert len(errors) == 1
    assert errors[0].field_path == "spec.tooling"
    assert "kubectl/<version>" in errors[0].message


def test_scopes_crd_decides_then_config_then_table() -> None:
    crd = KubeObject.from_dict(
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "namespaces.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Namespace"}},
        }
    )
    scopes = Scopes.build([crd], ["Widget"])
    assert scopes.cluster_scoped("Namespace", "") is True
    assert scopes.cluster_scoped("Namespace", "example.com") is False
    assert scopes.cluster_scoped("Widget", "any.group") is True
    assert scopes.cluster_scoped("ClusterRole", "rbac.authorization.k8s.io") is True
    assert scopes.cluster_scoped("Role", "rbac.authorization.k8s.io") is False


def test_first_difference_ignores_server_fields_and_local_annotations() -> None:
    metadata: dict[str, Any] = {"name": "a", "annotations": {"config.kubernetes.io/path": "a.yaml"}}
    want: dict[str, Any] = {
        "metadata": metadata,
        "spec": {"ports": [{"port": 80}]},
    }
    live: dict[str, Any] = {
        "metadata": {"name": "a", "uid": "1"},
        "spec": {"ports": [{"port": 80, "protocol": "TCP"}]},
        "status": {},
    }
    assert first_difference(want, live) is None
    live["spec"] = {"ports": [{"port": 81}]}
    assert first_difference(want, live) == "spec.ports[0].port"
    metadata["labels"] = {"a.b/c": "x"}
    assert first_difference(want, live) == 'metadata.labels["a.b/c"]'


def test_live_objects_file_is_read_from_the_package_path(tmp_path: Path) -> None:
    set_id = applyset_id("s", "prod", "ConfigMap", "")
    (tmp_path / "live.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: old\n    namespace: prod\n"
        f"    labels:\n      applyset.kubernetes.io/part-of: {set_id}\n"
    )
    kptfile = f"""
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: s
  annotations:
    internal.config.kubernetes.io/package-path: '{tmp_path}'
"""
    config = CONFIG.replace("spec:\n", "spec:\n  liveObjects: live.yaml\n")
    rl = _run(_rl(kptfile, DEPLOYMENT, config=config))
    messages = [r.message for r in rl.results]
    assert any(m.startswith("would be pruned") for m in messages), messages
    pruned = next(r for r in rl.results if r.message.startswith("would be pruned"))
    assert pruned.resource_ref == {
        "apiVersion": "v1",
        "kind": "Service",
        "name": "old",
        "namespace": "prod",
    }


def test_missing_live_objects_file_is_an_error_on_the_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KRMFN_ALLOW_READ", str(tmp_path))  # outside the working folder
    config = CONFIG.replace("spec:\n", f"spec:\n  liveObjects: {tmp_path}/nope.yaml\n")
    rl = _run(_rl(DEPLOYMENT, config=config))
    errors = [r for r in rl.results if r.severity == "error"]
    assert [e.field_path for e in errors] == ["spec.liveObjects"]
    assert "cannot read the live objects file" in errors[0].message


def test_kubectl_command_names_namespace_applyset_and_files() -> None:
    deployment = DEPLOYMENT.replace(
        "namespace: prod",
        "namespace: prod\n  annotations:\n    config.kubernetes.io/path: app.yaml",
    )
    config = CONFIG.replace("spec:\n", "spec:\n  mode: kubectl\n")
    rl = _run(_rl(deployment, config=config))
    command = next(r.message for r in rl.results if "kubectl apply" in r.message)
    assert command == (
        "apply with kubectl: KUBECTL_APPLYSET=true kubectl apply -n prod --prune "
        "--applyset=configmaps/s -f app.yaml"
    )
    assert "applyset.kubernetes.io/part-of" not in rl.items[0].labels


def _messages(rl: ResourceList, severity: str) -> list[str]:
    return [r.message for r in rl.results if r.severity.value == severity]


def test_results_say_what_happened_created_then_nothing_to_do() -> None:
    once = _run(_rl(DEPLOYMENT, config=CONFIG))
    assert "created the parent ConfigMap/s in configmap_s.yaml" in _messages(once, "info")
    assert not any("nothing to do" in m for m in _messages(once, "info"))
    again = _run(_rl(*[o.to_yaml() for o in once.items], config=CONFIG))
    infos = _messages(again, "info")
    assert "nothing to do: the package is already this ApplySet" in infos
    assert not any(m.startswith("created") for m in infos)


def test_a_kubectl_mode_package_configured_managed_gets_a_warning() -> None:
    kubectl = CONFIG.replace("spec:\n", "spec:\n  mode: kubectl\n")
    made = _run(_rl(DEPLOYMENT, config=kubectl))  # the parent is local-config in kubectl mode
    assert not _messages(made, "warning")
    managed = _run(_rl(*[o.to_yaml() for o in made.items], config=CONFIG))
    warnings = _messages(managed, "warning")
    assert any(m.startswith("the package looks like kubectl mode") for m in warnings), warnings
    result = next(r for r in managed.results if r.message in warnings)
    assert result.field_path == "spec.mode"


def test_a_managed_mode_package_configured_kubectl_gets_a_warning() -> None:
    kubectl = CONFIG.replace("spec:\n", "spec:\n  mode: kubectl\n")
    made = _run(_rl(DEPLOYMENT, config=CONFIG))  # members carry part-of in managed mode
    again = _run(_rl(*[o.to_yaml() for o in made.items], config=kubectl))
    warnings = _messages(again, "warning")
    assert any(m.startswith("the package looks like managed mode: 1 member(s)") for m in warnings)


# --- labels not read when no applyset key is in the item's text (issue 37) ------------------------

OTHER = "applyset-OtherSetOtherSetOtherSetOtherSetOtherSet0-v1"


def test_every_prefix_starts_with_what_the_shortcut_looks_for() -> None:
    from krmfn.applyset_labeler.config import PREFIXES
    from krmfn.applyset_labeler.members import APPLYSET_KEYS

    assert all(prefix.startswith(APPLYSET_KEYS) for prefix in PREFIXES)


@pytest.mark.parametrize(
    "labels",
    [
        '{"applyset.kubernetes.io/part-of": OTHER}',  # flow map, quoted key
        "\n    'applyset.k8s.io/part-of': OTHER",  # single-quoted key
        '\n    "applyset.kubernetes.io/part\\u002dof": OTHER',  # an escape spells the key
        "\n    ? applyset.kubernetes.io/part-of\n    : OTHER",  # explicit key
    ],
)
@pytest.mark.parametrize("mode", ["managed", "kubectl"])
def test_another_sets_label_is_found_however_written(labels: str, mode: str) -> None:
    member = DEPLOYMENT + "  labels: " + labels.replace("OTHER", OTHER)
    out = _run(_rl(member, config=CONFIG + f"  mode: {mode}\n"))
    errors = [r for r in out.results if r.severity == "error"]
    assert len(errors) == 1 and f"already a member of ApplySet {OTHER}" in errors[0].message


def test_a_label_of_another_tool_is_no_applyset_label() -> None:
    """``app.kubernetes.io/part-of`` mentions part-of, not an applyset key: no error, and the
    set's label is added beside it (the labels are not read: they cannot hold the key)."""
    member = DEPLOYMENT + "  labels:\n    app.kubernetes.io/part-of: bench\n    x: y\n"
    out = _run(_rl(member, config=CONFIG))
    [obj] = [o for o in out.items if o.kind == "Deployment"]
    assert not [r for r in out.results if r.severity == "error"]
    assert obj.labels["app.kubernetes.io/part-of"] == "bench"
    set_id = obj.labels["applyset.kubernetes.io/part-of"]
    assert set_id.startswith("applyset-")
    assert obj.to_item().endswith(f"      x: y\n      applyset.kubernetes.io/part-of: {set_id}\n")


def test_the_labels_of_a_member_without_an_applyset_key_are_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from krmfn.applyset_labeler.members import Member, check_part_of
    from krmlib import Results

    asked: list[KubeObject] = []
    real = KubeObject.labels

    def spied(self: KubeObject) -> Any:
        asked.append(self)
        return real.__get__(self)

    monkeypatch.setattr(KubeObject, "labels", property(spied))
    obj = ResourceList.parse(_rl(DEPLOYMENT + "  labels:\n    app: web\n")).items[0]
    assert check_part_of(Member(obj, "prod", False), "applyset-x", Results()) is True
    assert asked == []
    text = _rl(DEPLOYMENT + f"  labels:\n    applyset.k8s.io/id: {OTHER}\n")
    other = ResourceList.parse(text).items[0]
    assert check_part_of(Member(other, "prod", False), "applyset-x", Results()) is True
    assert asked == [other]  # an applyset key is in the text: read
