"""What ``krmfn deployments list`` shows: values as text, never a Python ``repr`` (issue 27.7)."""

from __future__ import annotations


def shown(value: object) -> str:
    """A field's value as the listing shows it: a string as is, a map or a list as JSON, a
    boolean as YAML writes it, nothing for null."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        import json  # a map or a list where a string belongs: rare

        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return str(value)


__all__ = ["shown"]
