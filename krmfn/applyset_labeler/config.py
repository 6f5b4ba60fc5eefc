"""The functionConfig: ``krmfn.dev/v1alpha1 ApplySet`` or a ConfigMap with kebab-case keys."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from krmlib import (
    Field,
    FunctionConfig,
    Record,
    ValidationInfo,
    field_validator,
    label_key_problem,
    label_value_problem,
)

PREFIXES = ("applyset.kubernetes.io", "applyset.k8s.io")


def _quoted(value: str) -> str:
    """A value for a message, as JSON quotes it (never a Python repr)."""
    import json  # a refusal only

    return json.dumps(value, ensure_ascii=False)


class ParentRef(Record):
    """The ApplySet parent: a ConfigMap, a Secret or a custom resource."""

    api_version: str = Field(default="v1", alias="apiVersion")
    kind: str = "Secret"
    name: str = ""
    namespace: str = ""

    @property
    def group(self) -> str:
        return self.api_version.rsplit("/", 1)[0] if "/" in self.api_version else ""

    @property
    def group_kind(self) -> str:
        return f"{self.kind}.{self.group}" if self.group else self.kind

    @field_validator("kind")
    @classmethod
    def _kind_set(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        if value == "Kptfile":
            raise ValueError(
                "the Kptfile is kpt's package file, never applied to a cluster: it cannot be the "
                "ApplySet parent (use a ConfigMap, a Secret or a custom resource)"
            )
        return value

    @field_validator("api_version")
    @classmethod
    def _api_version_form(cls, value: str) -> str:
        group, _, version = value.rpartition("/")
        if not version or (value.count("/") > 1) or ("/" in value and not group):
            raise ValueError(f"must be <version> or <group>/<version>, got {_quoted(value)}")
        return value


class OwnerReferences(Record):
    """ownerReferences to the parent on the members (only where Kubernetes allows them)."""

    uid: str
    controller: bool = False
    block_owner_deletion: bool = Field(default=False, alias="blockOwnerDeletion")


class Config(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 ApplySet``."""

    KIND = "ApplySet"
    CONFIGMAP_KEYS: ClassVar[dict[str, str]] = {
        "parent-api-version": "parent.apiVersion",
        "parent-kind": "parent.kind",
        "parent-name": "parent.name",
        "parent-namespace": "parent.namespace",
        "owner-uid": "ownerReferences.uid",
        "owner-controller": "ownerReferences.controller",
    }

    parent: ParentRef = Field(default_factory=lambda: ParentRef.model_validate({}))
    mode: Literal["managed", "kubectl"] = "managed"
    tooling: str = ""
    tool_labels: dict[str, str] = Field(default_factory=dict, alias="toolLabels")
    key_prefix: Literal["applyset.kubernetes.io", "applyset.k8s.io"] = Field(
        default="applyset.kubernetes.io", alias="keyPrefix"
    )
    cluster_scoped_kinds: list[str] = Field(default_factory=list, alias="clusterScopedKinds")
    owner_references: OwnerReferences | None = Field(default=None, alias="ownerReferences")
    live_objects: list[dict[str, Any]] | str | None = Field(default=None, alias="liveObjects")
    force: bool = False
    kubectl_version: str = Field(default="v1.32", alias="kubectlVersion")

    @field_validator("tooling")
    @classmethod
    def _tooling_form(cls, value: str, info: ValidationInfo) -> str:
        if value and ("/" not in value or value.startswith("/") or value.endswith("/")):
            raise ValueError(f"must be <name>/<version>, got {value!r}")
        if value and info.data.get("mode") == "kubectl" and not value.startswith("kubectl/"):
            raise ValueError(
                f"kubectl mode needs kubectl/<version> (kubectl refuses a parent whose tooling "
                f"is another tool's), got {value!r}"
            )
        return value

    @field_validator("tool_labels")
    @classmethod
    def _tool_labels_valid(cls, value: dict[str, str]) -> dict[str, str]:
        """Written as labels on every member: Kubernetes' label rules (``krmlib._model.names``)."""
        for key, text in value.items():
            problem = label_key_problem(key)
            if problem is not None:
                raise ValueError(f"the label key {_quoted(key)} is not valid: {problem}")
            problem = label_value_problem(text)
            if problem is not None:
                raise ValueError(f"the value of {key}, {_quoted(text)}, is not valid: {problem}")
        return value

    @field_validator("key_prefix", mode="before")
    @classmethod
    def _strip_slash(cls, value: Any) -> Any:
        return value.rstrip("/") if isinstance(value, str) else value

    @field_validator("key_prefix")
    @classmethod
    def _kubectl_prefix(cls, value: str, info: ValidationInfo) -> str:
        # kubectl reads and writes only applyset.kubernetes.io/ (kubernetes/kubectl
        # pkg/cmd/apply/applyset.go, ApplySetParentIDLabel and the other keys)
        if info.data.get("mode") == "kubectl" and value != "applyset.kubernetes.io":
            raise ValueError(
                f"kubectl mode needs applyset.kubernetes.io (kubectl reads only that prefix), "
                f"got {value!r}"
            )
        return value

    def effective_tooling(self) -> str:
        if self.tooling:
            return self.tooling
        return f"kubectl/{self.kubectl_version}" if self.mode == "kubectl" else "krmfn/v1"

    def key(self, name: str) -> str:
        return f"{self.key_prefix}/{name}"
