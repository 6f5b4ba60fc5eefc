"""The preparer does bounded work on many preparable resources (issue 37, item 5).

Each pass asked, for every target and every preparer of it, whether the target was still in the
package by scanning the whole item list: a package of N preparable resources walked about 3 x N²
items (8,000 waiting Sites took 3.9 s of CPU, 2,000 took 0.6 s). The question is now a lookup in
the items' ids, taken again only when the list changed. These tests count the items walked (no
clock): they grow with N, not with its square, and the answers stay the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from krmfn.preparer import Config, process
from krmlib import Items, KubeObject
from krmlib.testing import run_text


def _sites(count: int) -> str:
    """``count`` topology Sites, each waiting (its selector matches no catalog site)."""
    items = "".join(
        "- apiVersion: topology.nephio.org/v1alpha1\n  kind: Site\n"
        f"  metadata:\n    name: s{i}\n"
        "    annotations:\n"
        f"      config.kubernetes.io/path: 'topology-{i // 100}.yaml'\n"
        f"      config.kubernetes.io/index: '{i % 100}'\n"
        "  spec:\n    select:\n      metadata:\n        Site.region: atlantis\n"
        for i in range(count)
    )
    return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items


def _run(count: int, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], int]:
    """The preparer in this process on ``count`` waiting Sites: (its output, the items walked
    by every iteration over an item list)."""
    walked = [0]
    real = Items.__iter__

    def counting(self: Items) -> Iterator[KubeObject]:
        walked[0] += len(self)
        return real(self)

    monkeypatch.setattr(Items, "__iter__", counting)
    out, code = run_text(process, Config, _sites(count))
    assert code == 0, out[-2000:]
    return yaml.load(out, Loader=yaml.CSafeLoader), walked[0]


def test_the_items_walked_grow_linearly_with_the_preparable_resources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small_out, small = _run(200, monkeypatch)
    large_out, large = _run(800, monkeypatch)
    # 4x the resources: 4x the walk, with room for a per-run constant (before: 16x)
    assert large <= 4.5 * small, (small, large)
    for out, count in ((small_out, 200), (large_out, 800)):
        messages = [r["message"] for r in out["results"]]
        assert messages == ["waiting: no catalog site matches Site.region=atlantis"] * count
        assert {r["resourceRef"]["name"] for r in out["results"]} == {f"s{i}" for i in range(count)}
