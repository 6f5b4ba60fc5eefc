"""krmfn-preparer: the TKO preparation loop as a kpt function."""

from .config import Config, PluginSpec
from .loop import process
from .plugins import PluginContext

__all__ = ["Config", "PluginContext", "PluginSpec", "process"]
