"""The console script krmfn-topology-to-pvs (the function is declared in krmfn.registry)."""

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.topology_to_pvs", __name__)
