"""The console scripts ``krmfn-<name>`` (``[project.scripts]`` in pyproject.toml): each is
``krmfn.start:<name>`` (``interface_expander`` for ``krmfn-interface-expander``), the function's
``main`` from :mod:`krmfn.registry`.

The cyclic collector is turned off as this module loads, before the function's modules are
imported: every object they make lives until the process exits, so a collection over them finds
nothing, yet the collector ran about 20 times while they loaded (5-8 M instructions, 4-5% of a
one-resource run, issue 37). krmlib's runner keeps it off for the run anyway. Only the console
scripts import this module (``python -m krmfn.<name>`` runs the package's ``__main__.py``).
"""

import gc

gc.disable()


def __getattr__(name: str) -> object:
    from krmfn.registry import BY_NAME, entry_point

    function = BY_NAME.get(name.replace("_", "-"))
    if function is None or name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return entry_point(function.package)
