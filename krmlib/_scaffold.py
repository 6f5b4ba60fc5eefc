"""``krmlib new``: a new function project from templates (private: the command is the API)."""

from __future__ import annotations

from pathlib import Path


class ScaffoldError(Exception):
    """A project cannot be created (bad name, target not empty)."""


def new_project(name: str, target: Path) -> list[Path]:
    raise ScaffoldError("not yet")
