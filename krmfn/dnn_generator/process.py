"""process(): an IPClaim per DataNetwork pool, and the pools' prefixes back into its status.

Nephio's dnn-fn on the condition choreography of :mod:`krmfn.specializer`: the for kind is
``req.nephio.org/v1alpha1 DataNetwork``, it owns ``ipam.resource.nephio.org/v1alpha1 IPClaim``
(remote children: the IPAM specializer fills them) and watches the ``WorkloadCluster``. Stage 1
writes one pool claim per ``spec.pools[]`` entry; stage 2, once every claim's condition is
``"True"``, rebuilds ``status.pools`` from the claims' status. Read from nephio-project/nephio
``krm-functions/dnn-fn/fn/function.go`` at a29054b.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from krmfn.nephio import (
    FOR_ANNOTATION,
    IPCLAIM_API_VERSION,
    IPCLAIM_KIND,
    OWNER_ANNOTATION,
    last_segment,
)
from krmfn.specializer import (
    MISSING_CLUSTER,
    WORKLOAD_CLUSTER,
    ClusterWatch,
    SpecializeError,
    Specializer,
)
from krmlib import KubeObject, ResourceList

from .config import Config

DATA_NETWORK = ("req.nephio.org/v1alpha1", "DataNetwork")
IPCLAIM = (IPCLAIM_API_VERSION, IPCLAIM_KIND)
LOCAL_CONFIG = "config.kubernetes.io/local-config"
ADDRESS_FAMILY_LABEL = "nephio.org/address-family"
CLUSTER_NAME_LABEL = "nephio.org/cluster-name"


def process(rl: ResourceList, config: Config) -> None:
    DnnGenerator(rl).run()


def for_name(annotations: Mapping[str, str]) -> str:
    """The root's name: the last ``.`` segment of ``specializer.nephio.org/for``, else of the
    owner annotation ('' with neither)."""
    reference = annotations.get(FOR_ANNOTATION)
    if reference is None:
        reference = annotations.get(OWNER_ANNOTATION, "")
    return last_segment(reference)


class DnnGenerator(ClusterWatch):
    """One run: the WorkloadCluster the watch saw, and the two callbacks."""

    __slots__ = ("rl",)

    def __init__(self, rl: ResourceList) -> None:
        super().__init__()
        self.rl = rl

    def run(self) -> None:
        Specializer(
            self.rl,
            for_kind=DATA_NETWORK,
            owns={IPCLAIM: "remote"},
            watches={WORKLOAD_CLUSTER: self.watch_cluster},
            populate=self.populate,
            update=self.update,
            missing_for="cannot initialize with a nil object",
        ).run()

    def populate(self, dnn: KubeObject) -> list[KubeObject]:
        """An IPClaim of kind pool per ``spec.pools[]`` entry."""
        if self.cluster is None:
            raise SpecializeError(MISSING_CLUSTER, dnn)
        annotations = dnn.annotations  # the three it reads, not a copy of every one
        local = annotations.get(LOCAL_CONFIG)  # read first, as the copy was
        pools = dnn.get("spec.pools") or []
        if not isinstance(pools, list):
            raise SpecializeError("spec.pools must be a list", dnn, "spec.pools")
        claim_annotations: dict[str, str] = {}
        if local is not None:
            claim_annotations[LOCAL_CONFIG] = local
        reference = annotations.get(FOR_ANNOTATION)
        claim_annotations[FOR_ANNOTATION] = (
            reference if reference is not None else annotations.get(OWNER_ANNOTATION, "")
        )
        prefix = f"{for_name(annotations)}-{dnn.name}-"
        network_instance = dnn.get("spec.networkInstance")
        claims = []
        for index, pool in enumerate(pools):
            if not isinstance(pool, dict):
                raise SpecializeError(
                    f"spec.pools[{index}] must be a map", dnn, f"spec.pools[{index}]"
                )
            family = "ipv6" if pool.get("ipFamily") == "ipv6" else "ipv4"
            spec: dict[str, Any] = {
                "kind": "pool",
                "selector": {
                    "matchLabels": {
                        ADDRESS_FAMILY_LABEL: family,
                        CLUSTER_NAME_LABEL: self.cluster.cluster_name,
                    }
                },
                "createPrefix": True,
            }
            if network_instance is not None:
                spec["networkInstance"] = network_instance
            spec["prefixLength"] = pool.get("prefixLength", 0)
            claims.append(
                KubeObject.from_dict(
                    {
                        "apiVersion": IPCLAIM_API_VERSION,
                        "kind": IPCLAIM_KIND,
                        "metadata": {
                            "name": f"{prefix}{pool.get('name', '')}",
                            "annotations": claim_annotations.copy(),
                        },
                        "spec": spec,
                        "status": {},
                    }
                )
            )
        return claims

    def update(self, dnn: KubeObject, owned: list[KubeObject]) -> None:
        """``status.pools`` rebuilt from the pool claims named ``<for>-<dnn>-<pool>``."""
        prefix = f"{for_name(dnn.annotations)}-{dnn.name}-"
        pools = []
        for claim in owned:
            if (claim.api_version, claim.kind) != IPCLAIM:
                continue
            # the spec the choreography's diff read already (one scan, kept); a spec that is
            # not a map: read the path, as it says
            spec = claim.get("spec")
            kind = spec.get("kind") if isinstance(spec, dict) else claim.get("spec.kind")
            if kind != "pool":
                continue
            if claim.name.startswith(prefix):
                status = claim.get("status")
                pools.append(
                    {
                        "name": claim.name[len(prefix) :],
                        "ipClaim": status if isinstance(status, dict) else {},
                    }
                )
            else:
                self.rl.results.warning(
                    f'found an IPClaim owned by DNN "{dnn.name}" with a suspicious name: '
                    f"{claim.name}",
                    claim,
                )
        dnn.set("status", {"pools": pools} if pools else {})
