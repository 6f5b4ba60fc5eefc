"""metav1.LabelSelector: checking one (with field paths) and matching labels against it.

``matchLabels`` and ``matchExpressions`` are ANDed; operators ``In``, ``NotIn``, ``Exists``,
``DoesNotExist`` (``In``/``NotIn`` need values, the other two take none), as in Kubernetes.
Keys and values follow Kubernetes' label rules: Porch parses the selector with
``metav1.LabelSelectorAsSelector`` (controllers/packagevariantsets/.../
packagevariantset_controller.go ``unrollDownstreamTargets``, porch 74d82d5), and a selector it
cannot parse stalls the whole PackageVariantSet, so a bad key or value is an error here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from krmlib import format_path

from .naming import name_problem

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")

Problem = tuple[str, str]  # (field path, message)


def check_selector(selector: Any, path: str) -> list[Problem]:
    """What is wrong with a selector, as (field path, message) pairs; [] when it is usable.

    An empty selector (no ``matchLabels`` and no ``matchExpressions``) is a problem: Porch would
    fan the package out to every repository.
    """
    if selector is None or selector == {}:
        return [(path, "the selector is empty: it would match every repository (cluster)")]
    if not isinstance(selector, dict):
        return [(path, "must be a label selector (matchLabels, matchExpressions)")]
    problems: list[Problem] = []
    unknown = sorted(str(k) for k in selector if k not in ("matchLabels", "matchExpressions"))
    problems.extend((f"{path}.{key}", "unknown field of a label selector") for key in unknown)
    labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not isinstance(labels, dict):
        problems.append((f"{path}.matchLabels", "must be a map of label keys to values"))
        labels = {}
    for key, value in labels.items():
        problems.extend(_label_problems(key, f"{path}.matchLabels", value))
    if not isinstance(expressions, list):
        problems.append((f"{path}.matchExpressions", "must be a list"))
        expressions = []
    for index, expr in enumerate(expressions):
        problems.extend(_check_expression(expr, f"{path}.matchExpressions[{index}]"))
    if not labels and not expressions and not problems:
        problems.append((path, "the selector is empty: it would match every repository (cluster)"))
    return problems


def _check_expression(expr: Any, path: str) -> list[Problem]:
    if not isinstance(expr, dict):
        return [(path, "must be a map with key, operator and values")]
    problems: list[Problem] = []
    key = expr.get("key")
    if not isinstance(key, str) or not key:
        problems.append((f"{path}.key", "required field is missing"))
    else:
        problems.extend(_key_problems(key, f"{path}.key"))
    operator = expr.get("operator")
    values = expr.get("values")
    if operator not in OPERATORS:
        problems.append(
            (f"{path}.operator", f"must be one of {', '.join(OPERATORS)}, not {_json(operator)}")
        )
    elif operator in ("In", "NotIn"):
        if not isinstance(values, list) or not values:
            problems.append((f"{path}.values", f"operator {operator} needs a non-empty list"))
        elif not all(isinstance(v, str) for v in values):
            problems.append((f"{path}.values", "values must be strings"))
        else:
            for index, value in enumerate(values):
                problem = name_problem("label-value", value)
                if problem is not None:
                    problems.append((f"{path}.values[{index}]", f"{_UNPARSABLE}value {problem}"))
    elif values:
        problems.append((f"{path}.values", f"operator {operator} takes no values"))
    return problems


_UNPARSABLE = "Porch cannot parse this selector (and would stall the set): "


def _key_problems(key: Any, path: str) -> list[Problem]:
    """A label key (of matchLabels, or an expression's ``key``) at ``path``."""
    problem = name_problem("label-key", key) if isinstance(key, str) else "keys are strings"
    return [] if problem is None else [(path, _UNPARSABLE + problem)]


def _label_problems(key: Any, path: str, value: Any) -> list[Problem]:
    """A matchLabels entry; ``path`` is the matchLabels map's."""
    step = format_path([str(key)])
    entry = f"{path}{step}" if step.startswith("[") else f"{path}.{step}"
    problems = _key_problems(key, entry)
    if not isinstance(value, str):
        return [*problems, (entry, f"label value must be a string, not {_json(value)}")]
    problem = name_problem("label-value", value)
    if problem is not None:
        problems.append((entry, f"{_UNPARSABLE}label value {problem}"))
    return problems


def matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """True when ``labels`` satisfy every part of a (checked) selector."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, operator = expr["key"], expr["operator"]
        values = expr.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def clean(selector: Mapping[str, Any]) -> dict[str, Any]:
    """The selector as it goes into a PackageVariantSet target (only the non-empty parts)."""
    out: dict[str, Any] = {}
    if selector.get("matchLabels"):
        out["matchLabels"] = dict(selector["matchLabels"])
    if selector.get("matchExpressions"):
        out["matchExpressions"] = [dict(e) for e in selector["matchExpressions"]]
    return out


def may_overlap(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """False when no set of labels can satisfy both (checked) selectors, else True.

    Per key, each selector asks for the key to exist (matchLabels, ``In``, ``Exists``) or to be
    absent (``DoesNotExist``), allows some values (matchLabels, ``In``) and forbids others
    (``NotIn``); the two are disjoint when some key must both exist and be absent, or has no value
    both allow.
    """
    wants = [_wants(a), _wants(b)]
    for key in set(wants[0]) | set(wants[1]):
        exist = absent = False
        allowed: set[str] | None = None
        forbidden: set[str] = set()
        for want in wants:
            if key not in want:
                continue
            k_exist, k_absent, k_allowed, k_forbidden = want[key]
            exist, absent = exist or k_exist, absent or k_absent
            if k_allowed is not None:
                allowed = set(k_allowed) if allowed is None else allowed & k_allowed
            forbidden |= k_forbidden
        if exist and absent:
            return False
        if allowed is not None and not allowed - forbidden:
            return False
    return True


def pinned(selector: Mapping[str, Any]) -> dict[str, str]:
    """The keys a (checked) selector requires to hold one value, with that value.

    Two selectors that pin one key to different values never overlap (:func:`may_overlap` is
    False for them, and they are not equal): what lets a caller skip such pairs unasked.
    """
    out: dict[str, str] = {}
    for key, (_exist, absent, allowed, forbidden) in _wants(selector).items():
        if allowed is not None and len(allowed) == 1 and not absent:
            (value,) = allowed
            if value not in forbidden:
                out[key] = value
    return out


_Want = tuple[bool, bool, "set[str] | None", set[str]]  # exist, absent, allowed, forbidden


def _wants(selector: Mapping[str, Any]) -> dict[str, _Want]:
    out: dict[str, _Want] = {}

    def add(
        key: str, exist: bool, absent: bool, allowed: set[str] | None, forbid: set[str]
    ) -> None:
        o_exist, o_absent, o_allowed, o_forbid = out.get(key, (False, False, None, set()))
        if allowed is None:
            allowed = o_allowed
        elif o_allowed is not None:
            allowed = allowed & o_allowed
        out[key] = (o_exist or exist, o_absent or absent, allowed, o_forbid | forbid)

    for key, value in (selector.get("matchLabels") or {}).items():
        add(key, True, False, {value}, set())
    for expr in selector.get("matchExpressions") or []:
        values = set(expr.get("values") or [])
        operator = expr["operator"]
        if operator == "In":
            add(expr["key"], True, False, values, set())
        elif operator == "NotIn":
            add(expr["key"], False, False, None, values)
        elif operator == "Exists":
            add(expr["key"], True, False, None, set())
        else:
            add(expr["key"], False, True, None, set())
    return out


def _json(value: Any) -> str:
    """A value for a message as JSON writes it (never a Python repr)."""
    import json  # a refusal only

    return json.dumps(value, ensure_ascii=False, default=str)
