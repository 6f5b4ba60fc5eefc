"""The console script krmfn-dnn-generator (the function is declared in krmfn.registry)."""

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.dnn_generator", __name__)
