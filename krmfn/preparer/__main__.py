"""The console script krmfn-preparer (the function is declared in krmfn.registry)."""

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.preparer", __name__)
