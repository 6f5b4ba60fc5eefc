"""krmfn-nfdeploy: the NFDeployment's spec from its requirements, and the package's readiness."""

from .config import Config
from .process import process

__all__ = ["Config", "process"]
