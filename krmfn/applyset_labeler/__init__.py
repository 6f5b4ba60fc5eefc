"""krmfn-applyset-labeler: makes a kpt package a KEP-3659 ApplySet."""

from .applyset_id import applyset_id
from .config import Config
from .process import process

__all__ = ["Config", "applyset_id", "process"]
