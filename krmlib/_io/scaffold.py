"""``krmlib new``: a new function project from the templates in ``templates/new`` (private: the
command is the interface).

A template's path and text name the project with placeholders: ``__NAME__`` (the console
script, ``set-team``), ``__MODULE__`` (the package, ``set_team``), ``__KIND__`` (the config's
kind, ``SetTeam``) and the krmlib versions the project takes. ``gitignore`` becomes
``.gitignore`` (package data keeps no hidden files).
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from .atomic import io_error, write_file

TEMPLATES = Path(__file__).resolve().parent / "templates" / "new"
NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
# Names whose kind YAML 1.1 reads as another type: the config's kind must stay a plain string.
YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
RENAMED = {"gitignore": ".gitignore"}


# Modules a generated function imports, beside the standard library (sys.stdlib_module_names).
NEEDED = frozenset({"krmlib", "krmfn", "yaml", "ruamel", "pydantic", "pydantic_core", "pytest",
                    "typing_extensions", "setuptools", "pip", "wheel"})  # fmt: skip


def _shadows(module: str) -> bool:
    """Whether a package named ``module`` would hide a module the function imports."""
    import sys

    return module in NEEDED or module in sys.stdlib_module_names


class ScaffoldError(Exception):
    """A project cannot be created (a bad name, a target folder that is not empty)."""


def placeholders(name: str, krmlib_version: str) -> dict[str, str]:
    """The values of the placeholders for a project named ``name``."""
    if not NAME.fullmatch(name) or len(name) > 63 or name in YAML_WORDS:
        raise ScaffoldError(
            f"{name!r} is not a function name: lowercase letters, digits and '-', starting with"
            " a letter (a DNS label, like kpt's function names)"
        )
    module = name.replace("-", "_")
    if keyword.iskeyword(module) or keyword.issoftkeyword(module) or _shadows(module):
        raise ScaffoldError(
            f"{name!r} would not import as the project's package {module!r}: it is a Python "
            "keyword or the name of a module the function needs (the standard library, krmlib "
            "or its dependencies); choose another, such as 'my-" + name + "'"
        )
    parts = krmlib_version.split(".")
    if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
        minor = f"{parts[0]}.{parts[1]}"
        upper = f"{parts[0]}.{int(parts[1]) + 1}" if parts[0] == "0" else f"{int(parts[0]) + 1}"
    else:  # a source tree without metadata
        minor, upper = "0.1", "1"
    return {
        "__NAME__": name,
        "__MODULE__": name.replace("-", "_"),
        "__KIND__": "".join(part.capitalize() for part in name.split("-")),
        "__KRMLIB_MINOR__": minor,
        "__KRMLIB_NEXT__": upper,
    }


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def new_project(name: str, target: Path, krmlib_version: str) -> list[Path]:
    """Write the project ``name`` into ``target`` (new or empty), taking krmlib
    ``krmlib_version``'s minor series; the files written, each by krmlib's atomic writer. An
    I/O error is a :class:`~krmlib.KrmError` naming the file."""
    values = placeholders(name, krmlib_version)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ScaffoldError(f"{target} exists and is not an empty folder")
    written = []
    for source in sorted(TEMPLATES.rglob("*")):
        if not source.is_file() or "__pycache__" in source.parts:
            continue
        rel = source.relative_to(TEMPLATES)
        rel = rel.with_name(RENAMED.get(rel.name, rel.name))
        dest = target / _fill(rel.as_posix(), values)
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise io_error("create", dest.parent, exc) from None
        write_file(dest, _fill(source.read_text(encoding="utf-8"), values))
        written.append(dest)
    return written
