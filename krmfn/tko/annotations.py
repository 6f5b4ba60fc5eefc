"""The ``nephio.org/*`` annotations of TKO, their values, and how a merge moves them."""

from __future__ import annotations

from krmlib import KrmError, KubeObject

PREPARED = "nephio.org/prepared"
PREPARE = "nephio.org/prepare"
METADATA = "nephio.org/metadata"
MERGE = "nephio.org/merge"
RENAME = "nephio.org/rename"
APPROVE = "nephio.org/approve"
APPROVED = "nephio.org/approved"

TRUE = "true"

# nephio.org/prepare and nephio.org/metadata
HERE = "Here"
POSTPONE = "Postpone"
NEVER = "Never"
PLACES = (HERE, POSTPONE, NEVER)

# nephio.org/merge
OVERRIDE = "Override"
REPLACE = "Replace"

# nephio.org/approve
DEFAULT = "Default"
AUTO = "Auto"
MANUAL = "Manual"
APPROVE_MODES = (DEFAULT, AUTO, MANUAL)


def annotation_field(key: str) -> str:
    """The field path of an annotation, for results."""
    return f'metadata.annotations["{key}"]'


def is_prepared(obj: KubeObject) -> bool:
    """``nephio.org/prepared: "true"`` (any other value, or none, means not prepared)."""
    return obj.annotations.get(PREPARED) == TRUE


def is_approved(obj: KubeObject) -> bool:
    return obj.annotations.get(APPROVED) == TRUE


def clear_marks(obj: KubeObject) -> None:
    """Remove ``nephio.org/prepared`` and ``nephio.org/approved`` (a new deployment is neither)."""
    for key in (PREPARED, APPROVED):
        if key in obj.annotations:
            del obj.annotations[key]


def prepare_mode(obj: KubeObject) -> str:
    """Where the resource is prepared: ``Here`` when the annotation is absent (as TKO), else
    its value as written (``""`` is not ``Here``: such a resource is not preparable)."""
    value = obj.annotations.get(PREPARE)
    return HERE if value is None else value


def approve_mode(obj: KubeObject) -> str:
    """``Auto``, ``Manual`` or ``Default`` (also when absent); anything else is an error."""
    value = obj.annotations.get(APPROVE)
    if value is None or value == "":
        return DEFAULT
    if value not in APPROVE_MODES:
        raise KrmError(
            f"{APPROVE} is {value!r}: expected {AUTO}, {MANUAL} or {DEFAULT} (case-sensitive)",
            obj=obj,
            field=annotation_field(APPROVE),
        )
    return value


def moved_on(obj: KubeObject, key: str) -> str | None:
    """The value of ``nephio.org/prepare`` or ``nephio.org/metadata`` once the resource is
    merged out of its package (TKO's move): ``Postpone`` → ``Here``, ``Here`` or ``""`` →
    ``Never`` (it was used here already), ``Never`` stays; absent stays absent (None)."""
    value = obj.annotations.get(key)
    if value is None:
        return None
    if value in (HERE, ""):
        return NEVER
    if value == POSTPONE:
        return HERE
    if value == NEVER:
        return NEVER
    raise KrmError(
        f"{key} is {value!r}: expected {HERE}, {POSTPONE} or {NEVER} (case-sensitive)",
        obj=obj,
        field=annotation_field(key),
    )
