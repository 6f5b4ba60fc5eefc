"""merge_resources, the library call: rules the goldens show less directly."""

from __future__ import annotations

from typing import Any

import pytest

from krmfn.merger import merge_resources
from krmlib import Items, KrmError, KubeObject, ResourceList, Results

CM = "v1"


def obj(name: str, annotations: dict[str, str] | None = None, **fields: Any) -> KubeObject:
    metadata: dict[str, Any] = {"name": name}
    if annotations:
        metadata["annotations"] = annotations
    return KubeObject.from_dict(
        {"apiVersion": CM, "kind": "ConfigMap", "metadata": metadata, **fields}
    )


def package(text: str) -> Items:
    return ResourceList.parse(text).items


TEMPLATE = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    namespace: one
    annotations:
      config.kubernetes.io/path: 'a.yaml'
      internal.config.kubernetes.io/path: 'a.yaml'
      config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/index: '0'
      config.k8s.io/id: '1'
      internal.config.kubernetes.io/id: '1'
  data:
    keep: "1" # a comment
    list: [1, 2]
    nested: {x: "1", y: "2"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
    annotations:
      config.kubernetes.io/path: 'a.yaml'
      internal.config.kubernetes.io/path: 'a.yaml'
      config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/index: '1'
  data:
    b: "1"
"""


def test_override_merges_maps_replaces_lists_and_null_removes() -> None:
    items = package(TEMPLATE)
    source = obj("a", data={"list": [3], "nested": {"y": None, "z": "3"}, "keep": "1"})
    before = source.to_yaml()
    (merged,) = merge_resources(items, [source])
    assert merged is items[0]
    assert merged.get("data") == {"keep": "1", "list": [3], "nested": {"x": "1", "z": "3"}}
    assert "# a comment" in merged.to_yaml()
    assert merged.namespace == "one"  # the input has none: the target's stays
    assert source.to_yaml() == before  # inputs are never changed
    assert not items[1].changed  # unrelated items untouched


def test_identity_is_full_api_version_kind_and_name_not_namespace() -> None:
    """TKO and the seed: identified by GVK+name; a v2 is added beside the v1 (issue 15.1)."""
    items = package(TEMPLATE)
    other_ns = obj("a", data={"v": "ns"})
    other_ns.set("metadata.namespace", "two")
    other_version = KubeObject.from_dict(
        {"apiVersion": "v2", "kind": "ConfigMap", "metadata": {"name": "b"}, "data": {"v": "2"}}
    )
    other_group = KubeObject.from_dict(
        {"apiVersion": "example.com/v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    )
    out = merge_resources(items, [other_ns, other_version, other_group])
    assert out[0] is items[0] and items[0].get("data.v") == "ns"
    assert items[1].api_version == "v1" and items[1].get("data") != {"v": "2"}
    assert len(items) == 4 and out[1] is items[2] and out[2] is items[3]
    assert items[2].api_version == "v2" and items[2].get("data.v") == "2"
    assert items[3].api_version == "example.com/v1" and items[3].path == "configmap_a.yaml"


def test_replace_keeps_slot_path_and_index_but_not_ids() -> None:
    items = package(TEMPLATE)
    (new,) = merge_resources(
        items, [obj("a", {"nephio.org/merge": "Replace"}, data={"only": "this"})]
    )
    assert items[0] is new
    assert new.get("data") == {"only": "this"}
    assert new.namespace == ""
    ann = dict(new.annotations)
    assert ann["internal.config.kubernetes.io/path"] == "a.yaml"
    assert ann["config.kubernetes.io/index"] == "0"
    assert "config.k8s.io/id" not in ann and "internal.config.kubernetes.io/id" not in ann
    assert "nephio.org/merge" not in ann


def test_replace_with_the_same_content_leaves_the_item_alone() -> None:
    items = package(TEMPLATE)
    first = obj("b", {"nephio.org/merge": "Replace"}, data={"b": "1"})
    original = items[1]
    (result,) = merge_resources(items, [first])
    assert result is original
    assert not original.changed


def test_unmatched_is_appended_as_a_copy_in_file_dir() -> None:
    items = package(TEMPLATE)
    source = KubeObject.from_yaml(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s # the service\n"
        "  annotations:\n    config.kubernetes.io/path: elsewhere.yaml\n"
        "    nephio.org/merge: Override\nspec:\n  clusterIP: null\n  ports: [{port: 1}]\n"
    )
    (added,) = merge_resources(items, [source], file_dir="sub/dir")
    assert items[2] is added and added is not source
    assert added.path == "sub/dir/service_s.yaml"
    assert added.annotations.get("config.kubernetes.io/path") == "sub/dir/service_s.yaml"
    assert "nephio.org/merge" not in added.annotations
    assert not added.has("spec.clusterIP")
    assert "# the service" in added.to_yaml()


def test_appended_into_a_taken_file_goes_last_without_an_index() -> None:
    items = package(TEMPLATE.replace("a.yaml", "configmap_c.yaml"))
    (added,) = merge_resources(items, [obj("c")])
    assert added.path == "configmap_c.yaml"
    assert items[2] is added
    assert "internal.config.kubernetes.io/index" not in added.annotations


@pytest.mark.parametrize(
    ("before", "after"),
    [("Postpone", "Here"), ("Here", "Never"), ("Never", "Never"), (None, None)],
)
@pytest.mark.parametrize("matched", [True, False])
def test_prepare_moves_from_a_package(before: str | None, after: str | None, matched: bool) -> None:
    items = package(TEMPLATE)
    name = "a" if matched else "new"
    source = obj(name, {"nephio.org/prepare": before} if before else None, data={"x": "1"})
    (result,) = merge_resources(items, [source], from_package=True)
    assert result.annotations.get("nephio.org/prepare") == after
    (again,) = merge_resources(package(TEMPLATE), [source], from_package=False)
    assert again.annotations.get("nephio.org/prepare") == before


def test_a_later_input_sees_the_earlier_result() -> None:
    items = package(TEMPLATE)
    out = merge_resources(
        items,
        [
            obj("n", data={"x": "1", "y": "1"}),
            obj("n", data={"y": "2"}),
            obj("n", {"nephio.org/merge": "Replace"}, data={"z": "3"}),
            obj("n", data={"w": "4"}),
        ],
    )
    assert len(items) == 3 and len(out) == 1
    assert out[0] is items[2]
    assert items[2].get("data") == {"z": "3", "w": "4"}


def test_rename_lands_on_the_new_name_and_is_not_carried() -> None:
    items = package(TEMPLATE)
    (result,) = merge_resources(items, [obj("x", {"nephio.org/rename": "b"}, data={"r": "1"})])
    assert result is items[1]
    assert result.get("data") == {"b": "1", "r": "1"}
    assert "nephio.org/rename" not in result.annotations


def test_rename_chain_moves_each_input_one_step() -> None:
    items = package(TEMPLATE)
    out = merge_resources(
        items,
        [
            obj("z", {"nephio.org/rename": "a"}, data={"from": "z"}),
            obj("a", {"nephio.org/rename": "b"}, data={"from": "a"}),
        ],
    )
    assert [o.name for o in out] == ["a", "b"]
    assert items[0].get("data.from") == "z"
    assert items[1].get("data.from") == "a"
    assert len(items) == 2


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ([obj("a", {"nephio.org/rename": "a"})], "to itself"),
        (
            [obj("a", {"nephio.org/rename": "b"}), obj("b", {"nephio.org/rename": "a"})],
            "cycle among merge inputs: ConfigMap a → b → a",
        ),
        (
            [
                obj("a", {"nephio.org/rename": "b"}),
                obj("b", {"nephio.org/rename": "c"}),
                obj("c", {"nephio.org/rename": "a"}),
            ],
            "a → b → c → a",
        ),
        (
            [obj("b"), obj("x", {"nephio.org/rename": "b"})],
            "merge input #3 ConfigMap x is renamed to b, where input #2 ConfigMap b also lands",
        ),
        (
            [obj("x", {"nephio.org/rename": "n"}), obj("y", {"nephio.org/rename": "n"})],
            "input #3 ConfigMap y (renamed) also lands",
        ),
        ([obj("a", {"nephio.org/merge": "Merge"})], "expected Override or Replace"),
        ([obj("a", {"nephio.org/rename": ""})], "nephio.org/rename is empty"),
    ],
)
def test_rename_and_annotation_errors_change_nothing(
    inputs: list[KubeObject], message: str
) -> None:
    items = package(TEMPLATE)
    fine = obj("a", data={"changed": "yes"})
    with pytest.raises(KrmError) as info:
        merge_resources(items, [fine, *inputs])
    assert message in info.value.message
    assert not any(o.changed for o in items)
    assert len(items) == 2


def test_wrong_prepare_value_is_an_error_only_when_moving() -> None:
    source = obj("a", {"nephio.org/prepare": "Soon"})
    with pytest.raises(KrmError, match="expected Here, Postpone or Never"):
        merge_resources(package(TEMPLATE), [source], from_package=True)
    (kept,) = merge_resources(package(TEMPLATE), [source])
    assert kept.annotations["nephio.org/prepare"] == "Soon"


def test_an_ambiguous_match_is_an_error() -> None:
    items = package(TEMPLATE.replace("name: b", "name: a"))
    with pytest.raises(KrmError, match="matches 2 resources"):
        merge_resources(items, [obj("a")])


def test_an_input_without_a_name_is_an_error() -> None:
    nameless = KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})
    with pytest.raises(KrmError, match=r"metadata\.name"):
        merge_resources(package(TEMPLATE), [nameless])


def test_results_report_each_input() -> None:
    results = Results()
    merge_resources(
        package(TEMPLATE),
        [obj("a", data={"x": "1"}), obj("q", {"nephio.org/rename": "new"}), obj("b")],
        results=results,
    )
    messages = sorted(r.message for r in results)
    assert messages == [
        "merge input #1 merged (Override)",
        "merge input #2 added as configmap_new.yaml (renamed from q)",
        "merge input #3 already merged (Override): unchanged",
    ]
