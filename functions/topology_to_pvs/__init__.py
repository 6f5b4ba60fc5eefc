"""krmfn-topology-to-pvs (not built yet)."""
