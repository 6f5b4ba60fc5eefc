"""krmfn-topology-to-pvs: NFTopology to Porch PackageVariantSets, NFDeployed and the SMF gate."""

from .config import Config
from .process import process

__all__ = ["Config", "process"]
