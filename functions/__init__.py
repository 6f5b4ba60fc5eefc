"""krmfn: kpt KRM functions for Nephio-style network automation (see README.md)."""

__version__ = "0.1.0"
