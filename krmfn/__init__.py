"""krmfn: kpt KRM functions for Nephio-style network automation (see README.md)."""

__version__ = "0.2.0"  # = pyproject.toml's version (tests/test_smoke.py)
