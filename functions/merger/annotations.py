"""The nephio.org annotations a merge reads and moves (kpt's internal ones: ``krmlib``)."""

from __future__ import annotations

from krmlib import KrmError, KubeObject

MERGE = "nephio.org/merge"
RENAME = "nephio.org/rename"
PREPARE = "nephio.org/prepare"

OVERRIDE = "Override"
REPLACE = "Replace"
MERGE_MODES = (OVERRIDE, REPLACE)

HERE = "Here"
POSTPONE = "Postpone"
NEVER = "Never"
PREPARE_MOVES = {POSTPONE: HERE, HERE: NEVER, NEVER: NEVER}

# The merge-control annotations steer one merge and are not carried into its result.
CONTROL = (MERGE, RENAME)


def field(key: str) -> str:
    return f'metadata.annotations["{key}"]'


def merge_mode(obj: KubeObject) -> str:
    """``Override`` (also when absent) or ``Replace``; anything else is an error."""
    value = obj.annotations.get(MERGE)
    if value is None or value == "":
        return OVERRIDE
    if value not in MERGE_MODES:
        raise KrmError(
            f"{MERGE} is {value!r}: expected {OVERRIDE} or {REPLACE} (case-sensitive)",
            obj=obj,
            field=field(MERGE),
        )
    return value


def moved_prepare(obj: KubeObject) -> str | None:
    """The ``nephio.org/prepare`` value after leaving a package: Postpone→Here, Here→Never."""
    value = obj.annotations.get(PREPARE)
    if value is None:
        return None
    if value not in PREPARE_MOVES:
        raise KrmError(
            f"{PREPARE} is {value!r}: expected {HERE}, {POSTPONE} or {NEVER} (case-sensitive)",
            obj=obj,
            field=field(PREPARE),
        )
    return PREPARE_MOVES[value]
