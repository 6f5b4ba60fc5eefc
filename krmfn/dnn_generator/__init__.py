"""krmfn-dnn-generator: IPClaims for the pools of DataNetworks, and their status back."""

from .config import Config
from .process import process

__all__ = ["Config", "process"]
