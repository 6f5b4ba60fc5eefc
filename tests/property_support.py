"""Helpers shared by the per-function property tests (tests/test_properties_*.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from krmlib import KubeObject, ResourceList
from krmlib._yaml import engines as _yaml
from tests.test_krmlib_properties import (
    COMMENTS,
    NAMES,
    VALUES,
    _scalar_text,
    items,
)

Identity = tuple[str, str, str, str, str]

SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


def identity(obj: KubeObject) -> Identity:
    """Who an item is: apiVersion, kind, namespace, name and file (subpackages repeat names)."""
    return (obj.api_version, obj.kind, obj.namespace, obj.name, obj.path or "")


def text_identity(text: str) -> Identity:
    return identity(KubeObject(src=text, form="item"))


def resource_list(texts: list[str], config: str = "") -> str:
    head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    return head + "".join(texts) + config


def output_items(out: str) -> dict[Identity, str]:
    return {identity(obj): obj.to_item() for obj in ResourceList.parse(out).items}


def without_results(out: str) -> str:
    return ResourceList.parse(out).to_yaml(with_results=False)


def result_key(result: dict[str, Any]) -> tuple[Any, ...]:
    ref = result.get("resourceRef") or {}
    file = result.get("file") or {}
    return (
        SEVERITY_RANK[result["severity"]],
        file.get("path", ""),
        file.get("index", -1),
        ref.get("apiVersion", ""),
        ref.get("kind", ""),
        ref.get("namespace", ""),
        ref.get("name", ""),
        (result.get("field") or {}).get("path", ""),
        result["message"],
    )


def results_of(out: str) -> list[dict[str, Any]]:
    results = _yaml.load_plain(out).get("results") or []
    assert isinstance(results, list)
    return results


@st.composite
def config_maps(draw: st.DrawFn) -> str:
    """An unrelated ConfigMap in kpt's layout, with comments and quoted values."""
    name = draw(NAMES)
    lines = [
        "- # an unrelated ConfigMap",
        "  apiVersion: v1",
        "  kind: ConfigMap",
        "  metadata:",
        f"    name: cm-{name}{draw(COMMENTS)}",
        "    annotations:",
        f"      config.kubernetes.io/path: 'config/cm-{name}.yaml'",
        "  data:",
    ]
    entries = draw(st.dictionaries(NAMES, VALUES, min_size=1, max_size=4))
    lines += [f"    {k}: {_scalar_text(v)}{draw(COMMENTS)}" for k, v in entries.items()]
    lines.append("    quoted: 'single # not a comment'")
    return "\n".join(lines) + "\n"


UNRELATED = st.lists(st.one_of(items(), config_maps()), max_size=4, unique_by=text_identity)


Run = Callable[[str], tuple[str, int]]


def assert_idempotent(run: Run, text: str) -> None:
    """Running twice equals running once (results aside)."""
    once, _ = run(text)
    twice, _ = run(once)
    assert without_results(twice) == without_results(once)


def assert_items_kept(run: Run, text: str) -> None:
    """Every input item is still there, in its order."""
    out, _ = run(text)
    before = [identity(o) for o in ResourceList.parse(text).items]
    after = [identity(o) for o in ResourceList.parse(out).items]
    assert set(before) <= set(after)
    assert [i for i in after if i in set(before)] == before


def assert_results_sorted_and_deterministic(run: Run, text: str) -> None:
    """The same input gives the same output; results are sorted; exit 1 exactly on errors."""
    first, code = run(text)
    second, code_again = run(text)
    assert (first, code) == (second, code_again)
    results = results_of(first)
    assert results == sorted(results, key=result_key)
    assert code == (1 if any(r["severity"] == "error" for r in results) else 0)
