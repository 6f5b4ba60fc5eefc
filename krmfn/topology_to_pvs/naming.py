"""Names of generated objects: valid DNS-1123 labels of at most 63 characters.

The scheme is krmlib's :func:`krmlib.dns_label` (the same idea as Porch's PackageVariant names:
lower-case, every run of characters outside ``[a-z0-9]`` as one ``-``, trimmed; over 63
characters, the first 54, ``-`` and 8 hex digits of the SHA-1 of the whole name), so two long
names that share a prefix still differ.
"""

from __future__ import annotations

import re

from krmlib import dns_label

__all__ = ["MAX_LENGTH", "dns_label", "label_value", "name_problem"]

MAX_LENGTH = 63

_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")


def label_value(value: str) -> str:
    """``value`` unchanged when it is a valid label value, else shortened by the same scheme."""
    if len(value) <= MAX_LENGTH and _LABEL_VALUE.match(value):
        return value
    return dns_label(value)


# Kubernetes' name rules as Porch applies them (k8s.io/apimachinery v0.34.1, which Porch 74d82d5
# pins: pkg/util/validation/validation.go IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName,
# IsValidLabelValue). The one seam for a shared check: ``name_problem`` is all callers use.
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_RULES = {
    "dns-label": (
        _DNS_LABEL,
        63,
        "a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter "
        "or digit, at most 63 characters",
    ),
    "dns-subdomain": (
        _DNS_SUBDOMAIN,
        253,
        "a DNS-1123 subdomain: lower-case DNS labels joined by '.', at most 253 characters",
    ),
    "label-name": (
        _QUALIFIED,
        63,
        "letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most "
        "63 characters",
    ),
    "label-value": (
        _LABEL_VALUE,
        63,
        "empty, or letters, digits, '-', '_' and '.', starting and ending with a letter or "
        "digit, at most 63 characters",
    ),
}


def name_problem(rule: str, value: str) -> str | None:
    """Why ``value`` breaks ``rule``, or None when it is valid: ``dns-label``, ``dns-subdomain``,
    ``label-key`` (an optional DNS-1123 subdomain prefix and ``/``, then a name of at most 63
    letters, digits, ``-``, ``_``, ``.``) or ``label-value``. The reason reads after the value
    (``'UPF_1' must be a DNS-1123 label: ...``)."""
    if rule == "label-key":
        prefix, slash, name = value.rpartition("/")
        if slash and name_problem("dns-subdomain", prefix) is not None:
            what = _RULES["dns-subdomain"][2]
            return f"{value!r} is not a label key: its prefix {prefix!r} must be {what}"
        if name_problem("label-name", name) is not None:
            return (
                f"{value!r} is not a label key: its name {name!r} must be {_RULES['label-name'][2]}"
            )
        return None
    pattern, limit, what = _RULES[rule]
    if len(value) > limit:
        return f"{value!r} is {len(value)} characters long: it must be {what}"
    if rule == "label-value" and not value:
        return None
    if not pattern.match(value):
        return f"{value!r} must be {what}"
    return None
