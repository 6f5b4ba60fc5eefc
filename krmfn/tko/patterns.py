"""TKO's patterns, matched in time linear in the text (issue 27.3): id patterns (``*`` within one
segment, ``**`` across ``/`` and ``:``) and metadata value patterns (``*`` any text), as
``tko deployment list`` and catalog selections use them.

A regular expression such as ``.*-.*-.*-end`` backtracks: on a 300-character value that a
package controls it ran for more than 20 s. Here a pattern is a list of steps, each a literal
character or a star (any run of the characters it allows), and a match keeps the set of steps
reached so far while it reads the text once: at most (text length) x (pattern length) steps.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

# A step: a literal character, or a star given as the test of the characters it may take.
Step = str | Callable[[str], bool]

_SEGMENT = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_.-")
_ID = _SEGMENT | {"/", ":"}


class Pattern:
    """A compiled pattern: :meth:`fullmatch` says whether it matches a whole text."""

    __slots__ = ("_literal", "_steps")

    def __init__(self, steps: list[Step]) -> None:
        self._steps = steps
        # No star: the text itself (the common case: an exact id or value).
        self._literal = "".join(steps) if all(isinstance(s, str) for s in steps) else None  # type: ignore[arg-type]

    def fullmatch(self, text: str) -> bool:
        if self._literal is not None:
            return text == self._literal
        steps = self._steps
        count = len(steps)
        states = self._closure({0})
        for char in text:
            following: set[int] = set()
            for state in states:
                if state == count:
                    continue
                step = steps[state]
                if isinstance(step, str):
                    if step == char:
                        following.add(state + 1)
                elif step(char):
                    following.add(state)  # a star takes one more character and stays
            if not following:
                return False
            states = self._closure(following)
        return count in states

    def _closure(self, states: set[int]) -> set[int]:
        """``states`` and every state reached from them by a star taking nothing."""
        out = set(states)
        for start in states:
            state = start
            while state < len(self._steps) and not isinstance(self._steps[state], str):
                state += 1
                out.add(state)
        return out


@functools.cache
def id_pattern(pattern: str) -> Pattern:
    """TKO's id pattern: ``*`` any run of characters within one segment (``[0-9A-Za-z_.-]``),
    ``**`` across ``/`` and ``:`` as well; every other character stands for itself."""
    steps: list[Step] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**", index):
            steps.append(_ID.__contains__)
            index += 2
        elif pattern[index] == "*":
            steps.append(_SEGMENT.__contains__)
            index += 1
        else:
            steps.append(pattern[index])
            index += 1
    return Pattern(steps)


def _anything(char: str) -> bool:
    return True


@functools.cache
def value_pattern(pattern: str) -> Pattern:
    """A metadata value pattern: ``*`` any text (newlines included); the rest as written."""
    steps: list[Step] = []
    for char in pattern:
        if char != "*":
            steps.append(char)
        elif not steps or steps[-1] is not _anything:  # ** is *
            steps.append(_anything)
    return Pattern(steps)


__all__ = ["Pattern", "id_pattern", "value_pattern"]
