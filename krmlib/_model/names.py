"""Names an API server accepts: the one check of every name and namespace a function creates or
renames (issue 27.1), and the one way to make a DNS-1123 label out of any text.

Kubernetes validates ``metadata.name`` as a DNS-1123 subdomain for most kinds (lower-case
letters, digits, ``-`` and ``.``, at most 253 characters, starting and ending with a letter or
digit); a namespace, and the names of a few kinds (``Namespace``, ``Service``), must be DNS-1123
labels (no ``.``, at most 63 characters; a Service's name also starts with a letter: DNS-1035).
A label key is an optional subdomain prefix and ``/``, then a name of at most 63 letters, digits,
``-``, ``_`` and ``.``; a label value is empty or such a name.
Upstream: kubernetes/apimachinery ``pkg/util/validation/validation.go`` (``IsDNS1123Label``,
``IsDNS1123Subdomain``, ``IsDNS1035Label``, ``IsQualifiedName``, ``IsValidLabelValue``) and
``pkg/api/validation/objectmeta.go``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from krmlib._base.errors import KrmError
from krmlib._base.hashes import sha1_hex

if TYPE_CHECKING:
    from .object import KubeObject

MAX_LABEL = 63
MAX_SUBDOMAIN = 253
HASH_LEN = 8

# Kinds whose metadata.name the API server checks as a label (apiVersion left aside: the core
# kinds; a CRD's name is a subdomain).
LABEL_NAMED_KINDS = frozenset({"Namespace", "Service"})

# Compiled on first use (re caches them): not at start-up.
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_QUALIFIED_NAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_OTHER = r"[^a-z0-9]+"
_KEEP = MAX_LABEL - HASH_LEN - 1


def _shown(value: str) -> str:
    """``value`` for a message: quoted with escapes (a zero-width space shows as ``\\u200b``),
    a long one cut."""
    text = value if len(value) <= 80 else value[:60] + "..."
    escaped = text.encode("unicode_escape").decode("ascii").replace("'", "\\'")
    return f"'{escaped}'" + (f" ({len(value)} characters)" if len(value) > 80 else "")


def label_problem(value: str) -> str | None:
    """Why ``value`` is not a DNS-1123 label, or None when it is one."""
    if not value:
        return "it is empty"
    if len(value) > MAX_LABEL:
        return f"it is longer than {MAX_LABEL} characters"
    if re.fullmatch(_LABEL, value) is None:
        return (
            "a DNS-1123 label has only lower-case letters, digits and '-', and starts and ends "
            "with a letter or digit"
        )
    return None


def subdomain_problem(value: str) -> str | None:
    """Why ``value`` is not a DNS-1123 subdomain, or None when it is one."""
    if not value:
        return "it is empty"
    if len(value) > MAX_SUBDOMAIN:
        return f"it is longer than {MAX_SUBDOMAIN} characters"
    if re.fullmatch(_SUBDOMAIN, value) is None:
        return (
            "a DNS-1123 subdomain has only lower-case letters, digits, '-' and '.', each part "
            "starting and ending with a letter or digit"
        )
    return None


def _qualified_problem(value: str, what: str) -> str | None:
    """Why ``value`` is not a label key's name part or a non-empty label value (``what``)."""
    if len(value) > MAX_LABEL:
        return f"it is longer than {MAX_LABEL} characters"
    if re.fullmatch(_QUALIFIED_NAME, value) is None:
        return (
            f"{what} has only letters, digits, '-', '_' and '.', and starts and ends with a "
            "letter or digit"
        )
    return None


def label_key_problem(key: str) -> str | None:
    """Why ``key`` is not a label key, or None when it is one: an optional DNS-1123 subdomain
    prefix and ``/``, then a name of at most 63 letters, digits, ``-``, ``_`` and ``.``, starting
    and ending with a letter or digit (``example.com/Site_1``). The reason names the part."""
    prefix, slash, name = key.rpartition("/")
    if slash:
        problem = subdomain_problem(prefix)
        if problem is not None:
            return f"its prefix {_shown(prefix)} is not a DNS-1123 subdomain: {problem}"
    if not name:
        return "its name, after the '/', is empty" if slash else "it is empty"
    problem = _qualified_problem(name, "a label key's name")
    return None if problem is None else f"its name {_shown(name)}: {problem}"


def label_value_problem(value: str) -> str | None:
    """Why ``value`` is not a label value, or None when it is one: empty, or at most 63 letters,
    digits, ``-``, ``_`` and ``.``, starting and ending with a letter or digit."""
    return _qualified_problem(value, "a label value") if value else None


def name_problem(name: str, kind: str = "") -> str | None:
    """Why ``name`` is not a ``metadata.name`` the API server accepts for ``kind`` (a label for
    :data:`LABEL_NAMED_KINDS`, a Service's starting with a letter; a subdomain otherwise), or
    None."""
    if kind in LABEL_NAMED_KINDS:
        problem = label_problem(name)
        if problem is None and kind == "Service" and not name[0].isalpha():
            problem = "a Service name starts with a letter (DNS-1035)"
        return problem
    return subdomain_problem(name)


def check_names(
    name: str,
    namespace: str = "",
    *,
    kind: str,
    source: KubeObject | None = None,
    field: str = "metadata.name",
    namespace_field: str = "metadata.namespace",
) -> None:
    """Refuse a ``name`` (and ``namespace``, when given) that a function is about to give a new
    or renamed object of ``kind``: a :class:`KrmError` on ``source``, the item the value comes
    from, naming its ``field`` (or ``namespace_field``), the value and the rule."""
    where = f"{source.kind} {source.name}: " if source is not None else ""
    problem = name_problem(name, kind)
    if problem is not None:
        raise KrmError(
            f"{where}{field} gives the {kind} the name {_shown(name)}, which an API server "
            f"refuses: {problem}",
            obj=source,
            field=field,
        )
    if namespace:
        problem = label_problem(namespace)
        if problem is not None:
            raise KrmError(
                f"{where}{namespace_field} gives the {kind} {name} the namespace "
                f"{_shown(namespace)}, which an API server refuses: {problem}",
                obj=source,
                field=namespace_field,
            )


def check_object_names(
    obj: KubeObject, *, source: KubeObject | None = None, field: str = "metadata.name"
) -> None:
    """:func:`check_names` on ``obj``'s own name and namespace (``source``: where they come
    from; ``obj`` itself when not given)."""
    check_names(
        obj.name,
        obj.namespace,
        kind=obj.kind,
        source=source if source is not None else obj,
        field=field,
    )


def short_hash(text: str) -> str:
    """The first 8 hex digits of the SHA-1 of ``text``."""
    return sha1_hex(text)[:HASH_LEN]


def slug(*parts: str) -> str:
    """``parts`` joined by ``-``, lower case, every run of other characters than ``[a-z0-9]``
    as one ``-``, ``-`` trimmed from the ends (``x`` when nothing is left); not capped."""
    return re.sub(_OTHER, "-", "-".join(parts).lower()).strip("-") or "x"


def cap_label(name: str) -> str:
    """``name`` when it fits a DNS-1123 label, else its first 54 characters (trailing ``-``
    trimmed), ``-`` and the first 8 hex digits of the SHA-1 of the whole name, so two long
    names that share a prefix still differ (Porch's scheme for PackageVariant names)."""
    if len(name) <= MAX_LABEL:
        return name
    return f"{name[:_KEEP].rstrip('-')}-{short_hash(name)}"


def dns_label(*parts: str) -> str:
    """``parts`` as one DNS-1123 label: :func:`slug`, then :func:`cap_label`."""
    return cap_label(slug(*parts))


__all__ = [
    "LABEL_NAMED_KINDS",
    "MAX_LABEL",
    "MAX_SUBDOMAIN",
    "cap_label",
    "check_names",
    "check_object_names",
    "dns_label",
    "label_key_problem",
    "label_problem",
    "label_value_problem",
    "name_problem",
    "short_hash",
    "slug",
    "subdomain_problem",
]
