"""The console script krmfn-applyset-labeler (the function is declared in krmfn.registry)."""

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.applyset_labeler", __name__)
