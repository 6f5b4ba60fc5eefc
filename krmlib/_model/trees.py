"""Edits of a parsed tree (ruamel's round-trip nodes or plain values) for the storage: walk
a path, add a key, assign keeping what the old node held; and the item/document text forms.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from krmlib._base.errors import FieldTypeError
from krmlib._base.paths import Key, format_path
from krmlib._yaml import engines as _yaml

if TYPE_CHECKING:
    from .object import KubeObject


MISSING: Any = object()


def _add_key(parent: Any, key: Key, value: Any) -> None:
    """A new key of a round-trip map, comments after the map's old last entry kept in place."""
    from krmlib._yaml.rt import add_key

    add_key(parent, key, value)


def _anchored(node: Any) -> bool:
    """A round-trip node with an anchor (an alias is the same node as its anchor)."""
    anchor = getattr(node, "yaml_anchor", None)
    return anchor is not None and anchor() is not None


def _merged(node: Any, key: str) -> bool:
    """``key`` of a round-trip map comes from a merge key (``<<``), not from the map itself."""
    own = getattr(node, "_ok", None)
    return own is not None and bool(getattr(node, "merge", None)) and key not in own


def _places(root: Any, target: Any) -> list[tuple[Any, Key]]:
    """Where ``target`` sits under ``root`` (container, key), in document order."""
    found: list[tuple[Any, Key]] = []
    seen: set[int] = set()

    def visit(node: Any) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        entries = node.items() if isinstance(node, dict) else enumerate(node)
        for at, value in entries:
            if value is target:
                found.append((node, at))
            elif isinstance(value, dict | list):
                visit(value)

    visit(root)
    return found


def _str(value: Any) -> str:
    return "" if value is MISSING or value is None else str(value)


def _child(node: Any, key: Key) -> Any:
    if isinstance(key, int):
        if isinstance(node, list) and -len(node) <= key < len(node):
            return node[key]
        return MISSING
    if isinstance(node, dict):
        return node.get(key, MISSING)
    return MISSING


def walk(node: Any, keys: tuple[Key, ...], obj: KubeObject | None = None) -> Any:
    """The value at ``keys`` under ``node``, or :data:`MISSING`; with ``obj``, a key of the
    wrong kind for what it meets (an index into a map, a key into a scalar) is an error."""
    for depth, key in enumerate(keys):
        if node is None:
            return MISSING
        if isinstance(key, int) and not isinstance(node, list):
            if isinstance(node, dict) and obj is not None:
                raise FieldTypeError(
                    f"{obj!r}: {format_path(keys[:depth])} is a map, not a list",
                    obj=obj,
                    field=format_path(keys[:depth]),
                )
            return MISSING
        if isinstance(key, str) and not isinstance(node, dict):
            if obj is not None and depth > 0:
                raise FieldTypeError(
                    f"{obj!r}: {format_path(keys[:depth])} is not a map",
                    obj=obj,
                    field=format_path(keys[:depth]),
                )
            return MISSING
        node = _child(node, key)
        if node is MISSING:
            return MISSING
    return node


def _assign(old: Any, new: Any) -> Any:
    """The node to store for ``new``, reusing ``old``'s nodes (and comments) where equal."""
    if isinstance(new, Mapping):
        if isinstance(old, dict) and not isinstance(old, list):
            for key in [k for k in old if k not in new]:
                del old[key]
            for key, value in new.items():
                current = old.get(key, MISSING)
                if current is not MISSING and same_plain(_yaml.to_plain(current), value):
                    continue
                old[key] = _assign(current, value)
            return old
        node = _yaml.new_map()
        for key, value in new.items():
            node[key] = _assign(MISSING, value)
        return node
    if isinstance(new, list | tuple):
        if isinstance(old, list):
            del old[len(new) :]
            for index, value in enumerate(new):
                if index < len(old):
                    if not same_plain(_yaml.to_plain(old[index]), value):
                        old[index] = _assign(old[index], value)
                else:
                    old.append(_assign(MISSING, value))
            return old
        return _yaml.to_node([_assign(MISSING, value) for value in new])
    return _yaml.restyle(old, new)


def parent_of(node: Any, keys: tuple[Key, ...], create: bool, plain: bool, obj: KubeObject) -> Any:
    """The map or list ``keys[-1]`` is in, under ``node`` (a plain tree when ``plain``, else
    ruamel's); missing maps and lists on the way made when ``create`` (else KeyError)."""
    for depth, key in enumerate(keys[:-1]):
        child: Any = _child(node, key)
        if child is MISSING or child is None:
            if not create:
                raise KeyError(key)
            child = {} if isinstance(keys[depth + 1], str) else []
            if not plain:
                child = _yaml.to_node(child)
            if isinstance(key, int):
                node.append(child)
            elif plain:
                node[key] = child
            else:
                _add_key(node, key, child)
        elif not isinstance(child, dict | list):
            raise FieldTypeError(
                f"{obj!r}: {format_path(keys[: depth + 1])} is not a map or list",
                obj=obj,
                field=format_path(keys[: depth + 1]),
            )
        node = child
    return node


def same_plain(a: Any, b: Any) -> bool:
    """``a == b`` as YAML sees plain values: ``1``, ``1.0`` and ``true`` are three values
    (Python's ``==`` calls them one); a tuple is a list, any mapping a map."""
    if isinstance(a, Mapping):
        return (
            isinstance(b, Mapping)
            and len(a) == len(b)
            and all(k in b and same_plain(v, b[k]) for k, v in a.items())
        )
    if isinstance(a, list | tuple):
        return (
            isinstance(b, list | tuple)
            and len(a) == len(b)
            and all(same_plain(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(b, Mapping | list | tuple):
        return False
    if isinstance(a, bool) is not isinstance(b, bool):
        return False
    if isinstance(a, float) is not isinstance(b, float):
        return False
    return bool(a == b)


def own_path(root: Any, keys: tuple[Key, ...]) -> None:
    """Make every map and list on the path of ``keys`` the object's own before an edit of
    the round-trip tree: an edit never reaches through an alias (``labels: *l`` edited
    leaves ``matchLabels: &l`` as it was), nor through an anchor others alias, nor into a
    map a merge key (``<<: *base``) brings. The edited occurrence gets an expanded copy
    (as kyaml's de-anchoring expands it), or, when it is the anchor and its aliases are in
    this object, each alias does; an anchor no edit reaches stays as it is. The text
    splicer never edits through an anchor or alias (it gives way to this tree)."""
    node = root
    for key in keys:
        child = _child(node, key)
        if not isinstance(child, dict | list):
            return
        if isinstance(key, str) and _merged(node, key):
            child = _yaml.to_node(_yaml.to_plain(child))
            node[key] = child  # the merged value as the map's own key
        elif _anchored(child):
            child = _unshare(root, node, key, child)
        node = child


def _unshare(root: Any, parent: Any, key: Key, child: Any) -> Any:
    """``parent[key]`` (an anchored node) as a node no other place of the object shares."""
    places = _places(root, child)
    if len(places) > 1 and places[0][0] is parent and places[0][1] == key:
        for container, at in places[1:]:  # the anchor is edited: its aliases expand
            container[at] = _yaml.to_node(_yaml.to_plain(child))
        return child
    own = _yaml.to_node(_yaml.to_plain(child))  # an alias (or an anchor an item may share)
    parent[key] = own
    return own


def item_to_doc(text: str) -> str:
    """A ResourceList items entry (``- `` + indented lines) as a standalone document."""
    lines = text.split("\n")
    first = lines[0]
    out = [first[2:] if first.startswith("- ") else first[1:]]
    out.extend(line[2:] if line.startswith("  ") else line.lstrip(" ") for line in lines[1:])
    return "\n".join(out)


def doc_to_item(text: str) -> str:
    """A standalone document as a ResourceList items entry."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = ["- " + lines[0]] if lines else ["- {}"]
    out.extend("  " + line if line else "" for line in lines[1:])
    return "\n".join(out) + "\n"
