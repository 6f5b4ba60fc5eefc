"""The krmlib documentation keeps up with the code: every public name has its place in the API
reference (docs/api.rst; `make docs` then fails on a missing docstring), and krmlib/README.md
speaks to a function's author, not of this project's history."""

from __future__ import annotations

import re
from pathlib import Path

import krmlib

ROOT = Path(__file__).resolve().parent.parent
API = (ROOT / "docs" / "api.rst").read_text()
README = (ROOT / "krmlib" / "README.md").read_text()


def test_every_public_name_has_a_directive_in_the_reference() -> None:
    listed = re.findall(r"^\.\. auto(?:class|function|data):: krmlib\.(\w+)$", API, re.M)
    assert sorted(listed) == sorted(krmlib.__all__)


def test_the_pages_are_in_the_table_of_contents() -> None:
    index = (ROOT / "docs" / "index.rst").read_text()
    pages = {p.stem for p in (ROOT / "docs").glob("*.rst")} - {"index"}
    assert all(f"   {page}\n" in index for page in pages), pages


def test_the_readme_documents_the_members_a_function_author_meets() -> None:
    for name in ("to_yaml", "changed", "validate", "replace_all", "API_VERSION", "KIND"):
        assert f"`{name}" in README or f"{name}(" in README, name
    assert "KRMFN_DEBUG" in README and "golden_tests" in README and "--update-golden" in README


def test_the_readme_does_not_speak_of_internal_history() -> None:
    assert not re.search(r"issue \d+", README), re.findall(r".*issue \d+.*", README)
