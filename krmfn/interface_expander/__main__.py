"""The console script krmfn-interface-expander (the function is declared in krmfn.registry)."""

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.interface_expander", __name__)
