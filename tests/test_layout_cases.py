"""Layouts kpt accepts, read and edited as the block layout is (issue 33, items 2, 3 and 5): the
defects found by hand, each a case. kpt 1.0.0-beta.56 reads every input here to the same data
(``kpt fn source``; tests/test_layout_properties.py holds the fast paths to the parser on
generated layouts)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from ruamel.yaml import YAML

from krmlib import KubeObject, ResourceList
from krmlib._yaml import engines as _yaml
from krmlib._yaml import rt as _rt

BIN = Path(sys.executable).parent


def rl(items: str) -> str:
    return f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}"


FLOW_METADATA = rl(
    "- apiVersion: v1\n"
    "  kind: ConfigMap\n"
    "  metadata: {name: a, labels: {app: web}, annotations: {note: x}}\n"
    "  data:\n"
    "    k: v\n"
)
FOUR_SPACES = rl(
    "-   apiVersion: v1\n"
    "    kind: ConfigMap\n"
    "    metadata:\n"
    "        name: a\n"
    "        labels:\n"
    "            app: web\n"
    "        annotations:\n"
    "            note: x\n"
    "    data:\n"
    "        k: v\n"
)
THREE_SPACES_DOC = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n   name: a\n   labels:\n      app: web\n"
    "   annotations:\n      note: x\ndata:\n   k: v\n"
)
QUOTED_KEYS_DOC = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  'labels':\n    app: web\n"
    '  "annotations": {note: x}\ndata:\n  "k": v\n'
)
COMMENTED_DOC = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n# a comment at column 0\n"
    "  labels:\n  # between\n    app: web\n  annotations:\n    note: x\ndata:\n  k: v\n"
)
CRLF_DOC = (
    "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: a\r\n  labels:\r\n    app: web\r\n"
    "  annotations:\r\n    note: x\r\ndata:\r\n  k: v\r\n"
)
MULTILINE_QUOTE_DOC = (
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  note: "starts here\n'
    '  labels: inside the string"\n  labels:\n    app: web\n  annotations:\n    note: x\n'
    "data:\n  k: v\n"
)


@pytest.mark.parametrize("text", [FLOW_METADATA, FOUR_SPACES], ids=["flow", "4-space"])
def test_labels_annotations_and_values_of_items_in_other_layouts(text: str) -> None:
    obj = ResourceList.parse(text).items[0]
    assert dict(obj.labels) == {"app": "web"}
    assert dict(obj.annotations) == {"note": "x"}
    assert obj.get("data.k") == "v"
    assert obj.name == "a"


@pytest.mark.parametrize(
    "text",
    [THREE_SPACES_DOC, QUOTED_KEYS_DOC, COMMENTED_DOC, CRLF_DOC, MULTILINE_QUOTE_DOC],
    ids=["3-space", "quoted-keys", "comments", "crlf", "multi-line-quote"],
)
def test_labels_annotations_and_values_of_documents_in_other_layouts(text: str) -> None:
    obj = KubeObject.from_yaml(text)
    assert dict(obj.labels) == {"app": "web"}
    assert dict(obj.annotations) == {"note": "x"}
    assert obj.get("data.k") == "v"
    assert obj.name == "a"


def test_a_label_set_on_a_four_space_item_lands_in_its_metadata() -> None:
    parsed = ResourceList.parse(FOUR_SPACES)
    obj = parsed.items[0]
    obj.labels["tier"] = "db"
    data = yaml.safe_load(rl(obj.to_item()))["items"][0]
    assert data["metadata"]["labels"] == {"app": "web", "tier": "db"}
    assert list(data) == ["apiVersion", "kind", "metadata", "data"]


# --- anchors and aliases (item 3) -----------------------------------------------------------

DEPLOYMENT = rl(
    "- apiVersion: apps/v1\n"
    "  kind: Deployment\n"
    "  metadata:\n"
    "    name: web\n"
    "    labels: {app: web}\n"
    "  spec:\n"
    "    selector:\n"
    "      matchLabels: &l\n"
    "        app: web\n"
    "    template:\n"
    "      metadata:\n"
    "        labels: *l\n"
    "      spec:\n"
    "        containers: []\n"
    "- apiVersion: v1\n"
    "  kind: ConfigMap\n"
    "  metadata:\n"
    "    name: untouched\n"
    "  data: &d\n"
    "    k: v\n"
    "  more: *d\n"
)


def _items(out: str) -> list[Any]:
    items: list[Any] = yaml.safe_load(out)["items"]
    return items


def _write(parsed: ResourceList) -> str:
    return rl("".join(obj.to_item() for obj in parsed.items))


def test_a_label_set_through_an_alias_leaves_the_anchor_alone() -> None:
    parsed = ResourceList.parse(DEPLOYMENT)
    deployment = parsed.items[0]
    deployment.set("spec.template.metadata.labels.applyset", "x")
    spec = _items(_write(parsed))[0]["spec"]
    assert spec["selector"]["matchLabels"] == {"app": "web"}  # immutable in the cluster
    assert spec["template"]["metadata"]["labels"] == {"app": "web", "applyset": "x"}


def test_an_edit_of_the_anchor_leaves_its_aliases_alone() -> None:
    parsed = ResourceList.parse(DEPLOYMENT)
    parsed.items[0].set("spec.selector.matchLabels.app", "other")
    spec = _items(_write(parsed))[0]["spec"]
    assert spec["selector"]["matchLabels"] == {"app": "other"}
    assert spec["template"]["metadata"]["labels"] == {"app": "web"}


def test_a_delete_through_an_alias_leaves_the_anchor_alone() -> None:
    parsed = ResourceList.parse(DEPLOYMENT)
    parsed.items[0].delete("spec.template.metadata.labels.app")
    spec = _items(_write(parsed))[0]["spec"]
    assert spec["selector"]["matchLabels"] == {"app": "web"}
    assert spec["template"]["metadata"]["labels"] == {}


def test_an_edit_through_a_merge_key_leaves_the_base_alone() -> None:
    obj = KubeObject.from_yaml(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
        "base: &b\n  inner:\n    x: '1'\ndata:\n  <<: *b\n  own: y\n"
    )
    obj.set("data.inner.x", "2")
    data = yaml.safe_load(obj.to_yaml())
    assert data["base"] == {"inner": {"x": "1"}}
    assert data["data"] == {"inner": {"x": "2"}, "own": "y"}


def test_an_unedited_item_with_an_anchor_keeps_its_text() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: &d\n  k: v\nmore: *d\n"
    obj = KubeObject.from_yaml(text)
    assert obj.get("more.k") == "v"
    assert obj.to_yaml() == text
    parsed = ResourceList.parse(DEPLOYMENT)
    parsed.items[0].labels["x"] = "y"
    assert "  data: &d\n    k: v\n  more: *d\n" in _write(parsed)


LABELS_ANCHORED = rl(
    "- apiVersion: apps/v1\n"
    "  kind: Deployment\n"
    "  metadata:\n"
    "    name: web\n"
    "    namespace: default\n"
    "    labels: &l\n"
    "      app: web\n"
    "  spec:\n"
    "    selector:\n"
    "      matchLabels: *l\n"
    "    template:\n"
    "      metadata:\n"
    "        labels: *l\n"
)


def test_anchored_input_under_a_function_keeps_the_selector() -> None:
    """applyset-labeler's label on a Deployment whose labels are the selector's anchor: the
    selector (immutable in the cluster) and the template keep their labels."""
    done = subprocess.run(
        [str(BIN / "krmfn-applyset-labeler")],
        input=LABELS_ANCHORED
        + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n"
        "  data:\n    parent-kind: ConfigMap\n    parent-name: set1\n    parent-namespace: default\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    items = _items(done.stdout)
    spec = next(item for item in items if item["kind"] == "Deployment")["spec"]
    assert spec["selector"]["matchLabels"] == {"app": "web"}
    assert spec["template"]["metadata"]["labels"] == {"app": "web"}
    labels = next(item for item in items if item["kind"] == "Deployment")["metadata"]["labels"]
    assert labels["app"] == "web" and "applyset.kubernetes.io/part-of" in labels


# --- document-level forms (item 5) ----------------------------------------------------------


def test_a_directive_read_is_not_written_into_later_items() -> None:
    _rt.load_rt("%YAML 1.2\n%TAG !e! tag:example.com,2000:\n---\na: 1\n")
    obj = KubeObject.from_yaml("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    obj.labels["x"] = "y"
    assert obj.to_item().startswith("- apiVersion: v1\n")
    assert "%" not in obj.to_item()


APPLYSET_CONFIG = (
    "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n"
    "  data:\n    parent-kind: ConfigMap\n    parent-name: set1\n    parent-namespace: default\n"
)
MEMBER = (
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a, namespace: default}\n"
    "  data:\n    k: v\n"
)


def _applyset(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "krmfn-applyset-labeler")],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )


def _resource_list(out: str) -> dict[str, Any]:
    data = yaml.safe_load(out)
    assert isinstance(data, dict) and data["kind"] == "ResourceList", out
    assert isinstance(data["items"], list) and isinstance(data.get("results", []), list), out
    return data


def test_a_tag_directive_before_the_resource_list() -> None:
    text = "%TAG !e! tag:example.com,2000:\n---\n" + rl(MEMBER) + APPLYSET_CONFIG
    done = _applyset(text)
    assert done.returncode == 0, done.stdout
    data = _resource_list(done.stdout)
    member = next(item for item in data["items"] if item["metadata"]["name"] == "a")
    assert "applyset.kubernetes.io/part-of" in member["metadata"]["labels"]
    assert "%" not in done.stdout


def test_results_given_as_a_mapping_give_a_valid_resource_list() -> None:
    text = rl(MEMBER).replace("/v1\n", "/v1beta1\n", 1) + APPLYSET_CONFIG
    done = _applyset(text + "results:\n  status: ok\n")
    assert done.returncode == 0, done.stdout
    data = _resource_list(done.stdout)
    assert all(isinstance(result, dict) and "message" in result for result in data["results"])


def test_an_undefined_alias_in_one_item_is_refused_naming_it() -> None:
    bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n  data: *nothere\n"
    done = _applyset(rl(MEMBER + bad) + APPLYSET_CONFIG)
    assert done.returncode == 1
    data = _resource_list(done.stdout)
    [error] = [r for r in data["results"] if r["severity"] == "error"]
    assert error["message"].startswith("items[1]: ")
    assert "undefined alias 'nothere'" in error["message"]


@pytest.mark.kpt
def test_a_complex_key_is_an_error_result_naming_the_item(tmp_path: Path) -> None:
    package = tmp_path / "package"
    source = Path(__file__).parent.parent / "testdata/interface-expander/cni-mismatch/package"
    shutil.copytree(source, package)
    with (package / "interface-n6.yaml").open("a") as handle:
        handle.write("  weird:\n    ? [a, b]\n    : c\n")
    text = subprocess.run(
        ["kpt", "fn", "source", str(package)], capture_output=True, text=True, check=True
    ).stdout
    assert "? [a, b]" in text  # kpt reads the complex key and passes it on
    done = subprocess.run(
        [str(BIN / "krmfn-interface-expander")],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    data = YAML(typ="rt").load(done.stdout)  # PyYAML cannot hold a list as a key
    assert data["kind"] == "ResourceList"
    messages = [r["message"] for r in data["results"] if r["severity"] == "error"]
    assert any("complex key" in m and "Interface n6" in m for m in messages), messages
    assert not any("internal error" in m for m in messages), messages


# --- found by the layout oracle (tests/test_layout_oracle.py) --------------------------------------

# kpt gives each file's anchors their own names, PyYAML's and kyaml's pattern (id001, id002): a
# ResourceList holds the same name in many items, and an item may keep a scalar anchor id001
# beside a map anchor id002.
REUSED_ANCHORS = rl(
    "- apiVersion: v1\n"
    "  kind: ConfigMap\n"
    "  metadata:\n"
    "    name: &id001 first\n"
    "  data:\n"
    "    a: *id001\n"
    "- apiVersion: infra.nephio.org/v1alpha1\n"
    "  kind: Network\n"
    "  metadata:\n"
    "    name: &id001 vpc\n"
    "  spec:\n"
    "    routingTables:\n"
    "    - name: *id001\n"
    "      prefixes:\n"
    "      - prefix: 10.0.0.0/8\n"
    "        labels: &id002\n"
    "          kind: pool\n"
    "      - prefix: 10.1.0.0/16\n"
    "        labels: *id002\n"
    "    bridgeDomains:\n"
    "    - name: *id001\n"
)


def test_anchor_names_of_kpts_pattern_are_kept_when_written_again() -> None:
    """ruamel dropped map and list anchors named like its own (id002) and numbered them again
    from id001 on a dump: the Network's bridge domain then read the labels map as its name."""
    parsed = ResourceList.parse(REUSED_ANCHORS)
    parsed.items[1].set("metadata.labels", {"edited": "yes"})  # the item is written again
    out = ResourceList.parse(parsed.to_yaml())
    network = out.items[1]
    assert network.get("spec.bridgeDomains") == [{"name": "vpc"}]
    assert network.get("spec.routingTables")[0]["name"] == "vpc"
    assert network.get("spec.routingTables")[0]["prefixes"][1]["labels"] == {"kind": "pool"}
    assert out.items[0].get("data.a") == "first"


def test_reused_anchor_names_are_not_a_warning_on_stderr() -> None:
    done = subprocess.run(
        [str(BIN / "krmfn-applyset-labeler")],
        input=REUSED_ANCHORS
        + "functionConfig:\n  apiVersion: krmfn.dev/v1alpha1\n  kind: ApplySet\n"
        "  metadata:\n    name: s\n  spec:\n    parent: {kind: ConfigMap, namespace: prod}\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Warning" not in done.stderr, done.stderr


def test_a_crlf_file_of_several_documents_reads_as_its_lf_twin(tmp_path: Path) -> None:
    """The disk reader cut a file at its "---" lines only before a "\\n": a CRLF file was one
    document, refused ("but found another document"); kpt reads it as the LF file."""
    from krmlib._io.package import read_package

    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# b\n"
    text += "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n--- # end\n\n"
    (tmp_path / "lf").mkdir()
    (tmp_path / "crlf").mkdir()
    (tmp_path / "lf" / "cm.yaml").write_bytes(text.encode())
    (tmp_path / "crlf" / "cm.yaml").write_bytes(text.replace("\n", "\r\n").encode())
    lf = [o.to_dict() for o in read_package(tmp_path / "lf")]
    crlf = [o.to_dict() for o in read_package(tmp_path / "crlf")]
    assert [o["metadata"]["name"] for o in crlf] == ["a", "b"]
    assert crlf == lf


EMPTY_FLOW_ENTRY_ITEM = (
    "- apiVersion: v1 # c\r\n  # note\r\n  kind: ConfigMap # c\r\n  # note\r\n"
    "  metadata: {name: a} # c\r\n  # note\r\n  spec: # c\r\n    a: # c\r\n    - {}\r\n"
    "    - a\r\n    - a\r\n"
)


def test_an_edit_beside_an_empty_flow_entry_keeps_the_list_entries_apart() -> None:
    """The edit property's finding at 10,000 examples: ruamel's dump wrote ``- a -`` (two
    entries of a block list joined into one string) after a ``- {}`` entry of a list whose key
    has a line comment, once the item was written again (a flow ``metadata`` edited)."""
    parsed = ResourceList.parse(rl(EMPTY_FLOW_ENTRY_ITEM))
    parsed.items[0].set("metadata.labels.app", "web")
    out = parsed.to_yaml()
    item = _items(out)[0]
    assert item["spec"] == {"a": [{}, "a", "a"]}
    assert item["metadata"] == {"name": "a", "labels": {"app": "web"}}
    assert "# c" in out and "# note" in out  # the comments stay


@pytest.mark.parametrize(
    "text",
    [
        "a: # c\n- {}\n- a\n- b\n",
        "a: # c\n- []\n- a\n- b\n",
        "a: # c\n- {}\n- {}\n- a\n- b\n",
        "a: # c\n  - {}\n  - [x]\n  - b\n  - c: d\n",
        "a: # c\n- - {}\n  - a\n  - b\n",
    ],
)
def test_the_round_trip_dump_re_reads_to_what_it_was_given(text: str) -> None:
    node = _rt.load_rt(text)
    assert yaml.safe_load(_yaml.dump_rt(node)) == yaml.safe_load(text)


def test_a_dump_that_reads_differently_is_written_again_from_the_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The dump is read back before it is used: with ruamel's own emitter (the joined entries)
    the item is written again from its plain values, its data kept."""
    from ruamel.yaml.emitter import RoundTripEmitter

    monkeypatch.setattr(_rt._engine(), "Emitter", RoundTripEmitter)
    node = _rt.load_rt("a: # c\n- {}\n- a\n- b\n")
    assert _rt.dump(node) == "a: # c\n- {}\n- a -\n  b\n"  # what ruamel writes
    assert yaml.safe_load(_yaml.dump_rt(node)) == {"a": [{}, "a", "b"]}


def test_a_dump_that_never_reads_right_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from krmlib._base.errors import KrmError

    monkeypatch.setattr(_rt, "dump", lambda node: "a: [joined\n")
    with pytest.raises(KrmError, match=r"^ConfigMap a: the YAML writer would change this item"):
        _yaml.dump_rt(_rt.load_rt("kind: ConfigMap\nmetadata: {name: a}\n"))


@pytest.mark.parametrize(
    "text",
    [
        "a: 2020-01-01\nb: .nan\nc: 0o17\nd: True\ne: ~\nf: 1.5\ng: yes\n",
        "? [a, b]\n: 1\n",
        "a: !foo x\n",
        "<<: {a: 1}\nb: 2\n",
        "a: &x {b: 1}\nc: *x\n",
    ],
)
def test_values_the_plain_reader_cannot_compare_keep_their_comments(text: str) -> None:
    node = _rt.load_rt(text + "z: 1 # kept\n")
    assert "# kept" in _yaml.dump_rt(node)


def test_the_users_warning_filters_are_untouched_by_krmlib() -> None:
    """The reused-anchor warning is silenced for krmlib's own loads only: a program that uses
    krmlib keeps its warning filters, and its own ruamel loads still warn."""
    code = (
        "import warnings, ruamel.yaml\n"  # ruamel adds two filters of its own on import
        "before = list(warnings.filters)\n"
        "from krmlib import ResourceList\n"
        f"parsed = ResourceList.parse({REUSED_ANCHORS!r})\n"
        "parsed.items[1].set('metadata.labels', {'edited': 'yes'})\n"
        "parsed.to_yaml()\n"
        "assert warnings.filters == before, warnings.filters\n"
        "from ruamel.yaml import YAML\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    YAML().load('a: &x 1\\nb: &x 2\\n')\n"
        "assert any('duplicate anchor' in str(w.message) for w in seen), seen\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr, done.stderr


def test_a_label_set_after_every_item_was_read_sees_a_scalar_over_lines() -> None:
    """The splice asks whether a scalar goes on over lines once per text: an answer a scan gave
    is reused (labels read on every item, then set on each), a text the scans refused is
    asked again, so a quoted scalar over two lines is never taken for keys."""
    parsed = ResourceList.parse(rl(MULTILINE_ITEM + MULTILINE_ITEM.replace("name: a", "name: b")))
    for obj in parsed.items:
        assert dict(obj.labels) == {"app": "web"}
    for obj in parsed.items:
        obj.set("metadata.labels.tier", "db")
    for item in _items(parsed.to_yaml()):
        assert item["metadata"]["labels"] == {"app": "web", "tier": "db"}
        assert item["metadata"]["note"] == "starts here labels: inside the string"


MULTILINE_ITEM = (
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
    '    note: "starts here\n    labels: inside the string"\n    labels:\n      app: web\n'
)


def test_an_anchored_boolean_stays_a_boolean_in_an_edited_item() -> None:
    """The full oracle's finding (applyset-labeler/check-owner-controller-conflict, anchors
    layout, stdin): ruamel reads an anchored ``true`` as an int subclass, and an edited item
    gave ``controller: 1`` (the owner check then passed: exit 0 where the original exits 1)."""
    node = _rt.load_rt("a: &x true\nb: *x\nc: 1\n")
    from krmlib._yaml import engines as _yaml

    assert _yaml.to_plain(node) == {"a": True, "b": True, "c": 1}
    assert [type(v) for v in _yaml.to_plain(node).values()] == [bool, bool, int]
    assert yaml.safe_load(_yaml.dump_rt(node)) == {"a": True, "b": True, "c": 1}
