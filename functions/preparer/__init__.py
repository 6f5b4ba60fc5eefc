"""krmfn-preparer: the TKO preparation loop as a kpt function."""

from .config import Config, PluginSpec
from .loop import process
from .plugins import Outcome, PluginContext

__all__ = ["Config", "Outcome", "PluginContext", "PluginSpec", "process"]
