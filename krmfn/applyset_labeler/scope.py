"""Which kinds are cluster-scoped: a built-in table, the CRDs of the package, then the config."""

from __future__ import annotations

from collections.abc import Iterable

from krmlib import KubeObject

CRD_GROUP = "apiextensions.k8s.io"
CRD_KIND = "CustomResourceDefinition"

# Cluster-scoped kinds of a Kubernetes API server (core kinds plain, others Kind.group).
BUILTIN_CLUSTER_SCOPED = frozenset(
    {
        "ComponentStatus",
        "Namespace",
        "Node",
        "PersistentVolume",
        "APIService.apiregistration.k8s.io",
        "CustomResourceDefinition.apiextensions.k8s.io",
        "MutatingWebhookConfiguration.admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy.admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io",
        "MutatingAdmissionPolicy.admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding.admissionregistration.k8s.io",
        "CertificateSigningRequest.certificates.k8s.io",
        "ClusterTrustBundle.certificates.k8s.io",
        "ClusterRole.rbac.authorization.k8s.io",
        "ClusterRoleBinding.rbac.authorization.k8s.io",
        "FlowSchema.flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io",
        "IngressClass.networking.k8s.io",
        "IPAddress.networking.k8s.io",
        "ServiceCIDR.networking.k8s.io",
        "RuntimeClass.node.k8s.io",
        "PodSecurityPolicy.policy",
        "PriorityClass.scheduling.k8s.io",
        "CSIDriver.storage.k8s.io",
        "CSINode.storage.k8s.io",
        "StorageClass.storage.k8s.io",
        "VolumeAttachment.storage.k8s.io",
        "VolumeAttributesClass.storage.k8s.io",
        "DeviceClass.resource.k8s.io",
        "ResourceSlice.resource.k8s.io",
        "TokenReview.authentication.k8s.io",
        "SelfSubjectReview.authentication.k8s.io",
        "SubjectAccessReview.authorization.k8s.io",
        "SelfSubjectAccessReview.authorization.k8s.io",
        "StorageVersion.internal.apiserver.k8s.io",
        "StorageVersionMigration.storagemigration.k8s.io",
    }
)


def group_kind(kind: str, group: str) -> str:
    """``Kind.group``, core kinds plain, as kubectl writes group-kinds."""
    return f"{kind}.{group}" if group else kind


def is_crd(obj: KubeObject) -> bool:
    return obj.kind == CRD_KIND and obj.group == CRD_GROUP


def crd_group_kind(crd: KubeObject) -> str:
    return group_kind(str(crd.get("spec.names.kind", "")), str(crd.get("spec.group", "")))


class Scopes:
    """Answers "is this group-kind cluster-scoped?".

    A CRD in the package decides for its kind (``spec.scope``); then the config's
    ``clusterScopedKinds`` (``Kind.group`` exactly, or a plain ``Kind`` for that kind in any group);
    then the built-in table. Anything else is namespaced.
    """

    __slots__ = ("configured", "crds", "from_crds")

    def __init__(
        self,
        from_crds: dict[str, bool] | None = None,
        configured: frozenset[str] = frozenset(),
        crds: dict[str, KubeObject] | None = None,
    ) -> None:
        self.from_crds: dict[str, bool] = {} if from_crds is None else from_crds
        self.configured = configured
        self.crds: dict[str, KubeObject] = {} if crds is None else crds

    @classmethod
    def build(cls, objects: Iterable[KubeObject], configured: Iterable[str]) -> Scopes:
        scopes = cls(configured=frozenset(k.strip() for k in configured if k.strip()))
        for obj in objects:
            if is_crd(obj):
                gk = crd_group_kind(obj)
                scopes.crds.setdefault(gk, obj)
                scopes.from_crds.setdefault(gk, obj.get("spec.scope") == "Cluster")
        return scopes

    def cluster_scoped(self, kind: str, group: str) -> bool:
        gk = group_kind(kind, group)
        if gk in self.from_crds:
            return self.from_crds[gk]
        if gk in self.configured or kind in self.configured:
            return True
        return gk in BUILTIN_CLUSTER_SCOPED

    def plural(self, kind: str, group: str) -> str | None:
        """The resource name of a kind, when the package holds its CRD."""
        crd = self.crds.get(group_kind(kind, group))
        plural = crd.get("spec.names.plural") if crd is not None else None
        return str(plural) if plural else None
