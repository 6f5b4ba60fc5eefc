"""krmfn-preparer (not built yet)."""
