"""krmfn-applyset-labeler (not built yet)."""
