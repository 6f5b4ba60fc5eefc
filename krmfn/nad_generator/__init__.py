"""krmfn-nad-generator: NetworkAttachmentDefinitions for Interfaces whose claims are ready."""

from .config import Config
from .process import process

__all__ = ["Config", "process"]
