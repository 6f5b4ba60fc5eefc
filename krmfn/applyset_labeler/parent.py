"""The parent: find it in the package or create a ConfigMap/Secret; check and annotate it."""

from __future__ import annotations

from collections.abc import Iterable

from krmlib import (
    ANN_LOCAL_CONFIG,
    Items,
    KrmError,
    KubeObject,
    Results,
    default_file_name,
    format_path,
)

from .config import Config, ParentRef

CORE_PARENT_KINDS = ("ConfigMap", "Secret")


def find_parent(items: Items, ref: ParentRef) -> KubeObject | None:
    """The item matching the parent's group, kind, name (and namespace when both give one)."""
    for obj in items:
        if (
            obj.kind == ref.kind
            and obj.group == ref.group
            and obj.name == ref.name
            and (not ref.namespace or not obj.namespace or obj.namespace == ref.namespace)
        ):
            return obj
    return None


# Kubernetes' own API groups: a kind there is built in, never a custom resource.
_BUILT_IN_GROUPS = frozenset({"", "apps", "batch", "autoscaling", "policy", "extensions"})


def check_kubectl_parent(ref: ParentRef, config: Config) -> None:
    """In kubectl mode the parent must be a kind kubectl accepts as an ApplySet parent: a
    ConfigMap, a Secret, or a custom resource (whose CRD carries the label
    ``applyset.kubernetes.io/is-parent-type``); a built-in kind such as a Deployment is refused
    (kubernetes/kubectl ``pkg/cmd/apply/applyset.go``, issue 27.6)."""
    if config.mode != "kubectl" or is_core_parent(ref):
        return
    if ref.group in _BUILT_IN_GROUPS or ref.group.endswith(".k8s.io"):
        raise KrmError(
            f"kubectl does not accept a {ref.group_kind} as an ApplySet parent: in kubectl mode "
            "the parent is a ConfigMap, a Secret or a custom resource whose CRD is labelled "
            "applyset.kubernetes.io/is-parent-type",
            field="spec.parent.kind",
        )


def is_core_parent(ref: ParentRef) -> bool:
    return ref.group == "" and ref.kind in CORE_PARENT_KINDS


def parent_namespace(
    ref: ParentRef,
    found: KubeObject | None,
    cluster: bool,
    explicit: Iterable[str],
    field: str = "spec.parent.namespace",
) -> str:
    """The parent's namespace: config, else the item's, else the one namespace members name."""
    if cluster:
        if ref.namespace or (found is not None and found.namespace):
            raise KrmError(
                f"the parent {ref.group_kind} is cluster-scoped and takes no namespace",
                obj=found,
                field=field if ref.namespace else "metadata.namespace",
            )
        return ""
    if ref.namespace:
        return ref.namespace
    if found is not None and found.namespace:
        return found.namespace
    names = sorted(set(explicit))
    if len(names) == 1:
        return names[0]
    listed = f" (members use {', '.join(names)})" if names else ""
    raise KrmError(
        f"the namespaced parent {ref.kind}/{ref.name} needs a namespace: set {field}{listed}",
        field=field,
    )


def new_parent(ref: ParentRef, namespace: str, set_id: str, config: Config) -> KubeObject:
    """A ConfigMap or Secret parent (local-config in kubectl mode: kubectl maintains it)."""
    metadata: dict[str, object] = {"name": ref.name}
    if namespace:
        metadata["namespace"] = namespace
    metadata["labels"] = {config.key("id"): set_id}
    annotations = {ANN_LOCAL_CONFIG: "true"} if config.mode == "kubectl" else {}
    annotations[config.key("tooling")] = config.effective_tooling()
    metadata["annotations"] = annotations
    obj = KubeObject.from_dict(
        {"apiVersion": ref.api_version, "kind": ref.kind, "metadata": metadata}
    )
    obj.set_path(default_file_name(ref.kind, ref.name))
    return obj


def tool_name(tooling: str) -> str:
    return tooling.split("/", 1)[0]


def check_parent(parent: KubeObject, set_id: str, config: Config, results: Results) -> bool:
    """A parent labelled for another identity or managed by another tool is not ours to take.

    ``spec.force`` turns both errors into warnings and takes the parent over.
    """
    ok = True
    id_key = config.key("id")
    current = parent.labels.get(id_key)
    if current and current != set_id:
        message = (
            f"the parent's {id_key} label {current} does not match its identity "
            f"({parent.name}.{parent.namespace}.{parent.kind}.{parent.group} gives {set_id})"
        )
        ok = _refuse(message, parent, format_path(("metadata", "labels", id_key)), config, results)
    tool_key = config.key("tooling")
    tooling = parent.annotations.get(tool_key)
    wanted = config.effective_tooling()
    if tooling and tool_name(tooling) != tool_name(wanted):
        message = f"the parent is managed by tooling {tooling}, not {tool_name(wanted)}"
        field = format_path(("metadata", "annotations", tool_key))
        ok = _refuse(message, parent, field, config, results) and ok
    return ok


def _refuse(message: str, obj: KubeObject, field: str, config: Config, results: Results) -> bool:
    if config.force:
        results.warning(f"{message}; taken over (spec.force)", obj, field)
        return True
    results.error(f"{message}; set spec.force: true to take it over", obj, field)
    return False


def annotate_parent(
    parent: KubeObject, set_id: str, group_kinds: list[str], namespaces: list[str], config: Config
) -> None:
    """The id label and the tooling, group-kinds and additional-namespaces annotations."""
    if parent.labels.get(config.key("id")) != set_id:
        parent.labels[config.key("id")] = set_id
    tooling = config.effective_tooling()
    current = parent.annotations.get(config.key("tooling"), "")
    if not config.tooling and current and tool_name(current) == tool_name(tooling):
        tooling = current  # same tool, another version: the tool updates it itself
    wanted = {
        config.key("tooling"): tooling,
        config.key("contains-group-kinds"): ",".join(group_kinds),
        config.key("additional-namespaces"): ",".join(namespaces),
    }
    annotations = parent.annotations
    for key, value in wanted.items():
        if value or key == config.key("contains-group-kinds"):  # kubectl requires that one
            if annotations.get(key) != value:
                annotations[key] = value
        elif key in annotations:
            del annotations[key]
