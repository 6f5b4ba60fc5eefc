"""A condition's list entry written in one pass (issue 37.4).

:class:`krmlib._model.kptfile.Conditions` holds each new condition as the text of its
``status.conditions`` entry; a function that expands thousands of owners writes thousands of
them. :func:`condition_entry` writes one as :func:`krmlib._yaml.emit.seq_entry` does, in one
pass over its four strings: a string that a block-context plain scalar holds as it is (the
common case: condition types, reasons, messages) is written as it is; any other value, key or
shape asks the emitter, whose answer it then is (None when the emitter is unsure).
"""

from __future__ import annotations

from typing import Any

from krmlib._yaml import emit as _emit
from krmlib._yaml.scalars import needs_quotes

# The keys of a condition, in the order Condition.to_dict writes them.
_KEYS = frozenset({"type", "status", "reason", "message"})
# What the emitter writes for the three statuses (quoted: "True" and "False" read as booleans).
_STATUS: dict[str, str] = {}
# A first character that a plain scalar cannot start with (the emitter's rule).
_LEADING = frozenset("-?:,[]{}#&*!|>'\"%@`")
# The first characters of every string that :func:`needs_quotes` matches (numbers, booleans,
# nulls, timestamps, ``=``, ``<<``): a string starting otherwise needs no quotes.
_AMBIGUOUS_FIRST = frozenset("-+.0123456789yYnNtTfFoO~=<")


def _plain(value: str) -> bool:
    """Whether the emitter writes ``value`` as it is: it needs no quotes and a block-context
    plain scalar holds it (printable ASCII, no surrounding space, no indicator first, no
    ``": "``, ``" #"``, final ``:`` or document marker): the emitter's own test, spelt with
    string methods."""
    return (
        value.isascii()
        and value.isprintable()
        and value[0] not in _LEADING
        and value == value.strip()
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
        and not value.startswith(("---", "..."))
        and (value[0] not in _AMBIGUOUS_FIRST or not needs_quotes(value))
    )


def condition_entry(values: dict[str, Any], indent: int) -> str | None:
    """``values`` (a condition: its keys among type, status, reason, message, strings) as one
    entry of a compact block sequence at ``indent`` with its last newline: exactly what
    :func:`krmlib._yaml.emit.seq_entry` writes, or None when that is None."""
    if not values:
        return _emit.seq_entry(values, indent)
    pad = " " * indent
    lead = pad + "- "
    inner = pad + "  "
    out: list[str] = []
    for key, value in values.items():
        if key not in _KEYS or type(value) is not str or not value:
            return _emit.seq_entry(values, indent)  # not a condition's shape: the emitter's
        if key == "status":
            text = _STATUS.get(value)
            if text is None:
                found = _emit.seq_lines([value], 0)  # "- <scalar>", or None when unsure
                if found is None:
                    return _emit.seq_entry(values, indent)
                text = found[2:]
                if len(_STATUS) < 8:  # True, False, Unknown (and a few others)
                    _STATUS[value] = text
        elif _plain(value):
            text = value
        else:
            return _emit.seq_entry(values, indent)
        out.append(f"{lead}{key}: {text}\n")
        lead = inner
    return "".join(out)


__all__ = ["condition_entry"]
