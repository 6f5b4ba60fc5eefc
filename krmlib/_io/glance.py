"""The output gate's glances: text that is clean at a glance (no character YAML cannot hold,
path annotations plainly inside the package) needs no closer check.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from krmlib._base.chars import ascii_writable
from krmlib._model import names
from krmlib._model import storage as _storage

if TYPE_CHECKING:
    from krmlib._model.object import KubeObject


# A path annotation the fast check is sure of: segments of letters, digits, '_', '-' and '.',
# each starting with a letter, digit or '_' (so no '.', '..', '/x', '' or control character).
_CLEAN_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)*")


# A path annotation on a line of its own, indented by spaces, its value a clean path, plain or
# quoted, that YAML reads as a string (plain: with a '/' or ending in .yaml/.yml, so never a
# number, a bool, a null or a date), the line after it not indented deeper (a plain scalar would
# go on there) nor blank (one could follow after it). It starts with a newline, a literal, so the
# regex engine skips to the lines that could be one. What kpt and krmlib write.
_PATH_LINE = (  # compiled on first use (re caches it): not at start-up
    r"\n( ++)(?:internal\.)?config\.kubernetes\.io/path: (?:"
    r"(['\"])[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)*\2"
    r"|[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)+"
    r"|[A-Za-z0-9_][A-Za-z0-9._-]*\.ya?ml"
    r")[ \t]*(?=\n(?:\Z|(?!\1 )(?![ \t]*(?:\n|\Z)))|\Z)"
)
# The same lines at the indent of an item's annotations (``- apiVersion:`` items: six spaces),
# found faster: the pattern starts with a long literal, which the regex engine looks for at
# C speed, and looks back for the line's start (interface-expander's 3,305 children at 10k:
# 3.8 ms against 6.5). Every line it finds is one of _PATH_LINE's; when it does not find them
# all, _PATH_LINE decides.
_PATH_VALUE = (
    r"(?:(['\"])[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)*\1"
    r"|[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)+"
    r"|[A-Za-z0-9_][A-Za-z0-9._-]*\.ya?ml)"
)
_PATH_LINE_ITEM = (  # compiled on first use, as _PATH_LINE
    r"config\.kubernetes\.io/path: "
    r"(?:(?<=\n      config\.kubernetes\.io/path: )"
    r"|(?<=\n      internal\.config\.kubernetes\.io/path: ))"
    + _PATH_VALUE
    + r"[ \t]*(?=\n(?:\Z|(?!       )(?![ \t]*(?:\n|\Z)))|\Z)"
)
# What YAML reads as a line break besides "\n", or an escape: then the glance is unsure.
_NOT_AT_A_GLANCE = ("\\", "\r", "\x85", "\u2028", "\u2029")


def _paths_clean_in(text: str) -> bool:
    """True when ``text`` (one object's, or many objects' joined, each on lines of its own)
    shows at a glance that every path annotation in it is clean: every mention of
    ``kubernetes.io/path`` is a line of the form above, and nothing is escaped; False when
    unsure (the decoded check then runs)."""
    mentions = text.count("kubernetes.io/path")
    if mentions == 0:
        return True
    if "\\" in text or "\r" in text:
        return False
    if not text.isascii() and any(char in text for char in _NOT_AT_A_GLANCE):
        return False
    if len(re.findall(_PATH_LINE_ITEM, text)) == mentions:
        return True
    return len(re.findall(_PATH_LINE, text)) == mentions


def _paths_clean_in_text(store: _storage.Storage) -> bool:
    """:func:`_paths_clean_in` on an object held as unedited text; False otherwise."""
    if store.node is not None or store.text is None or store.dirty:
        return False
    return _paths_clean_in("\n" + store.src)


def _no_labels_and_clean_paths(text: str) -> bool:
    """No label can be in ``text`` (no ``labels`` in it, nothing escaped), and its path
    annotations are clean at a glance."""
    return "labels" not in text and "\\" not in text and _paths_clean_in(text)


_CHUNK = 1 << 16  # characters of text checked at once (a big string costs its allocation)


def _text_clean_at_a_glance(pieces: list[Any]) -> bool:
    """True when the output's new text surely holds nothing YAML cannot carry: ASCII (then only
    C0 controls and DEL could be unwritable: deleting them changes nothing) and no escape of a
    NUL or a surrogate; False when unsure (the pieces are then searched one by one). Some
    pieces at a time: one big string would cost more to allocate than to check."""
    chunk: list[str] = []
    size = 0
    for piece in pieces:
        if type(piece) is str:
            chunk.append(piece)
            size += len(piece)
            if size >= _CHUNK:
                if not ascii_writable("".join(chunk)):
                    return False
                chunk, size = [], 0
    return ascii_writable("".join(chunk))


# Names, one a line, each a DNS-1123 subdomain (``names._SUBDOMAIN``): a chunk's at once.
# Text for re.fullmatch, compiled on first use (re caches it): a run with no new names has none.
_SUBDOMAIN_LINES = r"(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*\n)*"


def _names_ok(names_: list[str]) -> bool:
    """Every one of ``names_`` (none empty) a DNS-1123 subdomain of at most 253 characters, as
    :func:`names.subdomain_problem` wants: one regex over them joined (False: some is not, or
    holds a line break)."""
    if not names_:
        return True
    joined = "\n".join(names_) + "\n"
    return (
        joined.count("\n") == len(names_)
        and max(map(len, names_)) <= names.MAX_SUBDOMAIN
        and re.fullmatch(_SUBDOMAIN_LINES, joined) is not None
    )


def _glance_texts(
    chunk: list[tuple[int, KubeObject, _storage.Storage]],
    texts: list[str],
    names_: list[str],
    fresh: list[KubeObject],
    unsure: list[tuple[int, KubeObject, _storage.Storage]],
) -> None:
    """The objects of ``chunk`` (``texts``: theirs, each ending in a newline; ``names_``:
    theirs) whose names the API server takes and whose text shows that they have no labels
    and clean path annotations join ``fresh``, the others ``unsure``: all of them at once, and
    one by one when that is unsure."""
    if not _names_ok(names_):
        kept = [i for i, name in enumerate(names_) if names.subdomain_problem(name) is None]
        unsure.extend(chunk[i] for i in sorted(set(range(len(chunk))) - set(kept)))
        chunk, texts = [chunk[i] for i in kept], [texts[i] for i in kept]
    if _no_labels_and_clean_paths("\n" + "".join(texts)):
        fresh.extend(entry[1] for entry in chunk)
        return
    for entry, text in zip(chunk, texts, strict=True):
        if _no_labels_and_clean_paths("\n" + text):
            fresh.append(entry[1])
        else:
            unsure.append(entry)
