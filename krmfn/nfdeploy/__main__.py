"""The console script krmfn-nfdeploy (the function is declared in krmfn.registry)."""

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.nfdeploy", __name__)
