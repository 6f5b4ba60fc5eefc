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
    import krmlib.packages

    listed = re.findall(r"^\.\. auto(?:class|function|data):: krmlib\.(\w+)$", API, re.M)
    assert sorted(listed) == sorted(krmlib.__all__)
    tooling = re.findall(r"^\.\. auto(?:class|function|data):: krmlib\.packages\.(\w+)$", API, re.M)
    assert sorted(tooling) == sorted(krmlib.packages.__all__)


def test_the_pages_are_in_the_table_of_contents() -> None:
    index = (ROOT / "docs" / "index.rst").read_text()
    pages = {p.stem for p in (ROOT / "docs").glob("*.rst")} - {"index"}
    assert all(f"   {page}\n" in index for page in pages), pages


def test_the_readme_documents_the_members_a_function_author_meets() -> None:
    for name in ("to_yaml", "changed", "validate", "replace_all", "API_VERSION", "KIND"):
        assert f"`{name}" in README or f"{name}(" in README, name
    assert "KRMLIB_DEBUG" in README and "golden_tests" in README and "--update-golden" in README


def test_the_readme_does_not_speak_of_internal_history() -> None:
    assert not re.search(r"issue \d+", README), re.findall(r".*issue \d+.*", README)


def test_every_public_name_and_member_has_a_docstring() -> None:
    """autodoc leaves out a member without one: ``Results.error`` would be missing."""
    import inspect

    missing = []
    for name in krmlib.__all__:
        value = getattr(krmlib, name)
        if not inspect.isclass(value):
            if callable(value) and not (value.__doc__ or "").strip():
                missing.append(name)
            continue
        if not (value.__doc__ or "").strip():
            missing.append(name)
        for attr, member in vars(value).items():
            if attr.startswith("_"):
                continue
            target = member.fget if isinstance(member, property) else member
            target = getattr(target, "__func__", target)
            if (callable(target) or isinstance(member, property)) and not (
                getattr(target, "__doc__", None) or ""
            ).strip():
                missing.append(f"{name}.{attr}")
    assert missing == []


def test_the_reference_shows_the_calls_that_report_results() -> None:
    assert ".. autoclass:: krmlib.Results\n" in API
    block = API.split(".. autoclass:: krmlib.Results\n", 1)[1].split("\n..", 1)[0]
    assert ":no-members:" not in block
    for method in ("error", "warning", "info"):
        assert (getattr(krmlib.Results, method).__doc__ or "").strip(), method
