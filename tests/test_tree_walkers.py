"""One walker of package trees (issue 41): the number of tree walkers cannot grow back.

Every tree command lists a package tree through ``krmlib/_io/treefs.py`` (``walk_tree``,
``kptfile_folders``, ``entries``), which states the rules of SECURITY.md once (no links, no
hidden entries, regular files, the size cap, an unlistable folder an error), and kpt's own
rules beside them (``entries(kpt=True)``: what ``package_files`` reads). In krmfn only the
template copy (``krmfn/merger/package.py``: it refuses a link instead of leaving it out) walks
a tree itself. The counts below are the "Done when" row of the issue: 7 walkers in krmfn before,
at most 2 (packages; copying) after.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WALKER = re.compile(r"\bos\.walk\(|\.rglob\(|\bscandir\(")  # the count
HIDDEN_RULE = re.compile(r"""startswith\(\s*["']\.["']\s*\)""")


def _walkers(package: str, pattern: re.Pattern[str] = WALKER) -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        count = sum(1 for line in text.splitlines() if pattern.search(line.split("#")[0]))
        if count:
            found[path.relative_to(ROOT).as_posix()] = count
    return found


def test_krmfn_walks_no_tree_but_the_template_copy() -> None:
    found = _walkers("krmfn")
    assert found == {"krmfn/merger/package.py": 1}
    assert sum(found.values()) <= 2


def _line(rel: str) -> str:
    return "\n".join(
        line
        for line in (ROOT / rel).read_text(encoding="utf-8").splitlines()
        if WALKER.search(line)
    )


def test_krmlib_lists_a_package_tree_in_one_place() -> None:
    """The only ``scandir`` of krmlib is ``_treefs.entries`` (both rule sets); the other
    walkers are the atomic writer's own (its temporary files, crash leftovers), the scaffold's
    templates shipped in the wheel and the test helper's ``read_tree``."""
    found = _walkers("krmlib")
    assert found == {
        "krmlib/_io/atomic.py": 3,
        "krmlib/_io/scaffold.py": 1,
        "krmlib/_io/treefs.py": 1,
        "krmlib/testing.py": 1,
    }
    assert "scandir" in _line("krmlib/_io/treefs.py")


def test_the_hidden_rule_is_stated_once() -> None:
    """A name starting with ``.`` is hidden in one function (``_treefs.is_hidden``); the
    atomic writer's own temporary names are its other use of the prefix."""
    assert _walkers("krmfn", HIDDEN_RULE) == {}
    assert _walkers("krmlib", HIDDEN_RULE) == {"krmlib/_io/atomic.py": 3, "krmlib/_io/treefs.py": 1}


def test_the_count_is_not_vacuous(tmp_path: Path) -> None:
    sample = "for a, b, c in os.walk(root):\n    pass\nx = list(p.rglob('*'))  # os.walk(\n"
    assert sum(1 for line in sample.splitlines() if WALKER.search(line.split("#")[0])) == 2


def test_the_former_walkers_keep_the_tree_rules(tmp_path: Path) -> None:
    """prepare-all's fingerprints and ``krmfn specialize --check``'s snapshot walked trees
    themselves: they read through links and saw hidden files. Through krmlib's walker they see
    what every tree command sees."""
    from krmfn.ipam_allocator.specialize import _files
    from krmfn.preparer.prepare_all import fingerprint

    outside = tmp_path / "outside.yaml"
    outside.write_text("secret: 1\n")
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\n")
    (tree / "sub" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    (tree / ".hidden.yaml").write_text("a: 1\n")
    (tree / "link.yaml").symlink_to(outside)
    (tree / "linked").symlink_to(tmp_path, target_is_directory=True)
    assert sorted(_files(tree)) == ["Kptfile", "sub/cm.yaml"]
    assert [Path(name).relative_to(tree).as_posix() for name, _, _ in fingerprint(tree)] == [
        "Kptfile",
        "sub/cm.yaml",
    ]
