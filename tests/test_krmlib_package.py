"""krmlib._io.package: kpt packages on disk (read, write back, kpt-internal annotations) and the
confinement of the files a config names."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import krmlib._io.package as package_module
from krmlib import KrmError, KubeObject, ResourceList, check_relative_path, read_named_file
from krmlib._io import tree as _tree
from krmlib._model.storage import of
from krmlib._yaml import engines as _yaml
from krmlib.packages import (
    ALLOW_READ_ENV,
    Package,
    check_readable,
    command_read_root,
    is_kpt_internal,
    package_tree_root,
    read_file_text,
    read_package,
    safe_target,
    without_annotations,
    without_kpt_internal,
    write_package,
)
from krmlib.testing import kpt_source

KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n"
RESOURCES = """\
# a comment kept byte for byte
apiVersion: v1
kind: ConfigMap
metadata:
  name: one   # inline
data: {a: '1'}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: two
"""


def make_package(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "Kptfile").write_text(KPTFILE)
    (root / "resources.yaml").write_text(RESOURCES)
    (root / "sub").mkdir()
    (root / "sub" / "Kptfile").write_text(KPTFILE.replace("pkg", "sub"))
    (root / "sub" / "cm.yml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "x.yaml").write_text(  # kpt reads hidden folders
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hidden\n"
    )
    (root / "notes.txt").write_text("not a resource file\n")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_one_list_of_kpt_internal_annotations() -> None:
    for key in (
        "config.kubernetes.io/path",
        "config.kubernetes.io/index",
        "config.k8s.io/id",
        "internal.config.kubernetes.io/path",
        "internal.config.kubernetes.io/index",
        "internal.config.kubernetes.io/id",
        "internal.config.kubernetes.io/seqindent",
        "internal.config.kubernetes.io/package-path",
        "internal.config.kubernetes.io/annotations-migration-resource-id",
        "internal.config.k8s.io/kpt-resource-id",
    ):
        assert is_kpt_internal(key), key
    for key in ("config.kubernetes.io/local-config", "config.kubernetes.io/depends-on", "a/b"):
        assert not is_kpt_internal(key), key


@pytest.mark.kpt
def test_read_package_gives_the_annotations_kpt_gives(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    ours = read_package(root)
    assert any(o.path == ".hidden/x.yaml" for o in ours)  # kpt reads hidden folders
    theirs = ResourceList.parse(kpt_source(root)).items
    assert [(o.kind, o.name) for o in ours] == [(o.kind, o.name) for o in theirs]
    for mine, kpt in zip(ours, theirs, strict=True):
        wanted = {k: v for k, v in kpt.annotations.items() if not k.endswith("/seqindent")}
        assert dict(mine.annotations) == wanted


def test_own_files_only_and_package_path(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    own = read_package(root, subpackages=False, package_path=True)
    assert [o.path for o in own] == [
        ".hidden/x.yaml",
        "Kptfile",
        "resources.yaml",
        "resources.yaml",
    ]
    assert {o.package_path for o in own} == {str(root.resolve())}


def test_a_quick_look_reads_the_same_documents_without_annotations(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    annotated = read_package(root, subpackages=False)
    plain = read_package(root, subpackages=False, annotate=False)
    assert [(o.kind, o.name) for o in plain] == [(o.kind, o.name) for o in annotated]
    assert all(o.path is None and o.package_path is None for o in plain)
    for quick, full in zip(plain, annotated, strict=True):
        assert quick.get("spec") == full.get("spec")
        kept = {k: v for k, v in full.annotations.items() if not package_module.is_kpt_internal(k)}
        assert dict(quick.annotations) == kept


def test_write_back_unchanged_touches_nothing(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    before = snapshot(root)
    pkg = Package.read(root)
    assert pkg.write(pkg.items) == []
    assert snapshot(root) == before


def test_write_back_one_change_rewrites_only_that_file(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    pkg = Package.read(root)
    two = next(o for o in pkg.items if o.name == "two")
    two.labels["x"] = "z"
    assert pkg.write(pkg.items) == ["resources.yaml"]
    text = (root / "resources.yaml").read_text()
    assert text.startswith("# a comment kept byte for byte\n")  # the unchanged document as is
    assert "name: one   # inline" in text and "x: z" in text
    assert "config.kubernetes.io" not in text  # no kpt bookkeeping on disk


def test_write_new_file_and_remove_an_emptied_one(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    pkg = Package.read(root)
    kept = [o for o in pkg.items if o.path != "sub/cm.yml"]
    new = KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}})
    new.set_path("new/cm.yaml")
    assert pkg.write([*kept, new]) == ["new/cm.yaml", "sub/cm.yml"]
    assert not (root / "sub/cm.yml").exists()
    assert (root / "new/cm.yaml").read_text().startswith("apiVersion: v1\n")


def test_without_kpt_internal_keeps_user_annotations() -> None:
    obj = read_documents_one("metadata:\n  annotations:\n    a: b\n")
    obj.set_path("x.yaml")
    obj.annotations["config.k8s.io/id"] = "1"
    assert dict(without_kpt_internal(obj).annotations) == {"a": "b"}


ANNOTATED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  annotations:
    keep: {keep}
    nephio.org/rename: other{gap}# dropped with its comment
    nephio.org/prepare: {prepare}{comment}
data:
  a: b  # a comment the edit leaves alone
"""


def round_trip(obj: KubeObject, drop: set[str], values: dict[str, str]) -> KubeObject:
    """What without_annotations stands for: a copy edited through the round trip."""
    copy = obj.copy()
    for key in [k for k in copy.annotations if k in drop]:
        del copy.annotations[key]
    for key, value in values.items():
        if key in copy.annotations:
            copy.annotations[key] = value
    return copy


@pytest.mark.parametrize("keep", ["v", "'quoted'", '"true"', "a.b/c"])
@pytest.mark.parametrize("gap", [" ", "      "])
@pytest.mark.parametrize("prepare", ["Here", "'Here'", '"Postpone"', "x"])
@pytest.mark.parametrize("comment", ["", " # moved", "          # far"])
@pytest.mark.parametrize("value", ["Never", "Here", "Postponed-much-longer"])
def test_without_annotations_edits_the_text_as_the_round_trip_writes_it(
    keep: str, gap: str, prepare: str, comment: str, value: str
) -> None:
    """Lines cut and values replaced in the text give the bytes the round trip gives (quotes
    kept, a line comment at its column or one space after a value that reaches it), and
    the text path is taken (no round-trip tree)."""
    text = ANNOTATED.format(keep=keep, gap=gap, prepare=prepare, comment=comment)
    obj = KubeObject.from_yaml(text)
    drop, values = {"nephio.org/rename"}, {"nephio.org/prepare": value, "absent": "x"}
    edited = without_annotations(obj, drop.__contains__, values)
    assert edited.to_yaml() == round_trip(obj, drop, values).to_yaml()
    assert of(edited).node is None and "absent" not in edited.annotations
    assert obj.to_yaml() == text  # the original is left alone


@pytest.mark.parametrize(
    "annotations",
    [
        "    only: one\n",  # every annotation dropped: the map stays, empty
        "    only: one\n    # a comment line in the block\n    keep: v\n",
        "    only: |\n      block\n    keep: v\n",
        "    only: one\n    keep: [flow]\n",
    ],
)
def test_without_annotations_takes_the_round_trip_for_other_layouts(annotations: str) -> None:
    text = "apiVersion: v1\nkind: X\nmetadata:\n  name: n\n  annotations:\n" + annotations
    obj = KubeObject.from_yaml(text)
    edited = without_annotations(obj, {"only"}.__contains__)
    assert edited.to_yaml() == round_trip(obj, {"only"}, {}).to_yaml()
    assert "only" not in edited.annotations


def test_without_annotations_with_nothing_to_do_is_a_copy_of_the_text() -> None:
    obj = KubeObject.from_yaml(ANNOTATED.format(keep="v", gap=" ", prepare="Here", comment=""))
    copy = without_annotations(obj, lambda key: False, {"nephio.org/prepare": "Here"})
    assert copy is not obj and copy.to_yaml() == obj.to_yaml()
    copy.annotations["new"] = "1"
    assert "new" not in obj.annotations


@pytest.mark.parametrize(
    "metadata",
    [
        "metadata:\n  name: n\n",
        "metadata:\n  name: n\n  annotations:\n    a: b  # c\n",
        "metadata:\n  name: n\n  annotations:\n    a: b\n  # a trailing comment\n",
        "metadata:\n  name: n\n  annotations: {a: b}\n",
        "metadata:\n  name: n\n  labels:\n    x: y\n\n# between\n",
        "metadata:\n  name: n\n  annotations:\n    config.kubernetes.io/index: '7'\n",
    ],
)
@pytest.mark.parametrize("rel", ["cm.yaml", "sub/dir/cm.yml", "with space.yaml", "0.yaml"])
def test_reading_annotates_in_one_edit_as_the_splicer_does_in_four(metadata: str, rel: str) -> None:
    """The location annotations kpt gives an item on read: written in one text edit, the same
    bytes as setting the four one after the other."""
    text = f"apiVersion: v1\nkind: ConfigMap\n{metadata}data:\n  k: v\n"
    fast, slow = KubeObject.from_yaml(text), KubeObject.from_yaml(text)
    _tree.annotate(fast, rel, 3, None)
    for key, value in [
        ("internal.config.kubernetes.io/path", rel),
        ("config.kubernetes.io/path", rel),
        ("internal.config.kubernetes.io/index", "3"),
        ("config.kubernetes.io/index", "3"),
    ]:
        slow.annotations[key] = value
    assert fast.to_yaml() == slow.to_yaml()
    assert fast.path == rel and fast.annotations["config.kubernetes.io/index"] == "3"


def read_documents_one(extra: str) -> KubeObject:
    return KubeObject.from_yaml(
        "apiVersion: v1\nkind: ConfigMap\n" + extra.replace("metadata:\n", "metadata:\n  name: c\n")
    )


@pytest.mark.parametrize(
    "value",
    [
        '"\\x2e\\x2e/escaped.yaml"',  # an escape sequence decoding to ../
        "&a ../anchored.yaml",  # an anchor before the value
        '"../folded\n      .yaml"',  # a continuation line
        '"a\\\\b.yaml"',  # a backslash
        '"nul\\0.yaml"',  # NUL
        "/etc/absolute.yaml",
        "C:drive.yaml",
        "..",
    ],
)
def test_path_annotations_are_checked_decoded(value: str) -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n"
        f"    internal.config.kubernetes.io/path: {value}\n"
    )
    with pytest.raises(KrmError, match="path"):
        ResourceList.parse(text)


def test_flow_map_path_annotation_is_checked() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, annotations: "
        '{"config.kubernetes.io/path": "sub/../../x.yaml"}}\n'
    )
    with pytest.raises(KrmError, match="leaves the package"):
        ResourceList.parse(text)


def test_check_relative_path_normalises_clean_paths() -> None:
    assert check_relative_path("a/./b/../c.yaml") == "a/c.yaml"


def test_write_refuses_a_symlink_leaving_the_package(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    with pytest.raises(KrmError, match="symbolic link"):
        safe_target(root, "link/x.yaml")
    obj = KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}})
    obj.set_path("link/x.yaml")
    with pytest.raises(KrmError, match="symbolic link"):
        write_package(root, [obj])
    assert list(outside.iterdir()) == []
    (root / "file-link.yaml").symlink_to(outside / "target.yaml")
    with pytest.raises(KrmError, match="symbolic link"):
        safe_target(root, "file-link.yaml")


def test_symlinked_files_are_read_through_as_kpt_reads_them(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    secret = tmp_path / "secret.yaml"
    secret.write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n")
    (root / "secret.yaml").symlink_to(secret)
    assert [o.path for o in read_package(root) if o.kind == "Secret"] == ["secret.yaml"]


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(KrmError, match="not a regular file"):
        read_file_text(fifo)


def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KrmError, match="not a regular file"):
        read_file_text(Path("/dev/null"))


def test_a_file_over_the_cap_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("x" * 100)
    monkeypatch.setattr(_yaml, "MAX_INPUT", 10)
    with pytest.raises(KrmError, match="over the input cap"):
        read_file_text(big)


def test_named_files_are_confined_to_the_roots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ALLOW_READ_ENV, raising=False)
    root = make_package(tmp_path / "pkg")
    outside = tmp_path / "outside.yaml"
    outside.write_text("a: b\n")
    (root / "inside.yaml").write_text("c: d\n")
    assert read_named_file(root / "inside.yaml", [root], "input") == "c: d\n"
    with pytest.raises(KrmError, match=f"outside .*{ALLOW_READ_ENV}="):
        read_named_file(root / "../outside.yaml", [root], "input")
    (root / "sneaky.yaml").symlink_to(outside)  # a link inside pointing outside
    with pytest.raises(KrmError, match="outside"):
        read_named_file(root / "sneaky.yaml", [root], "input")
    monkeypatch.setenv(ALLOW_READ_ENV, str(tmp_path))  # the person running opts in
    assert read_named_file(root / "sneaky.yaml", [root], "input") == "a: b\n"


def test_command_root_allows_reads_below_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ALLOW_READ_ENV, raising=False)
    (tmp_path / "f.yaml").write_text("a: b\n")
    with pytest.raises(KrmError):
        check_readable(tmp_path / "f.yaml", [tmp_path / "pkg"], "file")
    with command_read_root(tmp_path):
        assert check_readable(tmp_path / "f.yaml", [tmp_path / "pkg"], "file").is_file()


def test_proc_is_refused_even_when_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ALLOW_READ_ENV, "/")
    with pytest.raises(KrmError, match="special file system"):
        read_named_file(Path("/proc/self/environ"), [Path("/")], "file")


def test_package_tree_root_follows_the_kptfile_chain(tmp_path: Path) -> None:
    root = make_package(tmp_path / "pkg")
    deeper = root / "sub" / "deeper"
    deeper.mkdir()
    (deeper / "Kptfile").write_text(KPTFILE)
    assert package_tree_root(deeper) == root.resolve()
    assert package_tree_root(tmp_path) == tmp_path.resolve()


def test_no_open_file_left_behind_by_a_refused_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for _ in range(50):
        with pytest.raises(KrmError):
            read_file_text(fifo)
    fds = subprocess.run(["ls", f"/proc/{os.getpid()}/fd"], capture_output=True, text=True)
    assert len(fds.stdout.split()) < 40


@pytest.mark.parametrize(
    "text",
    [
        # an alias as the value: the item is decoded whole
        "apiVersion: v1\nkind: ConfigMap\ndata: {k: &p ../x.yaml}\nmetadata:\n  name: x\n"
        "  annotations:\n    internal.config.kubernetes.io/path: *p\n",
        # a merge key bringing the annotation from an anchored mapping
        "apiVersion: v1\nkind: ConfigMap\ndata: &b {config.kubernetes.io/path: ../x.yaml}\n"
        "metadata:\n  name: x\n  annotations:\n    <<: *b\n",
        # not a string at all
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n"
        "    config.kubernetes.io/path: {a: ../b}\n",
    ],
    ids=["alias", "merge-key", "mapping"],
)
def test_path_annotations_behind_aliases_and_merge_keys_are_checked(text: str) -> None:
    with pytest.raises(KrmError, match="path"):
        ResourceList.parse(text)


def test_a_path_annotation_elsewhere_in_an_item_is_data() -> None:
    """Only the item's own metadata.annotations name its file: the same key in data is data."""
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n"
        "    config.kubernetes.io/path: cm.yaml\ndata:\n  config.kubernetes.io/path: ../data\n"
    )
    rl = ResourceList.parse(text)
    assert rl.items[0].path == "cm.yaml"
