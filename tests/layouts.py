"""The layouts of YAML that kpt accepts, made from any YAML text: the layout oracle's generator.

Each layout re-writes a stream of documents (a package file, a functionConfig, a whole
ResourceList) so that a YAML 1.2 reader (yaml.v3 in kpt, ruamel in krmlib) reads the same data,
with a different text: flow maps, JSON, other indentations, quoting, comments on and between
every line, anchors for repeated values, document markers and a directive, CRLF line ends.

The text is re-made from PyYAML's node graph (``yaml.compose_all``), so each scalar keeps its
tag and quoting and nothing is re-resolved: a plain ``1.10`` stays plain, a quoted ``"100"``
stays a string. Only the JSON layout re-reads the data (with a YAML 1.2 reader, as kpt does).
Whether kpt really reads a layout to the same data is not assumed: the oracle asks ``kpt fn
source`` for every case and layout (tests/test_layout_oracle.py).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import Any

import yaml
from ruamel.yaml import YAML

Node = yaml.Node
_SAFE_WORDS = re.compile(r"^[A-Za-z_][A-Za-z0-9_./-]*$")
_NOT_STRINGS = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf"}


def load_data(text: str) -> list[Any]:
    """Every document of ``text`` as plain data, read as kpt reads it (YAML 1.2)."""
    import warnings

    from ruamel.yaml.error import ReusedAnchorWarning

    reader = YAML(typ="safe", pure=True)
    with warnings.catch_warnings():  # kpt's anchor names repeat across items: legal YAML
        warnings.filterwarnings("ignore", category=ReusedAnchorWarning)
        return [doc for doc in reader.load_all(text) if doc is not None]


class _Indented(yaml.SafeDumper):
    """Block sequences indented under their key (``key:\\n  - a``), not kpt's compact form."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _walk(node: Node, seen: set[int] | None = None) -> list[Node]:
    """Every node once, parents first (aliases are the same object: visited once)."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return []
    seen.add(id(node))
    out = [node]
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out += _walk(key, seen) + _walk(value, seen)
    elif isinstance(node, yaml.SequenceNode):
        for value in node.value:
            out += _walk(value, seen)
    return out


def _no_block_scalars(node: Node) -> None:
    """Multi-line scalars as double-quoted one-liners (so a line is one key or one item)."""
    for each in _walk(node):
        if isinstance(each, yaml.ScalarNode) and each.style in ("|", ">"):
            each.style = '"'


def _emit(
    docs: list[Node],
    *,
    dumper: type[yaml.SafeDumper] = yaml.SafeDumper,
    indent: int = 2,
    width: float = 1e9,
    start: bool = False,
    end: bool = False,
    version: tuple[int, int] | None = None,
) -> str:
    out = io.StringIO()
    yaml.serialize_all(
        docs,
        out,
        Dumper=dumper,
        indent=indent,
        width=width,
        allow_unicode=True,
        explicit_start=start or len(docs) > 1,
        explicit_end=end,
        version=version,
    )
    # a flow document starts on the line after its marker: kpt refuses `--- {...}`
    return re.sub(r"^--- (?=[{\[])", "---\n", out.getvalue(), flags=re.M)


def _block(docs: list[Node]) -> list[Node]:
    """Every non-empty collection in block style (a flow one in the input included)."""
    for doc in docs:
        for node in _walk(doc):
            if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.value:
                node.flow_style = False
    return docs


def _metadata_flow(docs: list[Node]) -> list[Node]:
    for doc in docs:
        for node in _walk(doc):
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if key.value == "metadata" and isinstance(value, yaml.MappingNode):
                        value.flow_style = True
    return docs


def _all_flow(docs: list[Node]) -> list[Node]:
    for doc in docs:
        for node in _walk(doc):
            if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
                node.flow_style = True
    return docs


def _quoted(docs: list[Node]) -> list[Node]:
    """Every key, and every plain value that is a string whatever the YAML version, quoted."""
    for doc in docs:
        for node in _walk(doc):
            for scalar in _children(node):
                if (
                    isinstance(scalar, yaml.ScalarNode)
                    and scalar.style is None
                    and scalar.tag == "tag:yaml.org,2002:str"
                    and _SAFE_WORDS.match(scalar.value)
                    and scalar.value.lower() not in _NOT_STRINGS
                ):
                    scalar.style = '"'
    return docs


def _children(node: Node) -> list[Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _signature(node: Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return f"s:{node.tag}:{node.style}:{node.value}"
    if isinstance(node, yaml.MappingNode):
        inner = ",".join(f"{_signature(k)}={_signature(v)}" for k, v in node.value)
        return f"m:{node.flow_style}{{{inner}}}"
    return "l[" + ",".join(_signature(v) for v in node.value) + "]"


def _value(node: Node, key: str) -> Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                found: Node = v
                return found
    return None


def _headers(doc: Node) -> set[int]:
    """The header of each object of ``doc`` (itself, or a ResourceList's items): the object,
    its metadata, apiVersion, kind, metadata.name and metadata.namespace."""
    items = _value(doc, "items")
    objects = list(items.value) if isinstance(items, yaml.SequenceNode) else [doc]
    out: set[int] = set()
    for obj in objects:
        metadata = _value(obj, "metadata")
        out.update({id(obj), id(metadata)})
        for node in (
            _value(obj, "apiVersion"),
            _value(obj, "kind"),
            None if metadata is None else _value(metadata, "name"),
            None if metadata is None else _value(metadata, "namespace"),
        ):
            if node is not None:
                out.add(id(node))
    return out


def _anchored(docs: list[Node]) -> list[Node]:
    """A value repeated within one document becomes an anchor and aliases (the first time it
    appears is the anchor): maps, lists and scalars of three or more characters, within one
    object and, in a ResourceList, across its items. An object's header (apiVersion, kind,
    metadata.name and namespace) may be an anchor but is never an alias: krmlib refuses an
    aliased header with an error naming the item (tests/test_layout_oracle.py)."""
    for doc in docs:
        if isinstance(doc, yaml.MappingNode):
            first: dict[str, Node] = {}
            headers = _headers(doc)
            doc.value = [(k, _share(v, first, headers)) for k, v in doc.value]
    return docs


def _share(node: Node, first: dict[str, Node], headers: set[int]) -> Node:
    """``node``, or the first node of the same value when it can be an alias of it."""
    if isinstance(node, yaml.ScalarNode):
        if len(node.value) < 3 or node.style in ("|", ">"):
            return node
    elif not node.value:
        return node
    sig = _signature(node)
    if sig in first and id(node) not in headers:
        return first[sig]
    first.setdefault(sig, node)
    if isinstance(node, yaml.MappingNode):
        node.value = [(k, _share(v, first, headers)) for k, v in node.value]
    elif isinstance(node, yaml.SequenceNode):
        node.value = [_share(v, first, headers) for v in node.value]
    return node


def _commented(text: str) -> str:
    """A comment between every two lines, and one after every line that can end in one."""
    out = ["# a comment before the document\n"]
    for line in text.splitlines():
        if line.startswith(("---", "...", "%")):
            out.append(line + "\n")
            continue
        indent = len(line) - len(line.lstrip(" "))
        out.append(" " * indent + "# between lines\n")
        out.append(line + "  # at the end of a line\n")
    return "".join(out)


def _json(text: str) -> str:
    docs = load_data(text)
    return "---\n".join(json.dumps(doc, indent=2, ensure_ascii=False) + "\n" for doc in docs)


def _nodes(text: str) -> list[Node]:
    return [doc for doc in yaml.compose_all(text, Loader=yaml.SafeLoader) if doc is not None]


LAYOUTS: dict[str, Callable[[str], str]] = {
    "flow-metadata": lambda t: _emit(_metadata_flow(_nodes(t))),
    "flow-everything": lambda t: _emit(_all_flow(_nodes(t)), width=60),
    "json": _json,
    "indent-4": lambda t: _emit(_block(_nodes(t)), dumper=_Indented, indent=4),
    "indent-3": lambda t: _emit(_block(_nodes(t)), dumper=_Indented, indent=3),
    "indented-sequences": lambda t: _emit(_block(_nodes(t)), dumper=_Indented),
    "compact-sequences": lambda t: _emit(_block(_nodes(t))),
    "quoted": lambda t: _emit(_quoted(_nodes(t))),
    "comments": lambda t: _commented(_emit(_flat(_block(_nodes(t))))),
    "anchors": lambda t: _emit(_anchored(_nodes(t))),
    "markers": lambda t: _emit(_nodes(t), start=True, end=True),
    "directive": lambda t: _emit(_nodes(t), start=True, end=True, version=(1, 2)),
    "crlf": lambda t: t.replace("\r\n", "\n").replace("\n", "\r\n"),
}


def _flat(docs: list[Node]) -> list[Node]:
    for doc in docs:
        _no_block_scalars(doc)
    return docs


def relayout(text: str, layout: str) -> str:
    """``text`` (a stream of YAML documents) in ``layout`` (one of :data:`LAYOUTS`)."""
    return LAYOUTS[layout](text)
