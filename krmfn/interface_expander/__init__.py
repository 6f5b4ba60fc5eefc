"""krmfn-interface-expander: expands Nephio ``Interface`` requirements into allocation children."""

from .config import Config
from .process import process

__all__ = ["Config", "process"]
