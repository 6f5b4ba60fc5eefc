"""Reading and writing ResourceLists, Lists and plain streams.

kpt writes a ResourceList in one regular block style: ``items:`` at column 0, each item a ``- ``
entry whose lines are indented by two. The reader splits that text into items without parsing
them; an item is parsed only when a function reads it, and written back as its original text when
nothing changed it. Anything irregular falls back to a full round-trip parse.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from typing import Any, Literal

from . import _background, _emit, _storage, _syntax, _yaml
from .collection import Items
from .errors import InputError, KrmError, internal_error
from .object import KubeObject, doc_to_item, span_object
from .pkgpath import check_path_annotations
from .results import Result, Results

RL_API_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")
RL_KIND = "ResourceList"

InputForm = Literal["resourcelist", "list", "stream"]
Span = tuple[str, int, int]  # (text, start, stop): a part of the input, sliced when written
SPAN_RUN = 256 * 1024  # the longest run of unedited items written as one slice


class ResourceList:
    """The function's input and output: items, the functionConfig and the results."""

    __slots__ = (
        "_extra",
        "_failure",
        "_input_results",
        "_pending",
        "api_version",
        "form",
        "function_config",
        "items",
        "results",
    )

    def __init__(
        self,
        items: Items | None = None,
        function_config: KubeObject | None = None,
        results: Results | None = None,
        form: InputForm = "resourcelist",
        api_version: str = "config.kubernetes.io/v1",
    ) -> None:
        self.items = Items() if items is None else items
        self.function_config = function_config
        self.results = Results() if results is None else results
        self.form: InputForm = form
        self.api_version = api_version
        # Top-level sections of the input we do not interpret, kept as text (in input order).
        self._extra: list[tuple[str, str]] = []
        self._input_results = ""
        self._pending: _background.Pending | None = None  # the input check, running in a child
        self._failure: list[Result] = []  # what it found

    def __repr__(self) -> str:
        return f"<ResourceList {self.form}: {len(self.items)} items, {len(self.results)} results>"

    # --- reading ----------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, *, background: bool = False) -> ResourceList:
        """Read a ResourceList, a v1 List or a stream of objects.

        Every byte is checked (``_syntax``) before this returns, or, with ``background`` and a
        big input, in a forked child while the caller goes on (``_background``): the caller
        must then ask :meth:`check_failure` before it writes anything or has side effects.
        """
        if text.startswith("\ufeff"):
            text = text[1:]
        _yaml.check_bounds(text)
        if background and _START.match(text) is None and _background.wanted(len(text)):
            pending = _background.start(functools.partial(check_results, text))
            try:
                rl = cls._read(text, None)
            except Exception:
                failure = _verdict(pending)
                if failure:
                    raise CheckFailed(failure) from None
                return cls.parse(text)  # the check passed: the error as the checked read says
            rl._pending = pending
            return rl
        return cls._read(text, _syntax.check_syntax(text))  # every byte, read by a function or not

    @classmethod
    def _read(cls, text: str, outline: _syntax.Outline | None) -> ResourceList:
        """Split the text into items; ``outline``: what the check learned (None: checked apart,
        and the text does not start with a directive or ``---``)."""
        start = _START.match(text)
        skipped = 0
        if start is not None and outline is not None and outline.documents == 1:
            # "%YAML 1.2" and "---" before the only document: read what follows them.
            skipped = text.count("\n", 0, start.end())
            text = text[start.end() :]
        fast = _split(text, skipped)
        rl = fast if fast is not None else _parse_full(text)
        if outline is None:
            for index, obj in enumerate(rl.items):
                _check_item(obj, index)
            return rl
        outline.check(rl.form != "stream")
        heads = outline.items if rl.form != "stream" else outline.docs
        matched = len(heads) == len(rl.items)
        if matched:
            for obj, head in zip(rl.items, heads, strict=True):
                _storage.of(obj).offer_header(head.header())
        for index, obj in enumerate(rl.items):
            _check_item(obj, index)
        # The pass checked every path annotation as decoded (escapes, folded lines, flow maps);
        # an item with an alias, a merge key or a tagged key is decoded whole to be sure.
        for index, obj in enumerate(rl.items):
            if not matched or heads[index].merged:
                check_path_annotations(obj)
        return rl

    def check_failure(self) -> list[Result]:
        """The error results of the input check when it failed, else ``[]``.

        With :meth:`parse`'s ``background``, this waits for the check's verdict."""
        if self._pending is not None:
            self._failure = _verdict(self._pending)
            self._pending = None
        return self._failure

    def verify(self) -> None:
        """Raise :class:`CheckFailed` if the input check failed (waiting for it if needed):
        call it before a side effect (running a plugin) that unchecked input must not cause."""
        failure = self.check_failure()
        if failure:
            raise CheckFailed(failure)

    # --- writing ----------------------------------------------------------------------------

    def to_yaml(self, with_results: bool = True) -> str:
        """One YAML document: the ResourceList (items in their order, then results).

        ``with_results=False`` leaves out every result, earlier functions' included."""
        return "".join(self.iter_yaml(with_results))

    def iter_yaml(self, with_results: bool = True) -> Iterator[str]:
        """The pieces of :meth:`to_yaml`, so a big output can be written without joining it."""
        for piece in self.pieces(with_results):
            yield piece if isinstance(piece, str) else piece[0][piece[1] : piece[2]]

    def pieces(self, with_results: bool = True) -> Iterator[str | Span]:
        """The pieces of :meth:`to_yaml`, with runs of unedited items as spans of the input
        text (``(text, start, stop)``, at most :data:`SPAN_RUN` long): everything that can fail
        is done when the pieces are listed; slicing a span when it is written cannot."""
        yield f"apiVersion: {self.api_version}\nkind: {RL_KIND}\n"
        if len(self.items):
            yield "items:\n"
            run: Span | None = None
            for obj in self.items:
                span = _storage.of(obj).span_of_input()
                # An item edited in place: the input before the edit, the edit, the input after.
                patched = _storage.of(obj).patched_span() if span is None else None
                if patched is not None:
                    span = patched[0]
                if (
                    span is not None
                    and run is not None
                    and span[0] is run[0]
                    and span[1] == run[2]
                    and span[2] - run[1] <= SPAN_RUN
                ):
                    run = (run[0], run[1], span[2])
                else:
                    if run is not None:
                        yield run
                        run = None
                    if span is not None:
                        run = span
                    else:
                        yield obj.to_item()
                        continue
                if patched is not None:
                    assert run is not None
                    yield run
                    if isinstance(patched[1], str):
                        yield patched[1]
                    else:
                        yield from patched[1]  # a big insertion's pieces
                    run = patched[2]
            if run is not None:
                yield run
        else:
            yield "items: []\n"
        if self.function_config is not None:
            yield "functionConfig:\n" + _indent(self.function_config.to_yaml())
        for _key, section in self._extra:
            yield section
        results = self.results.sorted() if with_results else []
        earlier = self._input_results if with_results else ""
        if results or earlier:
            yield "results:\n" + earlier
            for result in results:
                data = result.to_dict()
                yield _emit.emit_item(data) or doc_to_item(_yaml.dump_plain(data))

    def to_stream(self) -> str:
        """The items as a multi-document stream (standalone use)."""
        return "---\n".join(obj.to_yaml() for obj in self.items)


def _indent(text: str) -> str:
    return "".join("  " + line if line.strip() else "\n" for line in text.splitlines(keepends=True))


class CheckFailed(InputError):
    """The input check (run apart) refused the input; ``results`` are its error results."""

    def __init__(self, results: list[Result]) -> None:
        super().__init__(results[0].message if results else "the input check failed")
        self.results = results


def check_results(text: str) -> list[Result]:
    """What reading ``text`` with every byte checked says: ``[]``, or the error results the
    runner would write (the work of the background check)."""
    rl = ResourceList()
    try:
        ResourceList.parse(text)
    except KrmError as exc:
        rl.results.from_error(exc)
    except Exception as exc:
        rl.results.error(internal_error(exc))
    return list(rl.results)


def _verdict(pending: _background.Pending) -> list[Result]:
    try:
        results: list[Result] = pending.result()
    except _background.ChildFailed as exc:
        return [Result(message=internal_error(exc))]
    return results


# Directives (only %YAML: a %TAG handle would change what the items' text means) and the "---"
# before a single document.
_START = re.compile(r"(?:(?:%YAML[ \t]+1\.[0-9]+[ \t]*)?(?:#[^\n]*)?\n)*---[ \t]*\n")
_TOP_KEY = re.compile(r"([A-Za-z][A-Za-z0-9_]*):(.*)")


_SECTION = re.compile(r"\n(?=[^ \n-])")  # before column-0 lines other than list entries
_ODD_DASH = re.compile(r"\n-(?![ \n])")  # "---", "-x" at column 0: not kpt's layout
_ITEM_START = re.compile(r"\n-(?: |\n)")


def _split(text: str, skipped: int = 0) -> ResourceList | None:
    """The fast path: split kpt's regular ResourceList layout; None if the text is irregular.

    ``skipped``: lines before ``text`` in the input (a directive, ``---``)."""
    if _ODD_DASH.search(text) or (text.startswith("-") and not text.startswith(("- ", "-\n"))):
        return None
    if text and not text.endswith("\n"):
        text += "\n"
    sections: list[tuple[str, str, str]] = []  # (key, inline value, body text; "" for items)
    items_span = (0, 0)  # the items section's body, by offsets (not copied: it is most of the text)
    body_lines: dict[str, int] = {}  # key -> line number of the body's first line
    if not text or text[0] in " \n-":
        return None
    starts = [0] + [match.start() + 1 for match in _SECTION.finditer(text)]
    for index, start in enumerate(starts):
        line_end = text.find("\n", start)
        top = _TOP_KEY.fullmatch(text, start, line_end)
        if top is None:
            return None  # comments at column 0, document markers, flow style: full parse
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        if top.group(1) == "items":
            body_lines["items"] = text.count("\n", 0, line_end) + 2 + skipped
            items_span = (line_end + 1, end)
            sections.append((top.group(1), top.group(2).strip(), ""))
        else:
            sections.append((top.group(1), top.group(2).strip(), text[line_end + 1 : end]))
    keys = [key for key, _, _ in sections]
    if len(set(keys)) != len(keys):
        return None
    header = {key: value for key, value, _ in sections}
    kind = header.get("kind")
    api_version = header.get("apiVersion", "")
    if kind not in (RL_KIND, "List"):
        return None
    if kind == RL_KIND and api_version not in RL_API_VERSIONS:
        return None
    rl = ResourceList(form="resourcelist" if kind == RL_KIND else "list")
    has_items = False
    for key, value, body in sections:
        if key in ("apiVersion", "kind"):
            if body.strip():
                return None
            continue
        if key == "items":
            has_items = True
            begin, end = items_span
            blank = _CONTENT.search(text, begin, end) is None
            if value == "[]" and blank:
                continue
            if value or not _split_items(text, begin, end, rl, body_lines["items"]):
                return None
        elif key == "functionConfig":
            if value and value != "{}":
                return None
            if body.strip():
                lines = body.split("\n")
                doc = "\n".join(line[2:] if line.startswith("  ") else line for line in lines)
                rl.function_config = KubeObject.from_yaml(doc)
        elif key == "results":
            if value == "[]":
                continue
            if value:
                return None
            rl._input_results = body
        else:
            rl._extra.append((key, f"{key}:{' ' + value if value else ''}\n{body}"))
    if not has_items:
        raise InputError("the ResourceList has no items")
    return rl


_CONTENT = re.compile(r"\S")
_FIRST = re.compile(r"[^\n]")


def _split_items(text: str, begin: int, end: int, rl: ResourceList, first_line: int) -> bool:
    """Cut ``text[begin:end]`` (the items section) at its column-0 ``- `` entries; False if it is
    not that layout."""
    if _CONTENT.search(text, begin, end) is None:
        return True
    first = _FIRST.search(text, begin, end)
    if first is None or text[first.start()] != "-":
        return False  # indented entries or stray content: full parse
    if _yaml.has_token(text, "*", begin, end):
        return False  # an alias may point into another item: parse the whole list
    starts = [begin] if text.startswith("-", begin) else []
    starts += [match.start() + 1 for match in _ITEM_START.finditer(text, begin, end)]
    starts.append(end)
    line = first_line + text.count("\n", begin, starts[0])
    for start, stop in itertools.pairwise(starts):
        if text.startswith("-\n", start) or (stop - start == 1 and text[start] == "-"):
            return False
        obj = span_object(text, start, stop)  # the item's text stays in the input's
        obj.input_line = line
        line += text.count("\n", start, stop)
        rl.items.append(obj)
    return True


def _parse_full(text: str) -> ResourceList:
    """The slow path: any YAML the round-trip parser reads."""
    docs = _yaml.load_rt_all(text)
    if len(docs) == 1 and isinstance(docs[0], dict) and docs[0].get("kind") in (RL_KIND, "List"):
        doc = docs[0]
        kind = doc.get("kind")
        if kind == RL_KIND and doc.get("apiVersion") not in RL_API_VERSIONS:
            raise InputError(
                f"unsupported ResourceList apiVersion {doc.get('apiVersion')!r}",
                field="apiVersion",
            )
        if "items" not in doc:
            raise InputError("the ResourceList has no items", field="items")
        items = doc.get("items") or []
        if not isinstance(items, list):
            raise InputError("items must be a list", field="items")
        rl = ResourceList(form="resourcelist" if kind == RL_KIND else "list")
        for index, item in enumerate(items):
            rl.items.append(_node_object(item, f"items[{index}]"))
        config = doc.get("functionConfig")
        if isinstance(config, dict) and config:
            rl.function_config = KubeObject(node=config)
            _storage.of(rl.function_config).mark_read()
        results = doc.get("results")
        if isinstance(results, list) and results:
            rl._input_results = doc_to_item_list(results)
        return rl
    if not docs:
        raise InputError("empty input: expected a ResourceList, a List or YAML objects")
    if any(isinstance(doc, dict) and doc.get("kind") == RL_KIND for doc in docs):
        raise InputError("a ResourceList must be the only YAML document of the input")
    rl = ResourceList(form="stream")
    for index, doc in enumerate(docs):
        rl.items.append(_node_object(doc, f"document {index + 1}"))
    return rl


def _check_item(obj: KubeObject, index: int) -> None:
    """Every item needs apiVersion, kind and metadata.name (read cheaply, parsed if unsure)."""
    try:
        head = (obj.api_version, obj.kind, obj.name)
    except InputError as exc:
        line = exc.line
        if line is not None and obj.input_line:
            line += obj.input_line - 1
        column = exc.column
        if column is not None and obj.input_line:
            column += 2  # the item's lines are indented under "- "
        raise InputError(f"items[{index}]: {exc.message}", line=line, column=column) from None
    for value, path in zip(head, ("apiVersion", "kind", "metadata.name"), strict=True):
        if not value:
            raise InputError(f"items[{index}] has no {path}", field=path)
    if _BAD_NAME.search(obj.name) or obj.name in (".", "..") or len(obj.name) > 253:
        raise InputError(
            f"items[{index}] ({obj.kind}): metadata.name {obj.name!r} can never be a valid "
            "Kubernetes name (no '/', '%', whitespace or control characters; at most 253)",
            obj=obj,
            field="metadata.name",
        )


_BAD_NAME = re.compile(r"[/%\s\x00-\x1f\x7f]")


def _node_object(node: Any, where: str) -> KubeObject:
    if not isinstance(node, dict):
        raise InputError(f"{where} is not a mapping")
    obj = KubeObject(node=node)
    _storage.of(obj).mark_read()
    return obj


def doc_to_item_list(values: list[Any]) -> str:
    return "".join(doc_to_item(_yaml.dump_rt(value)) for value in values)
