"""krmfn-merger (not built yet)."""
