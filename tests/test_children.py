"""krmlib.children: the generic owned-children sync."""

from __future__ import annotations

from typing import Any

import pytest

from krmlib import Items, KrmError, KubeObject
from krmlib.children import (
    ChildChange,
    ChildSync,
    DeleteAnnotation,
    Deletion,
    DeletionTimestamp,
    OwnerAnnotation,
    OwnerKey,
    OwnerNameAnnotation,
    OwnerReferenceOrAnnotation,
    OwnerReferences,
    Ownership,
    RemoveChild,
    now_rfc3339,
    parse_owner,
)

OWNS = (("example.com/v1", "Child"),)
REFS = OwnerReferences()
STAMP = DeletionTimestamp()


def owner(name: str = "p", path: str = "dir/owner.yaml") -> KubeObject:
    obj = KubeObject.from_dict(
        {"apiVersion": "example.com/v1", "kind": "Parent", "metadata": {"name": name}}
    )
    obj.set_path(path)
    return obj


def child(name: str, spec: dict[str, Any], owner_name: str | None = "p") -> KubeObject:
    metadata: dict[str, Any] = {"name": name}
    if owner_name:
        metadata["ownerReferences"] = [
            {"apiVersion": "example.com/v1", "kind": "Parent", "name": owner_name}
        ]
    return KubeObject.from_dict(
        {"apiVersion": "example.com/v1", "kind": "Child", "metadata": metadata, "spec": spec}
    )


def sync_children(
    items: Items,
    parent: KubeObject,
    desired: list[KubeObject],
    *,
    owns: tuple[tuple[str, str], ...],
    ownership: Ownership,
    deletion: Deletion,
) -> list[ChildChange]:
    """One owner's sync in one pass (index, sync, apply)."""
    children = ChildSync(items, owns=owns, ownership=ownership, deletion=deletion)
    changes = children.sync(parent, desired)
    children.apply()
    return changes


def collect_orphans(
    items: Items,
    owner_kind: tuple[str, str],
    *,
    owns: tuple[tuple[str, str], ...],
    ownership: Ownership,
    deletion: Deletion,
) -> list[ChildChange]:
    return ChildSync(items, owns=owns, ownership=ownership, deletion=deletion).collect_orphans(
        owner_kind
    )


def sync(items: Items, parent: KubeObject, desired: list[KubeObject]) -> list[tuple[str, str]]:
    changes = sync_children(items, parent, desired, owns=OWNS, ownership=REFS, deletion=STAMP)
    return [(c.action, c.child.name) for c in changes]


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def test_create_places_child_after_owner_in_its_folder() -> None:
    parent, other = owner(), owner("q", "q.yaml")
    items = Items([parent, other])
    assert sync(items, parent, [child("c1", {"a": 1}, owner_name=None)]) == [("create", "c1")]
    names = [o.name for o in items]
    assert names == ["p", "c1", "q"]
    created = items[1]
    assert created.path == "dir/child_c1.yaml"
    assert created.is_owned_by(parent)


def test_unchanged_child_is_not_rewritten() -> None:
    parent = owner()
    existing = KubeObject.from_yaml(child("c1", {"a": 1}).to_yaml())
    items = Items([parent, existing])
    assert sync(items, parent, [child("c1", {"a": 1})]) == [("unchanged", "c1")]
    assert not existing.changed


def test_same_name_with_other_spec_is_updated_in_place() -> None:
    parent = owner()
    existing = child("c1", {"a": 1, "b": 2})
    items = Items([parent, existing])
    assert sync(items, parent, [child("c1", {"a": 3})]) == [("update", "c1")]
    assert existing.get("spec") == {"a": 3}
    assert len(items) == 2


def test_new_name_marks_the_old_child_and_creates_the_new_one() -> None:
    parent = owner()
    old = child("c-aaa", {"a": 1})
    items = Items([parent, old])
    assert sync(items, parent, [child("c-bbb", {"a": 2})]) == [
        ("create", "c-bbb"),
        ("delete", "c-aaa"),
    ]
    assert old.get("metadata.deletionTimestamp") == "2023-11-14T22:13:20Z"
    assert [o.name for o in items] == ["p", "c-aaa", "c-bbb"]


def test_a_marked_child_keeps_its_first_timestamp() -> None:
    parent = owner()
    old = child("c1", {"a": 1})
    old.set("metadata.deletionTimestamp", "2020-01-01T00:00:00Z")
    items = Items([parent, old])
    assert sync(items, parent, []) == [("pending-delete", "c1")]
    assert old.get("metadata.deletionTimestamp") == "2020-01-01T00:00:00Z"


def test_a_marked_child_wanted_again_is_revived() -> None:
    parent = owner()
    old = child("c1", {"a": 1})
    old.set("metadata.deletionTimestamp", "2020-01-01T00:00:00Z")
    items = Items([parent, old])
    assert sync(items, parent, [child("c1", {"a": 1})]) == [("update", "c1")]
    assert not old.has("metadata.deletionTimestamp")


def test_children_of_other_owners_and_kinds_are_ignored() -> None:
    parent = owner()
    foreign = child("c2", {"a": 1}, owner_name="someone-else")
    other_kind = KubeObject.from_dict(
        {
            "apiVersion": "example.com/v1",
            "kind": "Other",
            "metadata": {
                "name": "o",
                "ownerReferences": [
                    {"apiVersion": "example.com/v1", "kind": "Parent", "name": "p"}
                ],
            },
        }
    )
    items = Items([parent, foreign, other_kind])
    assert sync(items, parent, []) == []
    assert not foreign.has("metadata.deletionTimestamp")
    assert not other_kind.has("metadata.deletionTimestamp")


def test_a_name_taken_by_an_unowned_item_is_a_conflict() -> None:
    parent = owner()
    squatter = child("c1", {"x": 1}, owner_name=None)
    items = Items([parent, squatter])
    assert sync(items, parent, [child("c1", {"a": 1})]) == [("conflict", "c1")]
    assert squatter.get("spec") == {"x": 1}
    assert len(items) == 2


def test_orphans_are_marked_once() -> None:
    parent = owner()
    mine = child("c1", {"a": 1})
    orphan = child("c2", {"a": 1}, owner_name="gone")
    items = Items([parent, mine, orphan])
    changes = collect_orphans(
        items, ("example.com/v1", "Parent"), owns=OWNS, ownership=REFS, deletion=STAMP
    )
    assert [(c.action, c.child.name, c.owner.name) for c in changes] == [("delete", "c2", "gone")]
    assert orphan.get("metadata.deletionTimestamp") == "2023-11-14T22:13:20Z"
    assert not mine.has("metadata.deletionTimestamp")
    again = collect_orphans(
        items, ("example.com/v1", "Parent"), owns=OWNS, ownership=REFS, deletion=STAMP
    )
    assert [c.action for c in again] == ["pending-delete"]


def test_annotation_ownership_and_deletion() -> None:
    ownership = OwnerAnnotation("example.com/owner")
    deletion = DeleteAnnotation("example.com/delete")
    parent = owner()
    items = Items([parent])
    changes = sync_children(
        items,
        parent,
        [child("c1", {"a": 1}, owner_name=None)],
        owns=OWNS,
        ownership=ownership,
        deletion=deletion,
    )
    created = changes[0].child
    assert created.annotations["example.com/owner"] == "example.com/v1.Parent.p"
    assert ownership.owners(created) == [OwnerKey("example.com/v1", "Parent", "p")]
    items.remove(parent)
    orphans = collect_orphans(
        items, ("example.com/v1", "Parent"), owns=OWNS, ownership=ownership, deletion=deletion
    )
    assert [c.action for c in orphans] == ["delete"]
    assert created.annotations["example.com/delete"] == "true"
    deletion.unmark(created)
    assert "example.com/delete" not in created.annotations


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            "req.nephio.org/v1alpha1.Interface.n3",
            OwnerKey("req.nephio.org/v1alpha1", "Interface", "n3"),
        ),
        ("v1.ConfigMap.a.b", OwnerKey("v1", "ConfigMap", "a.b")),
        ("nonsense", None),
        ("", None),
    ],
)
def test_parse_owner(value: str, expected: OwnerKey | None) -> None:
    assert parse_owner(value) == expected


def test_now_honours_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    assert now_rfc3339() == "2023-11-14T22:13:20Z"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    with pytest.raises(KrmError, match="SOURCE_DATE_EPOCH"):
        now_rfc3339()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert now_rfc3339().endswith("Z")


def test_owner_reference_or_annotation_follows_the_owners_uid() -> None:
    policy = OwnerReferenceOrAnnotation("example.com/owner")
    parent = owner()
    old = child("c", {"a": 1})  # a uid-less reference, as written before
    other = {"apiVersion": "v1", "kind": "ConfigMap", "name": "keep", "uid": "u0"}
    old.set("metadata.ownerReferences", [*old.owner_references, other])
    assert OwnerKey("example.com/v1", "Parent", "p") in policy.owners(old)
    policy.mark(old, parent)  # no uid: the annotation, the invalid reference goes
    assert old.annotations["example.com/owner"] == "example.com/v1.Parent.p"
    assert old.owner_references == [other]
    assert OwnerKey("example.com/v1", "Parent", "p") in policy.owners(old)
    parent.set("metadata.uid", "u1")
    policy.mark(old, parent)  # read from a cluster: a reference with the uid
    assert "example.com/owner" not in old.annotations
    assert old.owner_references == [
        other,
        {"apiVersion": "example.com/v1", "kind": "Parent", "name": "p", "uid": "u1"},
    ]
    assert OwnerKey("example.com/v1", "Parent", "p") in policy.owners(old)


# --- RemoveChild and OwnerNameAnnotation (the policies topology-to-pvs syncs with) ---

NAMED = OwnerNameAnnotation("example.com/owner", "Parent", ("example.com", "other.example.com"))
REMOVE = RemoveChild()


def named_child(
    name: str,
    owner_name: str | None = "p",
    namespace: str = "",
    api_version: str = "example.com/v1",
) -> KubeObject:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    if owner_name is not None:
        metadata["annotations"] = {"example.com/owner": owner_name}
    return KubeObject.from_dict(
        {"apiVersion": api_version, "kind": "Child", "metadata": metadata, "spec": {"a": 1}}
    )


def named_sync(items: Items, **options: Any) -> ChildSync:
    return ChildSync(items, owns=OWNS, ownership=NAMED, deletion=REMOVE, namespaced=True, **options)


def test_remove_policy_drops_unwanted_children_and_frees_their_names() -> None:
    parent, other = owner(), owner("q", "q.yaml")
    old = named_child("c-old")
    items = Items([parent, old, other])
    children = named_sync(items)
    changes = children.sync(parent, [named_child("c-new", owner_name=None)])
    assert [(c.action, c.child.name) for c in changes] == [("create", "c-new"), ("remove", "c-old")]
    assert not old.has("metadata.deletionTimestamp")  # removed, not marked
    # the removed child's name is free: another owner may take it in the same pass
    taken = children.sync(other, [named_child("c-old", owner_name=None)])
    assert [(c.action, c.child.name) for c in taken] == [("create", "c-old")]
    children.apply()
    assert [(o.name, o.annotations.get("example.com/owner")) for o in items] == [
        ("p", None),
        ("c-new", "p"),
        ("q", None),
        ("c-old", "q"),
    ]


def test_remove_policy_removes_orphans_once() -> None:
    parent = owner()
    mine, orphan = named_child("c1"), named_child("c2", owner_name="gone")
    items = Items([parent, mine, orphan])
    children = named_sync(items)
    orphans = children.collect_orphans(("", "Parent"))
    assert [(c.action, c.child.name, c.owner.name) for c in orphans] == [("remove", "c2", "gone")]
    children.apply()
    assert [o.name for o in items] == ["p", "c1"]
    assert named_sync(items).collect_orphans(("", "Parent")) == []


def test_owner_name_annotation_is_scoped_by_namespace_and_groups() -> None:
    parent = owner()
    parent.set("metadata.namespace", "ns")
    assert NAMED.owner_key(parent) == OwnerKey("", "Parent", "p", "ns")
    assert NAMED.owners(named_child("c", namespace="ns")) == [OwnerKey("", "Parent", "p", "ns")]
    assert NAMED.owners(named_child("c", owner_name=None)) == []
    # the same name in another namespace is another owner's child
    elsewhere = named_child("c1", namespace="other")
    mine = named_child("c2", namespace="ns")
    items = Items([parent, elsewhere, mine])
    changes = named_sync(items).sync(parent, [])
    assert [(c.action, c.child.name) for c in changes] == [("remove", "c2")]
    # an owner of a group not listed owns nothing here (its key keeps its apiVersion)
    stranger = KubeObject.from_dict(
        {"apiVersion": "third.example.com/v1", "kind": "Parent", "metadata": {"name": "p"}}
    )
    assert NAMED.owner_key(stranger).api_version == "third.example.com/v1"
    # both listed groups own by name: the child of a parent of the other group is not an orphan
    sibling = KubeObject.from_dict(
        {"apiVersion": "other.example.com/v2", "kind": "Parent", "metadata": {"name": "s"}}
    )
    kept = named_child("c3", owner_name="s")
    items = Items([sibling, kept, stranger, named_child("c4", owner_name="p")])
    orphans = named_sync(items).collect_orphans(("", "Parent"))
    assert [c.child.name for c in orphans] == ["c4"]


def test_a_same_named_item_in_another_namespace_is_no_conflict_when_namespaced() -> None:
    parent = owner()
    other_ns = named_child("c1", owner_name=None, namespace="other")
    same_ns = named_child("c2", owner_name=None)
    items = Items([parent, other_ns, same_ns])
    desired = [named_child("c1", owner_name=None), named_child("c2", owner_name=None)]
    changes = named_sync(items).sync(parent, desired)
    assert [(c.action, c.child) for c in changes] == [("create", desired[0]), ("conflict", same_ns)]


def test_any_version_updates_an_old_api_version_in_place_and_merges_maps() -> None:
    parent = owner()
    old = named_child("c1", api_version="example.com/v0")
    old.labels["hand"] = "kept"
    old.annotations["hand.example.com/note"] = "kept"
    items = Items([parent, old])
    want = named_child("c1")
    want.labels["generated"] = "yes"
    children = named_sync(
        items,
        any_version=True,
        compare=("apiVersion", "spec"),
        merge=("metadata.labels", "metadata.annotations"),
    )
    assert [c.action for c in children.sync(parent, [want])] == ["update"]
    children.apply()
    assert list(items) == [parent, old]  # the same object, not a new one
    assert old.api_version == "example.com/v1"
    assert dict(old.labels) == {"hand": "kept", "generated": "yes"}
    assert dict(old.annotations) == {"example.com/owner": "p", "hand.example.com/note": "kept"}
    again = named_sync(items, any_version=True, compare=("apiVersion", "spec"))
    assert [c.action for c in again.sync(parent, [named_child("c1")])] == ["unchanged"]


def test_in_desired_order_places_a_new_child_after_the_one_listed_before_it() -> None:
    parent = owner()
    a, c = named_child("a"), named_child("c")
    items = Items([parent, a, c])
    desired = [named_child("a"), named_child("b", None), named_child("c"), named_child("d", None)]
    children = named_sync(items, in_desired_order=True)
    children.sync(parent, desired)
    children.apply()
    assert [o.name for o in items] == ["p", "a", "b", "c", "d"]
    # the default: new children after the owner's last child
    items = Items([parent, named_child("a"), named_child("c")])
    children = named_sync(items)
    children.sync(parent, [named_child("a"), named_child("b", None), named_child("c")])
    children.apply()
    assert [o.name for o in items] == ["p", "a", "c", "b"]


@pytest.mark.parametrize("in_desired_order", [False, True])
def test_new_as_text_holds_new_children_as_their_items_text(in_desired_order: bool) -> None:
    def run(as_text: bool) -> tuple[Items, list[ChildChange]]:
        parent = owner()
        items = Items([parent, named_child("a")])
        children = named_sync(items, in_desired_order=in_desired_order, new_as_text=as_text)
        desired = [named_child("a"), named_child("b", None), named_child("c", None)]
        changes = children.sync(parent, desired)
        children.apply()
        return items, changes

    plain, plain_changes = run(False)
    text, text_changes = run(True)
    # the same items, written the same way; the changes name the objects in the items
    assert [o.to_item() for o in text] == [o.to_item() for o in plain]
    assert [(c.action, c.child.name) for c in text_changes] == [
        (c.action, c.child.name) for c in plain_changes
    ]
    created = [c.child for c in text_changes if c.action == "create"]
    assert [o.name for o in created] == ["b", "c"]
    assert all(any(o is c for o in text) for c in created)
    assert all(c.changed and c.path == "dir/child_" + c.name + ".yaml" for c in created)
    assert created[0].get("spec") == {"a": 1}  # read back from its text
    assert dict(created[0].annotations)["example.com/owner"] == "p"


# The metadata shapes a new child may come with: the mark and the path are written into its
# values (new_as_text) exactly as the general way writes them through the object.
_NEW_METADATA: list[dict[str, Any]] = [
    {"name": "n"},
    {"name": "n", "annotations": None},
    {"name": "n", "annotations": {}},
    {"name": "n", "annotations": {"z": "1"}, "labels": {"l": "v"}},
    {"name": "n", "annotations": {"example.com/owner": "other", "nephio.org/owner": "x"}},
    {"name": "n", "annotations": {"example.com/owner": "p", "nephio.org/owner": 7}},
    {"name": "n", "annotations": {"config.kubernetes.io/path": ""}},
    {"name": "n", "annotations": {"internal.config.kubernetes.io/path": "", "b": None}},
    {"name": "n", "annotations": {"internal.config.kubernetes.io/path": "x/y.yaml"}},
    {"name": "n", "ownerReferences": [{"apiVersion": "v1", "kind": "Other", "name": "o"}]},
    {"name": "n", "ownerReferences": None, "annotations": {"example.com/owner": "p"}},
    {"name": "n", "namespace": "ns", "annotations": {"nephio.org/owner": "y"}},
]


def _owners() -> list[KubeObject]:
    plain = owner()
    with_uid = owner()
    with_uid.set("metadata.uid", "u-1")
    return [plain, with_uid]


_OWNERSHIPS: list[Ownership] = [
    REFS,
    OwnerAnnotation("nephio.org/owner"),
    OwnerReferenceOrAnnotation("nephio.org/owner"),
    OwnerNameAnnotation("example.com/owner", "Parent", ("example.com",)),
]


@pytest.mark.parametrize("ownership", _OWNERSHIPS, ids=lambda o: type(o).__name__)
@pytest.mark.parametrize("metadata", _NEW_METADATA, ids=lambda m: str(sorted(m)))
@pytest.mark.parametrize("with_uid", [False, True])
def test_new_as_text_marks_values_as_the_general_way_writes(
    ownership: Ownership, metadata: dict[str, Any], with_uid: bool
) -> None:
    def run(as_text: bool) -> list[str]:
        parent = _owners()[with_uid]
        items = Items([parent])
        children = ChildSync(items, owns=OWNS, ownership=ownership, deletion=STAMP)
        children.new_as_text = as_text
        want = KubeObject.from_dict(
            {"apiVersion": "example.com/v1", "kind": "Child", "metadata": metadata, "spec": {}}
        )
        changes = children.sync(parent, [want])
        children.apply()
        assert [c.action for c in changes] == ["create"]
        return [o.to_item() for o in items]

    assert run(True) == run(False)


def test_new_as_text_path_refused_as_the_general_way_refuses() -> None:
    parent = owner()
    parent.annotations["internal.config.kubernetes.io/path"] = "/abs/owner.yaml"  # unchecked
    for as_text in (False, True):
        children = ChildSync(
            Items([parent]), owns=OWNS, ownership=REFS, deletion=STAMP, new_as_text=as_text
        )
        bad = KubeObject.from_dict(
            {"apiVersion": "example.com/v1", "kind": "Child", "metadata": {"name": "a"}}
        )
        with pytest.raises(KrmError, match="must be relative"):
            children.sync(parent, [bad])


class _MarkOnly:
    """An ownership of a function's own, without ``mark_values``: the general way is taken."""

    def owner_key(self, owner: KubeObject) -> OwnerKey:
        return REFS.owner_key(owner)

    def owners(self, child: KubeObject) -> list[OwnerKey]:
        return REFS.owners(child)

    def mark(self, child: KubeObject, owner: KubeObject) -> None:
        child.labels["owned-by"] = owner.name


def test_new_as_text_with_an_ownership_without_mark_values() -> None:
    def run(as_text: bool) -> list[str]:
        parent = owner()
        items = Items([parent])
        children = ChildSync(
            items, owns=OWNS, ownership=_MarkOnly(), deletion=STAMP, new_as_text=as_text
        )
        children.sync(parent, [child("a", {"x": 1}, owner_name=None)])
        children.apply()
        return [o.to_item() for o in items]

    texts = run(True)
    assert texts == run(False)
    assert "owned-by: p" in texts[1] and "path: dir/child_a.yaml" in texts[1]
