"""Names of generated objects: valid DNS-1123 labels of at most 63 characters.

The scheme is krmlib's :func:`krmlib.dns_label` (the same idea as Porch's PackageVariant names:
lower-case, every run of characters outside ``[a-z0-9]`` as one ``-``, trimmed; over 63
characters, the first 54, ``-`` and 8 hex digits of the SHA-1 of the whole name), so two long
names that share a prefix still differ.
"""

from __future__ import annotations

from collections.abc import Callable

from krmlib import (
    dns_label,
    label_key_problem,
    label_problem,
    label_value_problem,
    subdomain_problem,
)

__all__ = ["MAX_LENGTH", "dns_label", "label_value", "name_problem"]

MAX_LENGTH = 63


def label_value(value: str) -> str:
    """``value`` unchanged when it is a valid label value, else shortened by the same scheme."""
    if label_value_problem(value) is None:
        return value
    return dns_label(value)


# Kubernetes' name rules as Porch applies them (k8s.io/apimachinery v0.34.1, which Porch 74d82d5
# pins: pkg/util/validation/validation.go IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName,
# IsValidLabelValue). The rules are krmlib._model.names' (one checker); this table is Porch's
# wording of them: each rule's check, its length limit and what a valid value is.
_RULES: dict[str, tuple[Callable[[str], str | None], int, str]] = {
    "dns-label": (
        label_problem,
        63,
        "a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter "
        "or digit, at most 63 characters",
    ),
    "dns-subdomain": (
        subdomain_problem,
        253,
        "a DNS-1123 subdomain: lower-case DNS labels joined by '.', at most 253 characters",
    ),
    "label-value": (
        label_value_problem,
        63,
        "empty, or letters, digits, '-', '_' and '.', starting and ending with a letter or "
        "digit, at most 63 characters",
    ),
}
_LABEL_NAME = (
    "letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most "
    "63 characters"
)


def name_problem(rule: str, value: str) -> str | None:
    """Why ``value`` breaks ``rule``, or None when it is valid: ``dns-label``, ``dns-subdomain``,
    ``label-key`` (an optional DNS-1123 subdomain prefix and ``/``, then a name of at most 63
    letters, digits, ``-``, ``_``, ``.``) or ``label-value``. The reason reads after the value
    (``'UPF_1' must be a DNS-1123 label: ...``)."""
    if rule == "label-key":
        if label_key_problem(value) is None:
            return None
        prefix, slash, name = value.rpartition("/")
        if slash and subdomain_problem(prefix) is not None:
            what = _RULES["dns-subdomain"][2]
            return f"{value!r} is not a label key: its prefix {prefix!r} must be {what}"
        return f"{value!r} is not a label key: its name {name!r} must be {_LABEL_NAME}"
    check, limit, what = _RULES[rule]
    if check(value) is None:
        return None
    if len(value) > limit:
        return f"{value!r} is {len(value)} characters long: it must be {what}"
    return f"{value!r} must be {what}"
