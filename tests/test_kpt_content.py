"""kpt's rules of package content, compared with the real `kpt fn source` (1.0.0-beta.56).

Each tree exercises one rule of ``krmlib/_io/reader.py``: `.krmignore` at the root and at each
subpackage's root (gitignore syntax: anchored and unanchored names, folders, globs, `**`,
negation), hidden files and hidden folders (`.git` included: kpt skips nothing by name),
`*.json` files (read), symbolic links to files (read through) and to folders
(not followed), a `v1 List` document (one item), subpackages, and kpt's walk order. The trees
are written here; the rules were read in kyaml `kio/pkgio_reader.go` (`LocalPackageReader`,
`DefaultMatch`) and kpt `internal/pkg/pkg.go` (`.krmignore` per package), and the expected
output is whatever the binary gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from krmlib._io.package import package_files
from krmlib.packages import read_package
from krmlib.testing import kpt_source

pytestmark = pytest.mark.kpt

KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: {name}\n"


def cm(name: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def kpt_view(root: Path) -> list[tuple[str, str, str | None, dict[str, str]]]:
    """(kind, name, path, annotations without seqindent) of each item `kpt fn source` gives
    (read as plain YAML: a `v1 List` item has no name, which a ResourceList refuses)."""
    items = yaml.safe_load(kpt_source(root))["items"]
    out = []
    for item in items:
        metadata = item.get("metadata") or {}
        annotations = {
            k: str(v)
            for k, v in (metadata.get("annotations") or {}).items()
            if not k.endswith("/seqindent")
        }
        path = annotations.get("internal.config.kubernetes.io/path")
        out.append((item["kind"], metadata.get("name", ""), path, annotations))
    return out


def our_view(root: Path) -> list[tuple[str, str, str | None, dict[str, str]]]:
    return [
        (o.kind, o.name, o.path, {k: v for k, v in o.annotations.items()})
        for o in read_package(root)
    ]


def assert_as_kpt(root: Path) -> list[str]:
    theirs = kpt_view(root)
    ours = our_view(root)
    assert ours == theirs
    return [path or "" for _kind, _name, path, _ann in ours]


def test_krmignore_at_the_root_and_at_each_subpackage(tmp_path: Path) -> None:
    root = write(
        tmp_path / "pkg",
        {
            "Kptfile": KPTFILE.format(name="pkg"),
            ".krmignore": (
                "# a comment\n\nvalues.yaml\n/anchored.yaml\nsub/a.yaml\n*.yml\nd2/*\n"
                "!d2/two.yaml\n**/z.yaml\nkeep.yaml\n!sub/keep.yaml\nignored-dir/\n"
                "ignored-pkg\n"
            ),
            "values.yaml": cm("values"),
            "sub/values.yaml": cm("sub-values"),
            "sub/deep/values.yaml": cm("deep-values"),
            "a.yaml": cm("a"),
            "sub/a.yaml": cm("sub-a"),
            "keep.yaml": cm("keep"),
            "sub/keep.yaml": cm("sub-keep"),
            "x.yml": cm("x"),
            "d2/one.yaml": cm("one"),
            "d2/two.yaml": cm("two"),
            "sub/deep/z.yaml": cm("z"),
            "anchored.yaml": cm("anchored"),
            "sub/anchored.yaml": cm("sub-anchored"),
            "ignored-dir/i.yaml": cm("i"),
            "ignored-pkg/Kptfile": KPTFILE.format(name="ignored-pkg"),
            # A subpackage: its own .krmignore, and the root's rules do not reach inside it.
            "child/Kptfile": KPTFILE.format(name="child"),
            "child/.krmignore": "skip\n",
            "child/values.yaml": cm("child-values"),
            "child/skip/s.yaml": cm("child-skip"),
            "child/k.yaml": cm("child-k"),
        },
    )
    paths = assert_as_kpt(root)
    assert "child/values.yaml" in paths and "values.yaml" not in paths
    assert "d2/two.yaml" in paths and "d2/one.yaml" not in paths
    assert not any(p.startswith(("ignored-", "child/skip/")) for p in paths)


def test_hidden_entries_json_links_and_lists(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"target.yaml": cm("target"), "d/t.yaml": cm("t")})
    root = write(
        tmp_path / "pkg",
        {
            "Kptfile": KPTFILE.format(name="pkg"),
            ".hidden.yaml": cm("hidden-file"),
            ".hidden/h.yaml": cm("hidden-folder"),
            "sub/.deeper/x.yaml": cm("hidden-deeper"),
            ".git/g.yaml": cm("in-git"),
            "j.json": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "json"}}\n',
            "notes.txt": cm("txt"),
            "list.yaml": "apiVersion: v1\nkind: List\nitems:\n"
            + "- "
            + cm("in-list").replace("\n", "\n  ").rstrip(" "),
        },
    )
    (root / "link.yaml").symlink_to(outside / "target.yaml")
    (root / "linkdir").symlink_to(outside / "d")
    paths = assert_as_kpt(root)
    assert {".hidden.yaml", ".hidden/h.yaml", "sub/.deeper/x.yaml", ".git/g.yaml"} <= set(paths)
    assert "link.yaml" in paths and not any(p.startswith("linkdir") for p in paths)
    assert "j.json" in paths and "notes.txt" not in paths
    kinds = {path: kind for kind, _name, path, _ann in our_view(root)}
    assert kinds["list.yaml"] == "List"  # one item, not unwrapped


def test_walk_order_and_subpackages(tmp_path: Path) -> None:
    root = write(
        tmp_path / "pkg",
        {
            "Kptfile": KPTFILE.format(name="pkg"),
            "sub-a.yaml": cm("a"),
            "sub/x.yaml": cm("b"),
            "Sub.yaml": cm("c"),
            "sub.yaml": cm("d"),
            "sub/child/Kptfile": KPTFILE.format(name="child"),
            "sub/child/cm.yaml": cm("child") + "---\n" + cm("child-2"),
        },
    )
    assert_as_kpt(root)
    own = package_files(root, subpackages=False)
    assert "sub/x.yaml" in own and not any(p.startswith("sub/child/") for p in own)
