"""Selectors with the Kptfile's schema: AND within an entry, OR across entries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .object import KubeObject


class Selector(BaseModel):
    """One selector entry: every given field must match (``apiVersion kind name namespace labels
    annotations``, as in a Kptfile's ``selectors``/``exclude``)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid", defer_build=True)

    api_version: str | None = Field(default=None, alias="apiVersion")
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)

    def matches(self, obj: KubeObject) -> bool:
        if self.api_version is not None and obj.api_version != self.api_version:
            return False
        if self.kind is not None and obj.kind != self.kind:
            return False
        if self.name is not None and obj.name != self.name:
            return False
        if self.namespace is not None and obj.namespace != self.namespace:
            return False
        if self.labels:
            labels = obj.labels
            if any(labels.get(k) != v for k, v in self.labels.items()):
                return False
        if self.annotations:
            annotations = obj.annotations
            if any(annotations.get(k) != v for k, v in self.annotations.items()):
                return False
        return True


def parse_selectors(raw: Sequence[Mapping[str, Any]] | None) -> list[Selector]:
    return [Selector.model_validate(dict(entry)) for entry in raw or []]


def select(
    objects: Iterable[KubeObject],
    selectors: Sequence[Selector] = (),
    exclude: Sequence[Selector] = (),
) -> list[KubeObject]:
    """Objects matched by any selector (all when there are none) and by no exclude entry."""
    return [
        obj
        for obj in objects
        if (not selectors or any(s.matches(obj) for s in selectors))
        and not any(e.matches(obj) for e in exclude)
    ]
