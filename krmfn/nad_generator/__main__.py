"""The console script krmfn-nad-generator (the function is declared in krmfn.registry)."""

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.nad_generator", __name__)
