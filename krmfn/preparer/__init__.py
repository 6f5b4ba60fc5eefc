"""krmfn-preparer: the TKO preparation loop as a kpt function."""

from .config import Config, PluginSpec
from .plugins import Outcome, PluginContext
from .process import process

__all__ = ["Config", "Outcome", "PluginContext", "PluginSpec", "process"]
