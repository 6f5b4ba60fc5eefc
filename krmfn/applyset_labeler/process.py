"""process(): make the package an ApplySet."""

from __future__ import annotations

from krmlib import KrmError, KubeObject, ResourceList, Results, check_names

from .applyset_id import applyset_id
from .config import Config, ParentRef
from .members import (
    Member,
    check_controller,
    check_part_of,
    is_member_candidate,
    label_members,
    owner_reference_allowed,
    resolve,
    set_owner_reference,
)
from .parent import (
    annotate_parent,
    check_kubectl_parent,
    check_parent,
    find_parent,
    is_core_parent,
    new_parent,
    parent_namespace,
)
from .prune import load_live_objects, preview, prune_scope
from .scope import Scopes, crd_group_kind, group_kind, is_crd


def process(rl: ResourceList, config: Config) -> None:
    items, results = rl.items, rl.results
    ref = _parent_ref(rl, config)
    check_kubectl_parent(ref, config)
    scopes = Scopes.build(items, config.cluster_scoped_kinds)
    cluster = scopes.cluster_scoped(ref.kind, ref.group)
    found = find_parent(items, ref)
    candidates = []
    left_out: list[KubeObject] = []  # kubectl mode: what `kubectl apply -f` must not see
    lists: list[tuple[KubeObject, int, KubeObject]] = []  # (List, index, its element)
    function_config = rl.function_config
    for obj in items:
        if is_member_candidate(obj, found) and not _is_config(obj, function_config):
            if obj.api_version == "v1" and obj.kind == "List":  # kubectl applies its items
                for index, element in enumerate(_list_elements(obj)):
                    lists.append((obj, index, element))
                    candidates.append(element)
                continue
            candidates.append(obj)
        elif config.mode == "kubectl" and obj is not found:
            left_out.append(obj)
        else:
            obj.release()  # read only to be left out: its scanned annotations go (memory)
    # A flag per candidate, not a pair (thousands of them: memory)
    flags = [scopes.cluster_scoped(o.kind, o.group) for o in candidates]
    pairs = zip(candidates, flags, strict=True)
    explicit = [o.namespace for o, cluster_scoped in pairs if not cluster_scoped and o.namespace]
    field = config.field_path("parent.namespace")
    namespace = parent_namespace(ref, found, cluster, explicit, field)
    set_id = applyset_id(ref.name, namespace, ref.kind, ref.group)

    members = [resolve(o, c, namespace) for o, c in zip(candidates, flags, strict=True)]
    del flags
    ok = all([check_part_of(m, set_id, results) for m in members])
    ok = _check_namespaces(members, cluster, config, results) and ok
    if config.mode == "kubectl":
        ok = _check_kubectl_namespace(members, namespace, cluster, results) and ok
        ok = _check_kubectl_files(members, left_out, results) and ok
    ok = (found is None or check_parent(found, set_id, config, results)) and ok
    owners = _owner_plan(members, ref, namespace, cluster, config, results)
    ok = all([check_controller(m, owner, results) for m, owner in owners]) and ok
    _check_mode(members, found, ref, set_id, config, results)
    if not ok:
        return  # nothing is written when a check fails

    # Read before the members are written to (a write makes an item's text new to read).
    kinds = {(m.obj.kind, m.obj.api_version) for m in members}  # a few: each item read once
    group_kinds = sorted({group_kind(kind, api.rpartition("/")[0]) for kind, api in kinds})
    namespaces = sorted({m.namespace for m in members if m.namespace and m.namespace != namespace})
    label_members(members, set_id, config, results)
    for member, owner in owners:
        set_owner_reference(member, owner)
    for holder, index, element in lists:
        _write_back(holder, index, element)

    parent = found
    if parent is None and is_core_parent(ref):
        named_by_config = bool(config.parent.name)  # else the Kptfile's name (issue 27.1)
        check_names(
            ref.name,
            namespace,
            kind=ref.kind,
            source=None if named_by_config else rl.package().kptfile,
            field=config.field_path("parent.name") if named_by_config else "metadata.name",
            namespace_field=config.field_path("parent.namespace"),
        )
        parent = items.append(new_parent(ref, namespace, set_id, config))
        results.info(f"created the parent {ref.group_kind}/{ref.name} in {parent.path}", parent)
    if parent is not None:
        annotate_parent(parent, set_id, group_kinds, namespaces, config)
    else:
        _report_remote_parent(ref, namespace, set_id, group_kinds, namespaces, config, results)
    _mark_parent_crd(ref, scopes, config)

    results.info(
        f"ApplySet {set_id} ({config.mode} mode): parent {ref.group_kind}/{ref.name}"
        + (f" in {namespace}" if namespace else "")
        + f", {len(members)} members, group-kinds {','.join(group_kinds) or '(none)'}"
    )
    if config.mode == "kubectl":
        results.info(_kubectl_command(ref, namespace, parent, members, scopes))
    if config.live_objects is not None:
        live = load_live_objects(config.live_objects, items)
        scope = prune_scope(live, ref, namespace, set_id, config)
        if scope is None and config.mode == "kubectl":
            results.info(
                f"the live objects hold no parent {ref.group_kind}/{ref.name}: kubectl prunes "
                "only in the live parent's group-kinds and namespaces; add the live parent to "
                "the snapshot to limit the preview as kubectl does"
            )
        preview(members, live, set_id, config.key("part-of"), scopes, results, scope)
    if not any(obj.changed for obj in items):
        results.info("nothing to do: the package is already this ApplySet")


def _check_mode(
    members: list[Member],
    parent: KubeObject | None,
    ref: ParentRef,
    set_id: str,
    config: Config,
    results: Results,
) -> None:
    """Warn when the package looks made for the other mode than the configured one."""
    field = config.field_path("mode")
    if config.mode == "kubectl":
        key = config.key("part-of")
        labelled = [m.obj for m in members if m.obj.labels.get(key) == set_id]
        if labelled:
            results.warning(
                f"the package looks like managed mode: {len(labelled)} member(s) carry "
                f"{key}={set_id}, which kubectl mode removes (kubectl sets it itself); "
                f"if krmfn, not kubectl, applies this package, set mode to managed",
                field=field,
            )
    elif parent is not None and parent.is_local_config and is_core_parent(ref):
        results.warning(
            f"the package looks like kubectl mode: the parent {parent.kind}/{parent.name} is "
            f"local-config (kpt does not apply it; kubectl mode makes it so); if kubectl applies "
            f"this package, set mode to kubectl",
            parent,
            field,
        )


def _parent_ref(rl: ResourceList, config: Config) -> ParentRef:
    """spec.parent, with the name defaulting to the package's (the Kptfile's metadata.name)."""
    ref = config.parent
    if ref.name:
        return ref
    kptfile = rl.package().kptfile  # the rendered package's, not a subpackage's
    if kptfile is None:
        field = config.field_path("parent.name")
        raise KrmError(
            f"{field} is not set and there is no Kptfile to take the package name from",
            field=field,
        )
    return ref.model_copy(update={"name": kptfile.name})


def _list_elements(holder: KubeObject) -> list[KubeObject]:
    """The objects a ``v1 List`` holds (kubectl applies them, not the List): each a member of
    its own, written back by :func:`_write_back`. An element that is not an object is an error
    naming it."""
    elements = holder.get("items") or []
    if not isinstance(elements, list):
        raise KrmError("a v1 List's items must be a list", obj=holder, field="items")
    out = []
    for index, element in enumerate(elements):
        obj = KubeObject.from_dict(element) if isinstance(element, dict) else None
        if obj is None or not obj.kind or not obj.name:
            raise KrmError(
                f"items[{index}] of the v1 List is not an object with a kind and a name",
                obj=holder,
                field=f"items[{index}]",
            )
        out.append(obj)
    return out


def _write_back(holder: KubeObject, index: int, element: KubeObject) -> None:
    """The labels and ownerReferences the member got, into the List's element (each label by
    its own path: the element's other text, comments included, stays)."""
    base: tuple[str | int, ...] = ("items", index, "metadata")
    before = holder.get(base) or {}
    old = before.get("labels") if isinstance(before, dict) else None
    old = old if isinstance(old, dict) else {}
    new = element.labels
    for key in old:
        if key not in new:
            holder.delete((*base, "labels", key))
    for key, value in new.items():
        if old.get(key) != value:
            holder.set((*base, "labels", key), value)
    refs = element.owner_references
    if refs and (before.get("ownerReferences") if isinstance(before, dict) else None) != refs:
        holder.set((*base, "ownerReferences"), refs)


def _is_config(obj: KubeObject, config: KubeObject | None) -> bool:
    return (
        config is not None
        and obj.name == config.name  # first: it tells almost every item apart
        and obj.kind == config.kind
        and obj.api_version == config.api_version
    )


def _check_namespaces(
    members: list[Member], parent_cluster: bool, config: Config, results: Results
) -> bool:
    """A cluster-scoped parent cannot give namespace-less namespaced members a namespace.

    kubectl can: it applies them into the namespace of ``-n`` or of the kubeconfig's context, and
    records and prunes that namespace (kubernetes/kubectl pkg/cmd/apply/applyset.go,
    ``addResource`` with the object's namespace as the builder defaulted it).
    """
    ok = True
    if parent_cluster:
        for member in members:
            if member.cluster_scoped or member.namespace:
                continue
            if config.mode == "kubectl":
                results.info(
                    f"namespaced {member.obj.kind} without a namespace under a cluster-scoped "
                    "parent: kubectl applies it into the namespace of -n or of the kubeconfig's "
                    "context (default: default) and prunes it there; set metadata.namespace to "
                    "choose",
                    member.obj,
                    "metadata.namespace",
                )
                continue
            results.error(
                f"namespaced {member.obj.kind} without a namespace under a cluster-scoped "
                f"parent: it could never be pruned; set metadata.namespace",
                member.obj,
                "metadata.namespace",
            )
            ok = False
    return ok


def _check_kubectl_namespace(
    members: list[Member], namespace: str, parent_cluster: bool, results: Results
) -> bool:
    """A namespaced parent needs ``kubectl apply -n <its namespace>``, and with ``-n`` kubectl
    refuses every object of another namespace (after applying the ones before it): such a member
    cannot be in the set in kubectl mode (kubernetes/kubectl pkg/cmd/apply/apply.go: the parent's
    namespace comes from the flag only; the builder's EnforceNamespace)."""
    if parent_cluster:
        return True
    ok = True
    for member in members:
        if member.cluster_scoped or member.namespace == namespace:
            continue
        results.error(
            f"kubectl mode: the member is in namespace {member.namespace} and the parent in "
            f"{namespace}; kubectl apply -n {namespace} refuses it (the namespace from the "
            f"provided object does not match), after applying part of the set; move it to "
            f"{namespace}, use a cluster-scoped parent, or use managed mode",
            member.obj,
            "metadata.namespace",
        )
        ok = False
    return ok


def _check_kubectl_files(
    members: list[Member], left_out: list[KubeObject], results: Results
) -> bool:
    """``kubectl apply -f FILE`` applies every object of the file: an item that is not a member
    (local-config, a function config) must not share a file with members."""
    files = {m.obj.path for m in members if m.obj.path}
    ok = True
    for obj in left_out:
        if obj.path in files:
            results.error(
                f"kubectl mode: {obj.kind}/{obj.name} is not a member (local-config) but shares "
                f"{obj.path} with members; kubectl apply -f {obj.path} would apply it too (kubectl "
                "does not read config.kubernetes.io/local-config); move it to its own file",
                obj,
                "metadata.annotations",
            )
            ok = False
    return ok


def _owner_plan(
    members: list[Member],
    ref: ParentRef,
    namespace: str,
    cluster: bool,
    config: Config,
    results: Results,
) -> list[tuple[Member, dict[str, object]]]:
    """The members that get an ownerReference to the parent, and the reference."""
    owners = config.owner_references
    if owners is None:
        return []
    owner: dict[str, object] = {
        "apiVersion": ref.api_version,
        "kind": ref.kind,
        "name": ref.name,
        "uid": owners.uid,
    }
    if owners.controller:
        owner["controller"] = True
    if owners.block_owner_deletion:
        owner["blockOwnerDeletion"] = True
    plan = []
    for member in members:
        if is_crd(member.obj) and crd_group_kind(member.obj) == ref.group_kind:
            results.info(
                "no ownerReference on the parent's own CRD: deleting the parent would delete "
                "the CRD and with it every object of the kind",
                member.obj,
                "metadata.ownerReferences",
            )
        elif owner_reference_allowed(member, namespace, cluster):
            plan.append((member, owner))
        else:
            where = (
                "cluster-scoped" if member.cluster_scoped else f"in namespace {member.namespace}"
            )
            results.info(
                f"no ownerReference to the parent: the member is {where} and the parent is in "
                f"namespace {namespace} (Kubernetes allows only same-namespace or cluster-scoped "
                f"owners)",
                member.obj,
                "metadata.ownerReferences",
            )
    return plan


def _report_remote_parent(
    ref: ParentRef,
    namespace: str,
    set_id: str,
    group_kinds: list[str],
    namespaces: list[str],
    config: Config,
    results: Results,
) -> None:
    """A custom-resource parent outside the package: say what it must carry."""
    where = f" in namespace {namespace}" if namespace else ""
    needs = [f"label {config.key('id')}={set_id}"]
    needs.append(f"annotation {config.key('tooling')}={config.effective_tooling()}")
    needs.append(f"annotation {config.key('contains-group-kinds')}={','.join(group_kinds)}")
    if namespaces:
        needs.append(f"annotation {config.key('additional-namespaces')}={','.join(namespaces)}")
    must = " and must exist before kubectl runs" if config.mode == "kubectl" else ""
    results.warning(
        f"the parent {ref.group_kind}/{ref.name}{where} is not in the package{must}; "
        f"it needs {'; '.join(needs)}",
        field="spec.parent",
    )


def _mark_parent_crd(ref: ParentRef, scopes: Scopes, config: Config) -> None:
    crd = scopes.crds.get(ref.group_kind)
    if crd is not None and is_crd(crd) and crd_group_kind(crd) == ref.group_kind:
        key = config.key("is-parent-type")
        if crd.labels.get(key) != "true":
            crd.labels[key] = "true"


def _kubectl_command(
    ref: ParentRef,
    namespace: str,
    parent: KubeObject | None,
    members: list[Member],
    scopes: Scopes,
) -> str:
    # The parent's resource as kubectl's RESTMapper reads it: the CRD's plural when the package
    # has the CRD, else the lower-case singular (discovery maps it for every resource; a guessed
    # plural such as policys is not a resource); core parents: secrets, configmaps.
    if is_core_parent(ref):
        resource = f"{ref.kind.lower()}s"
    else:
        resource = scopes.plural(ref.kind, ref.group) or ref.kind.lower()
    applyset = f"{resource}.{ref.group}/{ref.name}" if ref.group else f"{resource}/{ref.name}"
    files: list[str] = []
    parent_file = parent.path if parent is not None else None
    for member in members:
        path = member.obj.path
        if path and path not in files:
            files.append(path)
    args = ["KUBECTL_APPLYSET=true kubectl apply"]
    if namespace:
        args.append(f"-n {namespace}")
    args.append(f"--prune --applyset={applyset}")
    args.extend(f"-f {path}" for path in files)
    notes = ""
    if parent_file and parent_file in files:
        notes = f"; {parent_file} holds the parent and members: move the parent to its own file"
    if not is_core_parent(ref):
        guessed = "" if scopes.plural(ref.kind, ref.group) else " (its CRD is not in the package)"
        notes += (
            f"; the {ref.kind} parent{guessed} must exist before kubectl runs"
            f" (apply {parent_file} first)"
            if parent_file
            else f"; the {ref.kind} parent{guessed} must exist before kubectl runs"
        )
    return "apply with kubectl: " + " ".join(args) + notes
