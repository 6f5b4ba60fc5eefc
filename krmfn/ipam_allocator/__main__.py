"""The console script krmfn-ipam-allocator (the function is declared in krmfn.registry)."""

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.ipam_allocator", __name__)
