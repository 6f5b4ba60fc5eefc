"""metav1.LabelSelector: checking one (with field paths) and matching labels against it.

``matchLabels`` and ``matchExpressions`` are ANDed; operators ``In``, ``NotIn``, ``Exists``,
``DoesNotExist`` (``In``/``NotIn`` need values, the other two take none), as in Kubernetes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
        if not isinstance(value, str):
            problems.append(
                (f"{path}.matchLabels.{key}", f"label value must be a string, not {value!r}")
            )
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
    if not isinstance(expr.get("key"), str) or not expr.get("key"):
        problems.append((f"{path}.key", "required field is missing"))
    operator = expr.get("operator")
    values = expr.get("values")
    if operator not in OPERATORS:
        problems.append(
            (f"{path}.operator", f"must be one of {', '.join(OPERATORS)}, not {operator!r}")
        )
    elif operator in ("In", "NotIn"):
        if not isinstance(values, list) or not values:
            problems.append((f"{path}.values", f"operator {operator} needs a non-empty list"))
        elif not all(isinstance(v, str) for v in values):
            problems.append((f"{path}.values", "values must be strings"))
    elif values:
        problems.append((f"{path}.values", f"operator {operator} takes no values"))
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
