"""Sphinx configuration of krmlib's documentation (`make docs`: HTML under build/docs/html).

The build fails (warnings are errors, `-W`) when a name of ``krmlib.__all__`` is missing from
the reference (api.rst) or a public class or function has no docstring.
"""

from __future__ import annotations

import inspect
from typing import Any

import krmlib

project = "krmlib"
author = "the krmfn authors"
copyright = "the krmfn authors, Apache-2.0"  # noqa: A001 (Sphinx's name)
extensions = ["sphinx.ext.autodoc"]
exclude_patterns = ["scale.md", "_build"]
html_theme = "alabaster"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
# Names in signatures that autodoc cannot resolve are shown as written, not warned about.
nitpicky = False


def _check_reference(app: Any, env: Any) -> None:
    """Every public name is in the reference; every public class and function has a docstring."""
    documented = set(env.get_domain("py").objects)
    missing = [n for n in krmlib.__all__ if f"krmlib.{n}" not in documented]
    undocumented = [
        n
        for n in krmlib.__all__
        if (inspect.isclass(obj := getattr(krmlib, n)) or inspect.isfunction(obj))
        and not (obj.__doc__ or "").strip()
    ]
    logger = __import__("sphinx.util", fromlist=["logging"]).logging.getLogger("krmlib")
    for name in missing:
        logger.warning(f"krmlib.{name} is in krmlib.__all__ but not in the reference (api.rst)")
    for name in undocumented:
        logger.warning(f"krmlib.{name} has no docstring")


def setup(app: Any) -> None:
    app.connect("env-check-consistency", _check_reference)
