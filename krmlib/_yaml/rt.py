"""The ruamel round trip, for the items a function edits (imported only when one is edited).

Comments, key order and quoting survive; plain strings stay plain; ``True`` and ``~`` keep their
spelling; new strings that a YAML 1.1 or 1.2 reader would take for another type are double-quoted.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from typing import Any, TypeVar

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.emitter import RoundTripEmitter
from ruamel.yaml.error import CommentMark
from ruamel.yaml.events import MappingEndEvent, SequenceEndEvent
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, PlainScalarString
from ruamel.yaml.tokens import CommentToken

from krmlib._base.errors import InputError

from .scalars import StyledBool, StyledNull, needs_escapes, needs_quotes

T = TypeVar("T")


def _represent_str(representer: RoundTripRepresenter, data: str) -> Any:
    style = '"' if needs_quotes(data) or needs_escapes(data) else None
    if "\n" in data and style is None:
        style = "|"
    return representer.represent_scalar("tag:yaml.org,2002:str", data, style=style)


class _Representer(RoundTripRepresenter):
    def represent_key(self, data: Any) -> Any:
        # Keys read from the input are PlainScalarStrings and stay as written; a new key that a
        # YAML 1.1 or 1.2 reader would take for another type (``yes``, ``1``, ``null``) is quoted.
        if type(data) is str:
            style = '"' if needs_quotes(data) or needs_escapes(data) else None
            # No alias key: represent_scalar would file this key's node under the object
            # represented last (an anchored value before it), and that value's aliases would
            # then name the key (``&id001 labels:``).
            self.alias_key = None
            return self.represent_scalar("tag:yaml.org,2002:str", data, style=style)
        return super().represent_key(data)


_Representer.add_representer(str, _represent_str)


class _Constructor12(RoundTripConstructor):
    def construct_object(self, node: Any, deep: bool = False) -> Any:
        # Every anchor keeps the name it was written with. ruamel drops names of its own
        # pattern (id001, id002: PyYAML's and kyaml's too) from maps and lists and makes new
        # ones on a dump, from id001 again: a kept scalar anchor id001 and a renamed map then
        # share a name, and a later alias reads the wrong value (the layout oracle found it).
        data = super().construct_object(node, deep=deep)
        kept = node.anchor and isinstance(data, CommentedMap | CommentedSeq)
        if kept and data.yaml_anchor() is None:
            data.yaml_set_anchor(node.anchor)
        return data

    def construct_yaml_sbool(self, node: Any) -> Any:
        value = super().construct_yaml_sbool(node)
        if type(value) is not bool and isinstance(value, int):
            # An anchored boolean: ruamel's ScalarBoolean, an int that read as 1 (the layout
            # oracle found ``controller: &id true`` aliased and edited written as 1). Kept as
            # the boolean it is, in its spelling; its aliases become copies of it.
            return StyledBool(bool(value), node.value)
        if node.value in ("true", "false") or not isinstance(value, bool):
            return value
        return StyledBool(value, node.value)

    def construct_yaml_str(self, node: Any) -> Any:
        # Plain strings remember they were plain, so that re-emitting never adds quotes to a
        # value the user wrote bare (``name: n``), while new strings get quoted when ambiguous.
        value = super().construct_yaml_str(node)
        if type(value) is str and node.style is None:
            return PlainScalarString(value, anchor=node.anchor)
        return value

    def construct_yaml_null(self, node: Any) -> Any:
        if node.value in ("null", ""):
            return None
        return StyledNull(node.value)


_Constructor12.add_constructor("tag:yaml.org,2002:bool", _Constructor12.construct_yaml_sbool)
_Constructor12.add_constructor("tag:yaml.org,2002:null", _Constructor12.construct_yaml_null)
_Constructor12.add_constructor("tag:yaml.org,2002:str", _Constructor12.construct_yaml_str)


class _Emitter(RoundTripEmitter):
    # An empty flow map or list ended without clearing the "directly after `- `" state that a
    # line comment before the list set (ruamel 0.19 clears it after a non-empty one): the next
    # entry's dash then went on the line before, ``- a -`` (two entries read as one string; the
    # edit property found it). The state ends with the collection, as it does for a full one.
    def expect_first_flow_mapping_key(self) -> None:
        empty = isinstance(self.event, MappingEndEvent) and not _eol_comment(self.event)
        super().expect_first_flow_mapping_key()
        if empty:
            self.no_newline = False

    def expect_first_flow_sequence_item(self) -> None:
        empty = isinstance(self.event, SequenceEndEvent) and not _eol_comment(self.event)
        super().expect_first_flow_sequence_item()
        if empty:
            self.no_newline = False


def _eol_comment(event: Any) -> bool:
    return bool(event.comment and event.comment[0])


def _represent_styled(representer: RoundTripRepresenter, data: Any) -> Any:
    tag = "tag:yaml.org,2002:bool" if isinstance(data, StyledBool) else "tag:yaml.org,2002:null"
    return representer.represent_scalar(tag, data.text)


_Representer.add_representer(StyledBool, _represent_styled)
_Representer.add_representer(StyledNull, _represent_styled)


def _make_yaml() -> YAML:
    engine = YAML(typ="rt")
    engine.Constructor = _Constructor12
    engine.Representer = _Representer
    engine.Emitter = _Emitter
    engine.preserve_quotes = True
    engine.width = 1_000_000
    engine.allow_unicode = True
    engine.indent(mapping=2, sequence=2, offset=0)
    engine.allow_duplicate_keys = False
    return engine


_ENGINES: list[YAML] = []


def _engine() -> YAML:
    if not _ENGINES:
        _ENGINES.append(_make_yaml())
    return _ENGINES[0]


def load_rt(text: str) -> Any:
    """Round-trip parse of one document."""
    return _parse(lambda: _engine().load(text))


def load_rt_all(text: str) -> list[Any]:
    """Round-trip parse of a multi-document stream."""
    return _parse(lambda: [doc for doc in _engine().load_all(text) if doc is not None])


def _parse(load: Callable[[], T]) -> T:
    """Run a ruamel load; its errors become InputErrors with line and column."""
    import warnings

    from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning, YAMLError

    try:
        # kpt's ResourceList reuses each file's anchor names (id001 in many items); an alias
        # reads the nearest anchor before it, as YAML says: legal, and not worth a line on
        # stderr. Silenced for this load only: the caller's own warning filters stay as they are.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=ReusedAnchorWarning)
            return load()
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is None:
            raise InputError(f"invalid YAML: {problem}") from None
        raise InputError(
            f"invalid YAML: {problem}", line=mark.line + 1, column=mark.column + 1
        ) from None
    except YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}") from None
    except RecursionError:
        raise InputError("YAML nesting too deep") from None
    finally:
        # A "%YAML"/"%TAG" directive read stays on the engine and would start every later
        # dump (an item written as "- %YAML 1.2"): what was read is forgotten.
        engine = _engine()
        engine.version = None
        engine.tags = None


def dump(node: Any) -> str:
    """One document (a round-trip tree or plain values) as ruamel writes it in kyaml's style.
    Not read back: :func:`krmlib._yaml.dump_rt` holds it to the tree (this module stays below
    the plain reader it would need for that)."""
    out = io.StringIO()
    _engine().dump(node, out)
    text = out.getvalue()
    if text.endswith("\n...\n"):
        # ruamel ends a document whose last scalar keeps its final newlines (``|+``) with the
        # document end marker; the text is one piece of a stream (an item of a ResourceList, a
        # document of a file), where the marker would end the stream. The kept newlines stay
        # the scalar's without it: the next line is less indented, or the end.
        text = text[:-4]
    return text


def agrees(node: Any, read: Any) -> bool:
    """Whether ``read`` (plain values read back from a dump of ``node``) is ``node``'s data
    (True where a value cannot be compared: a merge key, a complex key, a timestamp)."""
    return _agrees(node, read)


def _agrees(node: Any, read: Any) -> bool:
    if isinstance(node, dict):
        if getattr(node, "merge", None):
            return isinstance(read, dict)  # a merge key (``<<``): read as a key by the plain reader
        if not isinstance(read, dict) or len(node) != len(read):
            return False
        for key, value in node.items():
            if not isinstance(key, str | int | float | bool) and key is not None:
                continue  # a complex key
            found = read.get(key, _ABSENT)
            if found is _ABSENT or not _agrees(value, found):
                return False
        return True
    if isinstance(node, list):
        if not isinstance(read, list) or len(node) != len(read):
            return False
        return all(_agrees(a, b) for a, b in zip(node, read, strict=True))
    if isinstance(node, StyledBool):
        return read is bool(node)
    if isinstance(node, StyledNull):
        return read is None
    if isinstance(node, str):
        return isinstance(read, str) and read == str(node)
    if isinstance(node, bool) or node is None:
        return read is node
    if isinstance(node, float) and math.isnan(node):
        return isinstance(read, float) and math.isnan(read)
    if isinstance(node, int | float):
        return type(read) is not bool and isinstance(read, int | float) and read == node
    return True  # a timestamp, binary data: not compared


_ABSENT = object()


def to_node(value: Any) -> Any:
    """Plain values as round-trip nodes (so later edits can carry comments)."""
    if isinstance(value, CommentedMap | CommentedSeq):
        return value
    if isinstance(value, dict):
        node = CommentedMap()
        for key, item in value.items():
            node[key] = to_node(item)
        return node
    if isinstance(value, list | tuple):
        seq = CommentedSeq()
        seq.extend(to_node(item) for item in value)
        return seq
    return value


def restyle(old: Any, new: Any) -> Any:
    """Give a new string scalar the quoting of the scalar it replaces."""
    if isinstance(old, PlainScalarString):
        old = None  # a bare string: the new value is quoted only when it has to be
    if isinstance(new, str) and needs_escapes(new):
        return DoubleQuotedScalarString(new)  # any other style would fold its line breaks
    if isinstance(new, str) and isinstance(old, str) and type(old) is not str:
        try:
            return type(old)(new)
        except TypeError:  # pragma: no cover - scalar string types take one argument
            return new
    if isinstance(new, str) and type(new) is str and needs_quotes(new):
        return DoubleQuotedScalarString(new)
    return new


def new_map() -> Any:
    return CommentedMap()


def _trailing_holder(node: Any) -> tuple[Any, Any] | None:
    """The (map, key) whose comment slot holds what follows ``node``'s last line: the deepest
    last key of a block map (None for anything else)."""
    holder = None
    while isinstance(node, CommentedMap) and len(node):
        key = list(node)[-1]
        holder = (node, key)
        node = node[key]
    return holder


def add_key(parent: Any, key: Any, value: Any) -> None:
    """``parent[key] = value`` for a new key of a round-trip map, keeping full-line comments
    that stood after the map's old last entry where they were: below the new entry, above
    whatever followed the map (ruamel keeps them on the old last key, so a new key would go
    under them; issue 15.9)."""
    holder = _trailing_holder(parent) if key not in parent else None
    parent[key] = value
    if holder is None:
        return
    old_map, old_key = holder
    slot = old_map.ca.items.get(old_key)
    token = slot[2] if slot and len(slot) > 2 else None
    text = getattr(token, "value", None)
    if token is None or not isinstance(text, str) or "\n" not in text:
        return
    line_end = text.index("\n") + 1
    rest = text[line_end:]
    if not rest:
        return
    if text[:line_end].strip():
        token.value = text[:line_end]
    else:
        slot[2] = None
    target = _trailing_holder(value) if isinstance(value, CommentedMap) else None
    new_map_, new_key = target if target is not None else (parent, key)
    new_slot = new_map_.ca.items.setdefault(new_key, [None, None, None, None])
    new_slot[2] = CommentToken("\n" + rest, CommentMark(0), None)
