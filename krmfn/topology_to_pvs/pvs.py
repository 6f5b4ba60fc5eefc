"""One Porch PackageVariantSet per NF instance."""

from __future__ import annotations

import re
from typing import Any

from krmlib import KrmError

from .config import Config
from .downstream import package_name
from .labelselector import clean
from .naming import dns_label, label_value
from .topology import Instance, Topology

PVS_API_VERSION = "config.porch.kpt.dev/v1alpha2"
PVS_KIND = "PackageVariantSet"
PVS_DIR = "packagevariantsets"

WORKLOAD_CLUSTER = ("infra.nephio.org/v1alpha1", "WorkloadCluster")

LABEL_DEPLOYMENT = "nf-deployment-name"
LABEL_INSTANCE = "nfinstance"
ANN_TOPOLOGY = "topology.krmfn.dev/topology"
ANN_INSTANCE = "topology.krmfn.dev/instance"
ANN_GATES = "topology.krmfn.dev/readiness-gates"
CAPACITY_PREFIX = "capacity."
CAPACITY_ANNOTATION = "capacity.krmfn.dev/"
ANN_APPROVAL = "approval.nephio.org/policy"

# capacityMode capacityResource: Nephio's blueprints keep capacity in a local-config
# req.nephio.org/v1alpha1 Capacity (nephio-project/catalog workloads/free5gc/pkg-example-*-bp/
# capacity.yaml @5e1a968e), which nfdeploy-fn reads. The PVS template's pipeline sets its fields
# with the catalog's search-replace (by-path, put-value), one mutator per field; Porch prepends
# template mutators to the downstream Kptfile's pipeline, named PackageVariant.<pv>.<name>.<i>
# (porch 74d82d5 packagevariant_controller.go ensureKRMFunctions), so they run before the
# blueprint's own functions; Porch's function runner runs search-replace v0.2.1 as a binary
# (deployments/porch/23-function-configurations.yaml, binaryExecutor), no pod.
CAPACITY_API_VERSION = "req.nephio.org/v1alpha1"
CAPACITY_KIND = "Capacity"
CAPACITY_FIELDS = (
    "maxUplinkThroughput",
    "maxDownlinkThroughput",
    "maxSessions",
    "maxSubscribers",
    "maxNFConnections",
)  # spec of req.nephio.org_capacities.yaml (nephio-project/catalog @5e1a968e)
CAPACITY_FUNCTION = "ghcr.io/kptdev/krm-functions-catalog/search-replace:v0.2.1"

_REVISION = r"^v?(\d+)\Z"  # for re.match, compiled on first use (issue 37)


def pvs_name(topology: Topology, instance: Instance) -> str:
    return dns_label(topology.name, instance.name)


def template_labels(topology: Topology, instance: Instance) -> dict[str, str]:
    return {
        LABEL_DEPLOYMENT: label_value(topology.name),
        LABEL_INSTANCE: label_value(instance.name),
    }


def desired_pvs(
    topology: Topology,
    instance: Instance,
    config: Config,
    gates: list[str],
    workspace: str | None = None,
) -> dict[str, Any]:
    """The PackageVariantSet for ``instance`` as plain data (raises KrmError on a bad revision)."""
    name = pvs_name(topology, instance)
    metadata: dict[str, Any] = {"name": name}
    if topology.namespace:
        metadata["namespace"] = topology.namespace
    metadata["labels"] = template_labels(topology, instance)
    metadata["annotations"] = {ANN_TOPOLOGY: topology.name, ANN_INSTANCE: instance.name}
    return {
        "apiVersion": PVS_API_VERSION,
        "kind": PVS_KIND,
        "metadata": metadata,
        "spec": {
            "upstream": upstream(instance, config, workspace),
            "targets": [target(topology, instance, config, gates)],
        },
    }


def upstream(instance: Instance, config: Config, workspace: str | None = None) -> dict[str, Any]:
    """``workspace``: the catalog's workspaceName for the class's revision (catalog.py): current
    Porch pins through it and ignores ``revision``."""
    cls = instance.nf_class
    out: dict[str, Any] = {"repo": cls.repository, "package": cls.package}
    if cls.revision is not None:
        out["revision"] = revision(cls.revision, config, instance)
    if cls.workspace or workspace:
        out["workspaceName"] = cls.workspace or workspace
    return out


def revision(value: Any, config: Config, instance: Instance) -> Any:
    if config.revision_type == "asWritten":
        return value
    if config.revision_type == "string":
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = re.match(_REVISION, str(value))
    if match is None:
        raise KrmError(
            f"revision {value!r} has no revision number: current Porch (PackageVariantSet "
            "v1alpha2) takes an integer revision; write 3 or v3, give a workspaceName instead, "
            "or set revisionType: string for Porch v4.0.0 and older",
            obj=instance.nf_class.obj,
            field="spec.packageRef.revision",
        )
    return int(match.group(1))


def target(
    topology: Topology, instance: Instance, config: Config, gates: list[str]
) -> dict[str, Any]:
    selector = clean(instance.selector)
    out: dict[str, Any]
    if config.target_selector == "objectSelector":
        api_version, kind = WORKLOAD_CLUSTER
        out = {"objectSelector": {"apiVersion": api_version, "kind": kind, **selector}}
    else:
        out = {"repositorySelector": selector}
    template: dict[str, Any] = {}
    if config.downstream_package:
        template["downstream"] = {"package": package_name(topology, instance, config)}
    if config.adoption_policy:
        template["adoptionPolicy"] = config.adoption_policy
    template["labels"] = template_labels(topology, instance)
    annotations: dict[str, str] = {}
    if config.approval_policy:
        annotations[ANN_APPROVAL] = config.approval_policy
    if gates:
        annotations[ANN_GATES] = ",".join(gates)
    data = {key: _text(value) for key, value in instance.capacity.items()}
    if data and config.capacity_mode == "annotations":
        annotations.update({CAPACITY_ANNOTATION + key: value for key, value in data.items()})
    if annotations:
        template["annotations"] = annotations
    if data and config.capacity_mode == "packageContext":
        template["packageContext"] = {
            "data": {CAPACITY_PREFIX + key: value for key, value in data.items()}
        }
    if data and config.capacity_mode == "capacityResource":
        template["pipeline"] = {"mutators": capacity_mutators(data)}
    if config.target_selector == "objectSelector":
        template["injectors"] = [{"nameExpr": "target.name"}]
    out["template"] = template
    return out


def capacity_mutators(data: dict[str, str]) -> list[dict[str, Any]]:
    """One search-replace per capacity field that the blueprint's Capacity has, in the
    topology's order (other fields: a warning, process.py)."""
    return [
        {
            "image": CAPACITY_FUNCTION,
            "name": f"capacity-{key.lower()}",
            "selectors": [{"apiVersion": CAPACITY_API_VERSION, "kind": CAPACITY_KIND}],
            "configMap": {"by-path": f"spec.{key}", "put-value": value},
        }
        for key, value in data.items()
        if key in CAPACITY_FIELDS
    ]


def _text(value: Any) -> str:
    """A capacity value as a ConfigMap/annotation string."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    import json  # on first use: not a start-up cost

    return json.dumps(value, sort_keys=True, separators=(",", ":"))
