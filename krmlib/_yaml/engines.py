"""The YAML engines, kept private: a fast read-only loader (libyaml) and the round-trip engine.

Nothing outside krmlib sees a ruamel or PyYAML type: values leave through :func:`to_plain`.

- :func:`load_plain` parses one document with libyaml into plain Python values, resolving scalars by
  the YAML 1.2 core schema (as kyaml does), keeping timestamps as strings and rejecting duplicate
  keys. It is only used to read items.
- :func:`load_rt` / :func:`dump_rt` are the ruamel round trip, used for the items a function edits:
  comments, key order and quoting survive; new strings that a YAML 1.1 or 1.2 reader would take for
  another type are written double-quoted.
"""

from __future__ import annotations

import re
import sys
from sys import intern
from typing import Any

from krmlib._base.errors import InputError, KrmError

from . import libyaml as _libyaml
from .scalars import StyledBool, StyledNull

# Bounds that keep hostile input from exhausting memory or the stack.
MAX_DEPTH = 500
MAX_NODES = 1_000_000


_DEEP_FLOW = r"(?:[\[{]\s*){64}"  # compiled on first use (re caches it): not at start-up


MAX_INPUT = 512 * 1024 * 1024
# compiled on first use (re caches it): not at start-up
_PYTHON_TAG = r"!!python/|!<tag:yaml\.org,2002:python/|tag:yaml\.org,2002:python/"
# Controls YAML refuses, compiled on first use: a class past U+00FF is built as a 64K-entry table,
# about 2.6 M instructions at every start (issue 37); ASCII text is asked by _no_control first,
# the pattern only finds the one it saw (or reads text that is not ASCII).
_CONTROL = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]"
_DEEP_SEQ = r"(?:-[ \t]+){100}"  # compiled on first use (re caches it): not at start-up


# The control characters of _CONTROL that an ASCII text can hold, as bytes: deleted from a
# chunk by bytes.translate (C, a few ns a byte: the regex takes four times as long on 6 MB).
_CONTROL_BYTES = bytes([*range(9), 11, 12, *range(14, 32), 127])


def _no_control(text: str) -> bool:
    """True only when ``text`` certainly holds no character of ``_CONTROL``: an ASCII text whose
    every chunk loses nothing to the deletion of those bytes. False when unsure (not ASCII, or
    one found: the regex then finds it and its line)."""
    if not text.isascii():
        return False
    for at in range(0, len(text), 1 << 16):
        chunk = text[at : at + (1 << 16)].encode("ascii")
        if len(chunk.translate(None, _CONTROL_BYTES)) != len(chunk):
            return False
    return True


def check_bounds(text: str) -> bool:
    """Reject input whose shape would make a YAML engine blow up (alias bombs, deep nesting),
    and constructor tags that only a unsafe loader would act on. Returns whether the text may
    hold an alias (an anchor token and an alias token: without both, none can be valid)."""
    if len(text) > MAX_INPUT:
        raise InputError(f"input too large ({len(text)} characters, at most {MAX_INPUT})")
    control = None if _no_control(text) else re.search(_CONTROL, text)
    if control:
        line = text.count("\n", 0, control.start()) + 1
        raise InputError(
            f"control character {control.group(0)!r} is not allowed in YAML", line=line
        )
    match = re.search(_PYTHON_TAG, text) if "python/" in text else None
    if match:
        line = text.count("\n", 0, match.start()) + 1
        raise InputError(f"constructor tag {match.group(0)!r} is not allowed", line=line)
    if "- - - - " in text and re.search(_DEEP_SEQ, text):
        raise InputError("YAML nesting too deep (more than 100 nested sequences on one line)")
    aliased = has_token(text, "&") and has_token(text, "*")
    if aliased:
        _check_alias_expansion(text)
    if text.count("[") + text.count("{") > 64 and re.search(_DEEP_FLOW, text):
        depth = _flow_depth(text)
        if depth > MAX_DEPTH:
            raise InputError(f"YAML nesting too deep ({depth} levels, at most {MAX_DEPTH})")
    if _max_indent(text) > 2 * MAX_DEPTH:
        raise InputError(f"YAML nesting too deep (indentation over {2 * MAX_DEPTH} columns)")
    return aliased


def _check_alias_expansion(text: str) -> None:
    """Refuse documents whose aliases would expand to more than MAX_NODES nodes."""
    memo: dict[int, int] = {}
    sequence, mapping = _libyaml.SequenceNode, _libyaml.MappingNode

    def size(node: Any) -> int:
        key = id(node)
        if key in memo:
            return memo[key]
        memo[key] = 1  # a recursive alias counts once
        total = 1
        if isinstance(node, sequence):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, mapping):
            total += sum(size(k) + size(v) for k, v in node.value)
        memo[key] = total
        return total

    from .full import CoreLoader

    try:
        loader = CoreLoader(text)
        try:
            while loader.check_node():
                node = loader.get_node()
                if node is not None and size(node) > MAX_NODES:
                    raise InputError(
                        f"YAML aliases expand to more than {MAX_NODES} nodes (an alias bomb?)"
                    )
        finally:
            loader.dispose()
    except _libyaml.YAMLError:
        return  # the real parse reports syntax errors with their position
    except RecursionError:
        raise InputError("YAML nesting too deep") from None


def _flow_depth(text: str) -> int:
    depth = best = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


_DEEP_INDENT = "\n" + " " * (2 * MAX_DEPTH + 1)


def _max_indent(text: str) -> int:
    """Over 2 * MAX_DEPTH when some line is indented that deep (only the fact matters)."""
    return 2 * MAX_DEPTH + 1 if _DEEP_INDENT in text else 0


_TOKEN_BEFORE = frozenset(" \t\n[{,:-")


def has_token(text: str, sign: str, start: int = 0, end: int | None = None) -> bool:
    """True if ``sign`` starts an anchor/alias token in ``text[start:end]`` (after a space,
    ``[``, ``-``...)."""
    stop = len(text) if end is None else end
    at = text.find(sign, start, stop)
    while at != -1:
        before_ok = at == 0 or text[at - 1] in _TOKEN_BEFORE
        if before_ok and text[at + 1 : at + 2] not in ("", " ", "\n"):
            return True
        at = text.find(sign, at + 1, stop)
    return False


def load_plain(text: str) -> Any:
    """Parse one YAML document into plain Python values (fast, read-only)."""
    try:
        try:
            return _build(text)
        except _Unusual:
            pass  # anchors, tags, complex or duplicate keys, several documents: the full loader
        from .full import CoreLoader

        loader = CoreLoader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except _libyaml.MarkedYAMLError as exc:
        raise _marked_error(exc) from None
    except _libyaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}") from None
    except RecursionError:
        raise InputError("YAML nesting too deep") from None
    except ValueError as exc:  # an integer past Python's digit limit
        raise InputError(f"invalid YAML: {exc}") from None


class _Unusual(Exception):
    """The document needs the full loader."""


def _build(text: str) -> Any:
    """Plain values straight from libyaml's events, for documents without anchors, tags or
    complex keys (what kpt writes). Equal to what :class:`~krmlib._yaml.full.CoreLoader` builds,
    in one loop and without PyYAML's node graph."""
    libyaml = _libyaml
    parser = libyaml.CParser(text)
    try:
        get: Any = parser.get_event
        get()  # StreamStart
        event: Any = get()
        stream_end, doc_end = libyaml.StreamEndEvent, libyaml.DocumentEndEvent
        if type(event) is stream_end:
            return None
        scalar, map_start, seq_start = (
            libyaml.ScalarEvent,
            libyaml.MappingStartEvent,
            libyaml.SequenceStartEvent,
        )
        map_end, seq_end = libyaml.MappingEndEvent, libyaml.SequenceEndEvent
        resolve_first = _RESOLVE_FIRST
        resolve = _resolve
        stack: list[tuple[Any, bool]] = []
        current: Any = None
        is_map = False
        key: Any = _NO_KEY
        root: Any = None
        while True:
            event = get()
            kind = type(event)
            if kind is scalar:
                if event.anchor is not None or event.tag is not None:
                    raise _Unusual
                value: Any = event.value
                if event.implicit[0] and (not value or value[0] in resolve_first):
                    value = resolve(value)
                if is_map:
                    if key is _NO_KEY:
                        if value in current:
                            raise _Unusual  # the full loader words the error
                        # Interned: the same keys repeat in every item (memory, faster lookups).
                        key = intern(value) if type(value) is str else value
                    else:
                        # Short values interned too: "True", "v1", a reason shared by conditions.
                        if type(value) is str and len(value) <= 48:
                            value = intern(value)
                        current[key] = value
                        key = _NO_KEY
                elif current is not None:
                    current.append(value)
                else:
                    root = value
            elif kind is map_start or kind is seq_start:
                if event.anchor is not None or event.tag is not None:
                    raise _Unusual
                new: Any = {} if kind is map_start else []
                if is_map:
                    if key is _NO_KEY:
                        raise _Unusual  # a complex key
                    current[key] = new
                    key = _NO_KEY
                elif current is not None:
                    current.append(new)
                else:
                    root = new
                stack.append((current, is_map))
                current, is_map = new, kind is map_start
            elif kind is map_end or kind is seq_end:
                current, is_map = stack.pop()
            elif kind is doc_end:
                if type(get()) is not stream_end:
                    raise _Unusual  # a second document: the full loader refuses it
                return root
            else:  # an alias
                raise _Unusual
    finally:
        parser.dispose()


_NO_KEY: Any = object()
_RESOLVE_FIRST = frozenset("~nNtTfF-+0123456789.")
_NULL_12 = frozenset(("", "~", "null", "Null", "NULL"))
_BOOL_12 = {"true": True, "True": True, "TRUE": True, "false": False, "False": False}
_BOOL_12["FALSE"] = False
_INT_12 = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT_12 = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


def _resolve(value: str) -> Any:
    """A plain scalar by the YAML 1.2 core schema, as the full loader's resolver and
    constructor read it."""
    if value in _NULL_12:
        return None
    first = value[0]
    if first in "tTfF":
        return _BOOL_12.get(value, value)
    if first in "nN~":
        return value
    if first != "." and _INT_12.match(value):
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value)
    if _FLOAT_12.match(value):
        number = value.lower()
        sign = -1.0 if number[0] == "-" else 1.0
        if number[0] in "+-":
            number = number[1:]
        if number == ".inf":
            return sign * float("inf")
        if number == ".nan":
            return float("nan")
        return sign * float(number)
    return value


def _marked_error(exc: Any) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "invalid YAML"
    if mark is None:
        return InputError(f"invalid YAML: {problem}")
    return InputError(f"invalid YAML: {problem}", line=mark.line + 1, column=mark.column + 1)


# --- round trip (ruamel, imported on first use: start-up stays light) --------------------------


def load_rt(text: str) -> Any:
    """Round-trip parse of one document."""
    from . import rt as _rt

    return _rt.load_rt(untab(text))


def load_rt_all(text: str) -> list[Any]:
    """Round-trip parse of a multi-document stream."""
    from . import rt as _rt

    return _rt.load_rt_all(untab(text))


def untab(text: str) -> str:
    """``text`` with each tab that separates tokens (``key:<TAB>value``, valid YAML that libyaml
    reads) replaced by a space, for the round-trip parser, which refuses a tab there; tabs in
    scalars and comments are kept. Offsets and columns do not move (one character for one)."""
    if "\t" not in text:
        return text
    parser = _libyaml.CParser(text)
    pieces: list[str] = []
    done = 0
    try:
        while (token := parser.get_token()) is not None:
            start, end = token.start_mark.index, token.end_mark.index
            if start < done:
                continue
            gap = text[done:start]
            if "\t" in gap:
                gap = re.sub(_GAP_TAB, lambda m: m.group(0).replace("\t", " "), gap)
            pieces.append(gap)
            pieces.append(text[start:end])
            done = end
    except _libyaml.YAMLError:
        return text  # the round trip says what is wrong
    finally:
        parser.dispose()
    pieces.append(text[done:])
    return "".join(pieces)


_GAP_TAB = r"(?m)^[^#\n]*"  # each line of a gap up to a comment (compiled on first use)


def dump_rt(node: Any) -> str:
    """Serialise one document (a round-trip tree or plain values) in kyaml's style.

    The text is read back and held to the tree: ruamel's emitter has joined two entries of a
    block list into one string before (``- a -``). Text that reads to other data is never
    returned: the same data written again from plain values (its comments lost, the data kept),
    or, if that too reads differently, an error naming the reason."""
    from . import rt as _rt

    text = _rt.dump(node)
    if _reads_as(text, node):
        return text
    again = _rt.dump(_rt.to_node(to_plain(node)))
    if _reads_as(again, node):
        return again
    raise KrmError(f"{_named(node)}the YAML writer would change this item's data; not written")


def _named(node: Any) -> str:
    """``kind name: `` of an object's tree (empty for anything else)."""
    if not isinstance(node, dict):
        return ""
    meta = node.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return f"{node.get('kind')} {name}: " if node.get("kind") and name else ""


def _reads_as(text: str, node: Any) -> bool:
    """``text`` reads to the data of ``node`` (True where a value cannot be compared: a merge
    key, a complex key, a timestamp, a tag the plain reader does not know)."""
    from . import rt as _rt

    try:
        read = load_plain(text)
    except KrmError:
        try:
            load_rt(text)  # a complex key or a local tag: read only by the round trip
        except KrmError:
            return False
        return True
    return _rt.agrees(node, read)


def dump_plain(data: dict[str, Any]) -> str:
    """Plain values as a YAML document: the small emitter, or the round trip when it is unsure."""
    from .emit import emit

    text = emit(data)
    return text if text is not None else dump_rt(to_node(data))


def to_node(value: Any) -> Any:
    """Plain values as round-trip nodes (so later edits can carry comments)."""
    from . import rt as _rt

    return _rt.to_node(value)


def restyle(old: Any, new: Any) -> Any:
    """Give a new string scalar the quoting of the scalar it replaces."""
    from . import rt as _rt

    return _rt.restyle(old, new)


def new_map() -> Any:
    from . import rt as _rt

    return _rt.new_map()


# --- conversions ---------------------------------------------------------------------------------


def to_plain(value: Any, budget: list[int] | None = None) -> Any:
    """Deep copy of a YAML value as plain dict/list/str/int/float/bool/None."""
    return _copy(value, [MAX_NODES] if budget is None else budget)


def _copy(value: Any, budget: list[int]) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value  # already plain (the common case: no isinstance chain)
    if isinstance(value, dict | list):
        budget[0] -= 1 + (2 * len(value) if isinstance(value, dict) else len(value))
        if budget[0] < 0:
            raise InputError(f"document too large (more than {MAX_NODES} nodes)")
        if isinstance(value, dict):
            return {_copy(k, budget): _copy(v, budget) for k, v in value.items()}
        return [_copy(v, budget) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, StyledBool):
        return bool(value)
    if isinstance(value, StyledNull):
        return None
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    dates = sys.modules.get("datetime")  # no date can exist before datetime is imported
    if dates is not None and isinstance(value, dates.date):  # a datetime is a date too
        return value.isoformat()
    return value
