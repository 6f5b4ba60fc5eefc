"""krmfn-interface-expander (not built yet)."""
