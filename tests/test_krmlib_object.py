"""KubeObject: paths, live maps, quoting, comments kept on edit, metadata helpers."""

from __future__ import annotations

import re

import pytest

from krmlib import (
    FieldTypeError,
    KrmError,
    KubeObject,
    format_path,
    parse_path,
)
from krmlib._model.storage import of

DOC = """\
# head comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the name
  namespace: prod
  labels:
    app: web
  annotations:
    config.kubernetes.io/path: 'apps/web.yaml'
    internal.config.kubernetes.io/path: 'apps/web.yaml'
spec:
  replicas: 2 # two
  template:
    spec:
      containers:
      - name: main
        image: "nginx:1.25" # pinned
        env:
        - name: MODE
          value: 'on'
"""


def obj() -> KubeObject:
    return KubeObject.from_yaml(DOC)


def test_header_properties() -> None:
    o = obj()
    assert (o.api_version, o.kind, o.name, o.namespace) == ("apps/v1", "Deployment", "web", "prod")
    assert o.gvk == ("apps", "v1", "Deployment")
    assert o.group_kind == "Deployment.apps"
    assert o.ref() == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "web",
        "namespace": "prod",
    }
    core = KubeObject.from_dict(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    )
    assert core.group == "" and core.group_kind == "ConfigMap"
    assert o.is_kind("apps/*", "Deployment") and not o.is_kind("v1", "Deployment")


def test_paths_parse_and_format() -> None:
    keys = parse_path("spec.template.spec.containers[0].image")
    assert keys == ("spec", "template", "spec", "containers", 0, "image")
    assert parse_path('metadata.annotations["a.b/c"]') == ("metadata", "annotations", "a.b/c")
    assert format_path(("metadata", "annotations", "a.b/c")) == 'metadata.annotations["a.b/c"]'
    assert format_path(keys) == "spec.template.spec.containers[0].image"


def test_get_returns_plain_copies() -> None:
    o = obj()
    assert o.get("spec.template.spec.containers[0].image") == "nginx:1.25"
    assert o.get("spec.missing.deep", "dflt") == "dflt"
    env = o.get("spec.template.spec.containers[0].env")
    assert env == [{"name": "MODE", "value": "on"}]
    env.append({"name": "X"})  # a copy: the object does not change
    assert len(o.get("spec.template.spec.containers[0].env")) == 1
    assert not o.changed


def test_reading_never_changes_the_text() -> None:
    o = obj()
    o.to_dict()
    o.get("spec")
    dict(o.labels)
    assert o.to_yaml() == DOC


def test_set_same_value_is_a_no_op() -> None:
    o = obj()
    assert o.set("spec.replicas", 2) is False
    assert not o.changed
    assert o.to_yaml() == DOC


def test_set_keeps_comments_and_quote_style() -> None:
    o = obj()
    assert o.set("spec.template.spec.containers[0].image", "nginx:1.26")
    out = o.to_yaml()
    assert 'image: "nginx:1.26" # pinned' in out
    assert "# head comment" in out and "replicas: 2 # two" in out
    assert out.replace("1.26", "1.25") == DOC


def test_new_ambiguous_strings_are_quoted() -> None:
    o = obj()
    for key, value in {
        "a": "yes",
        "b": "012",
        "c": "True",
        "d": "1e3",
        "e": "12:30",
        "f": "~",
        "g": "null",
        "h": "on",
        "i": "0o12",
        "j": "plain",
    }.items():
        o.set(("data", key), value)
    out = o.to_yaml()
    for line in (
        'a: "yes"',
        'b: "012"',
        'c: "True"',
        'd: "1e3"',
        'e: "12:30"',
        'f: "~"',
        'g: "null"',
        'h: "on"',
        'i: "0o12"',
        "j: plain",
    ):
        assert line in out
    again = KubeObject.from_yaml(out)
    assert again.get("data") == {
        "a": "yes",
        "b": "012",
        "c": "True",
        "d": "1e3",
        "e": "12:30",
        "f": "~",
        "g": "null",
        "h": "on",
        "i": "0o12",
        "j": "plain",
    }


def test_set_creates_parents_and_appends_to_lists() -> None:
    o = KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    o.set("spec.list[0].name", "first")
    o.set("spec.list[1]", {"name": "second"})
    assert o.get("spec.list") == [{"name": "first"}, {"name": "second"}]


def test_set_map_merges_into_existing_nodes_keeping_comments() -> None:
    o = obj()
    container = o.get("spec.template.spec.containers[0]")
    container["image"] = "nginx:2"
    o.set("spec.template.spec.containers[0]", container)
    assert re.search(r'image: "nginx:2" +# pinned', o.to_yaml())


def test_merge_and_delete() -> None:
    o = obj()
    o.merge("metadata", {"labels": {"tier": "web", "app": None}})
    assert o.labels == {"tier": "web"}
    assert o.delete("spec.replicas") and not o.has("spec.replicas")
    assert o.delete("spec.nothing") is False


def test_wrong_type_names_object_and_path() -> None:
    o = obj()
    with pytest.raises(FieldTypeError) as err:
        o.set("spec.replicas.count", 3)
    assert err.value.field == "spec.replicas"
    assert "Deployment" in str(err.value)


def test_live_label_and_annotation_maps() -> None:
    o = KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    labels = o.labels
    labels["a"] = "1"
    assert o.get("metadata.labels") == {"a": "1"}
    del labels["a"]
    assert o.get("metadata.labels") is None
    o.annotations["x/y"] = "z"
    assert o.annotations["x/y"] == "z" and dict(o.annotations) == {"x/y": "z"}


@pytest.mark.parametrize("parsed", [False, True])
def test_a_map_reads_alike_by_key_and_by_get(parsed: bool) -> None:
    """A null value reads as "", a number as its text, through ``[]`` and ``get`` alike (from
    the scanned text and from the parsed tree); only a missing key is a KeyError or the
    default."""
    o = KubeObject.from_yaml(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
        "  labels:\n    empty:\n    number: 1\n    text: x\n"
    )
    if parsed:
        o.to_dict()  # the maps are then read from the tree, not scanned from the text
    labels = o.labels
    expected = {"empty": "", "number": "1", "text": "x"}
    assert {key: labels[key] for key in expected} == expected
    assert {key: labels.get(key) for key in expected} == expected
    assert dict(labels) == expected and dict(labels.items()) == expected
    assert labels.get("missing") is None and labels.get("missing", "d") == "d"
    with pytest.raises(KeyError) as err:
        labels["missing"]
    assert err.value.args == ("missing",)


def test_path_annotations_change_together_and_stay_inside() -> None:
    o = obj()
    assert o.path == "apps/web.yaml"
    o.set_path("other/file.yaml")
    assert o.annotations["config.kubernetes.io/path"] == "other/file.yaml"
    assert o.annotations["internal.config.kubernetes.io/path"] == "other/file.yaml"
    for bad in ("../x.yaml", "/etc/passwd", "a/../../b.yaml", ""):
        with pytest.raises(KrmError):
            o.set_path(bad)


def test_local_config_and_owner_references() -> None:
    owner = obj()
    child = KubeObject.from_dict(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c", "annotations": {"config.kubernetes.io/local-config": "true"}},
        }
    )
    assert child.is_local_config and not owner.is_local_config
    child.add_owner_reference(owner)
    child.add_owner_reference(owner)
    assert child.owner_references == [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    ]
    assert child.is_owned_by(owner)


def test_booleans_and_nulls_keep_their_spelling_on_edit() -> None:
    o = KubeObject.from_yaml(
        "apiVersion: v1\nkind: X\nmetadata:\n  name: x\nspec:\n  a: True\n  b: ~\n"
    )
    o.labels["l"] = "v"
    assert "a: True" in o.to_yaml() and "b: ~" in o.to_yaml()
    assert o.get("spec.a") is True and o.get("spec.b") is None


def test_merge_drops_nulls_inside_new_values() -> None:
    o = KubeObject.from_dict({"apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}})
    o.merge("", {"spec": {"labels": {"a": None, "b": "1"}}})
    assert o.get("spec") == {"labels": {"b": "1"}}
    o.merge("", {"spec": {"labels": {"b": None}}})
    assert o.get("spec") == {"labels": {}}


def test_from_item_is_a_changed_object_written_as_its_text() -> None:
    text = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n  data:\n    a: '1'\n"
    obj = KubeObject.from_item(text)
    assert obj.changed
    assert obj.to_item() == text
    assert (obj.kind, obj.name, obj.get("data.a")) == ("ConfigMap", "cm", "1")


def test_release_forgets_what_reading_parsed_and_keeps_edits() -> None:
    obj = KubeObject.from_yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n")
    assert obj.get("metadata.name") == "cm" and dict(obj.annotations) == {}
    obj.release()
    assert of(obj).plain is None and not of(obj).scanned
    assert obj.get("metadata.name") == "cm"  # parsed again
    obj.labels["a"] = "b"
    obj.release()
    assert obj.changed and obj.labels["a"] == "b"
    assert "a: b" in obj.to_yaml()


@pytest.mark.parametrize(
    ("annotations", "local"),
    [
        ("", False),
        ('    config.kubernetes.io/local-config: "true"\n', True),
        ('    "config.kubernetes.io\\x2Flocal-config": "true"\n', True),  # spelt with an escape
        ("    other: x\n", False),
    ],
)
def test_is_local_config_reads_the_key_however_it_is_spelt(annotations: str, local: bool) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
    if annotations:
        text += "  annotations:\n" + annotations
    obj = KubeObject.from_yaml(text)
    assert obj.is_local_config is local


def test_a_label_write_keeps_the_header_and_a_name_write_renews_it() -> None:
    for obj in (
        KubeObject.from_yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"),
        KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}),
    ):
        assert obj.name == "cm"
        obj.labels["a"] = "b"
        obj.annotations["c"] = "d"
        assert (obj.api_version, obj.kind, obj.name, obj.namespace) == ("v1", "ConfigMap", "cm", "")
        obj.set("metadata.namespace", "ns")
        obj.set("metadata.name", "other")
        obj.set("kind", "Secret")
        assert (obj.kind, obj.name, obj.namespace) == ("Secret", "other", "ns")
        obj.set("metadata", {"name": "third"})
        assert (obj.name, obj.namespace) == ("third", "")


def test_an_item_edited_in_place_keeps_its_span_and_reads_its_edit() -> None:
    from krmlib import ResourceList

    item = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm{n}\n"
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    rl = ResourceList.parse(text + item.format(n=1) + item.format(n=2))
    first = rl.items[0]
    assert not first.is_local_config
    first.annotations["config.kubernetes.io/local-config"] = "true"
    assert first.is_local_config  # read from the edit, not the input's span
    assert of(first).patch is not None  # the input is not copied for the edit
    pieces = list(rl.pieces())
    assert any(isinstance(p, tuple) for p in pieces)
    edited = (
        item.format(n=1) + '    annotations:\n      config.kubernetes.io/local-config: "true"\n'
    )
    assert rl.to_yaml() == text + edited + item.format(n=2)


def test_may_mention_is_false_only_when_no_key_or_value_can_hold_the_word() -> None:
    from krmlib import ResourceList

    rl = ResourceList.parse(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: plain\n"
        "    annotations:\n      specializer.nephio.org/owner: x\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: other\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: escaped\n"
        '    annotations:\n      "specializer\\x2enephio.org/owner": x\n'
    )
    plain, other, escaped = rl.items
    assert plain.may_mention("specializer.nephio.org/")
    assert not other.may_mention("specializer.nephio.org/")
    assert escaped.may_mention("specializer.nephio.org/")  # an escape could spell it: unsure
    assert "specializer.nephio.org/owner" in escaped.annotations
    other.annotations["specializer.nephio.org/x"] = "y"  # edited: unsure from now on
    assert other.may_mention("specializer.nephio.org/")


def test_as_model_takes_a_krmlib_record_without_pydantic() -> None:
    from krmlib import Record

    class Container(Record):
        name: str
        image: str = ""
        env: list[dict[str, str]] = []

    o = obj()
    found = o.as_model(Container, "spec.template.spec.containers[0]")
    assert found == Container(
        name="main", image="nginx:1.25", env=[{"name": "MODE", "value": "on"}]
    )
    with pytest.raises(KrmError) as err:
        o.as_model(Container, "spec")
    assert err.value.field == "spec.name"
