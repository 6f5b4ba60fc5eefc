"""Conditions: new conditions held as their text and a list that only grew inserted into the
Kptfile's text give what setting the whole list as values gave (the Kptfile's text, values and
every answer on the way)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmlib import Condition, Conditions, KubeObject, ResourceList
from krmlib._model.object import item_to_doc, span_object
from krmlib._model.storage import of


class ValuesConditions:
    """The batch view as it was before new conditions were held as text: every entry a dict,
    and the flush sets the whole list (the reference the fast way must equal)."""

    def __init__(self, kptfile: KubeObject) -> None:
        self.kptfile = kptfile
        raw = kptfile.get("status.conditions", [])
        self._raw: list[Any] = list(raw) if isinstance(raw, list) else []
        self._index: dict[str, int] = {}
        for index, item in enumerate(self._raw):
            if isinstance(item, dict) and isinstance(item.get("type"), str):
                self._index.setdefault(item["type"], index)
        self._dirty = False
        self._written = len(self._raw)

    def types(self) -> list[str]:
        return [t for t, i in self._index.items() if self._raw[i] is not None]

    def status(self, type_: str) -> str | None:
        index = self._index.get(type_)
        if index is None or self._raw[index] is None:
            return None
        return str(self._raw[index].get("status", "Unknown"))

    def get(self, type_: str) -> Condition | None:
        index = self._index.get(type_)
        if index is None or self._raw[index] is None:
            return None
        return Condition.from_dict(self._raw[index])

    def set(self, condition: Condition) -> None:
        wanted = condition.to_dict()
        index = self._index.get(condition.type)
        if index is None or self._raw[index] is None:
            self._index[condition.type] = len(self._raw)
            self._raw.append(wanted)
            self._dirty = True
            return
        existing = dict(self._raw[index])
        for key in ("status", "reason", "message"):
            if key in wanted:
                existing[key] = wanted[key]
            else:
                existing.pop(key, None)
        if existing != self._raw[index]:
            self._raw[index] = existing
            self._dirty = True

    def ensure(self, condition: Condition) -> None:
        if self.status(condition.type) is None:
            self.set(condition)

    def remove(self, type_: str) -> None:
        index = self._index.get(type_)
        if index is not None and self._raw[index] is not None:
            self._raw[index] = None
            self._dirty = True

    def flush(self) -> None:
        if not self._dirty:
            return
        for index in reversed(range(len(self._raw))):
            if self._raw[index] is None and index < self._written:
                self.kptfile.delete(f"status.conditions[{index}]")
        self.kptfile.set("status.conditions", [c for c in self._raw if c is not None])
        self._dirty = False


HEAD = """\
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/local-config: "true"
"""
# What may follow the head: kpt's layouts and the odd ones the splice leaves to the round trip.
TAILS = [
    "",
    "  info:\n    description: x\n",
    "  status:\n    renderStatus: ok\n",
    '  status:\n    conditions:\n    - type: old\n      status: "True"\n',
    '  status:\n    conditions:\n    - type: old\n      status: "True"\n      reason: r\n'
    '    - type: other\n      status: "False"\n      message: m\n  info:\n    x: y\n',
    '  status:\n    conditions:\n      - type: old\n        status: "True"\n',
    '  status:\n    conditions:\n    - type: old\n      status: "True"\n    # trailing\n',
    "  status:\n    conditions: []\n",
    "  status:\n    conditions:\n",
    "  status: {}\n",
    "  status:\n    # a comment\n    conditions:\n    - type: old # kept\n      status: Unknown\n",
    "  pipeline:\n    mutators: []\n  # the end\n",
    '  status:\n    conditions:\n    - type: old\n      status: "True"\n      lastTransitionTime: x\n',
    '  status:\n    conditions: # note\n    - type: old\n      status: "True"\n',
    "  status:\n    renderStatus: ok\n\n  # about info\n  info:\n    x: y\n",
]
TYPES = st.sampled_from(["old", "other", "a", "b", "c-d", "e.f"])
MESSAGES = st.sampled_from(["", "create resource", "a: b", "it's", "café", "x #y", "012", "true"])
CONDITIONS = st.builds(
    Condition,
    type=TYPES,
    status=st.sampled_from(["True", "False", "Unknown"]),
    reason=st.sampled_from(["", "req-nephio-org-v1alpha1-interface-n3"]),
    message=MESSAGES,
)
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), CONDITIONS),
        st.tuples(st.just("ensure"), CONDITIONS),
        st.tuples(st.just("remove"), TYPES),
    ),
    max_size=8,
)


def _apply(conditions: Any, operations: list[tuple[str, Any]]) -> list[Any]:
    """Run the operations; every answer read on the way."""
    seen: list[Any] = []
    for name, argument in operations:
        getattr(conditions, name)(argument)
        seen.append(conditions.types())
        seen.append([(t, conditions.status(t), conditions.get(t)) for t in ("old", "a", "e.f")])
    return seen


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TAILS), st.booleans(), OPERATIONS, OPERATIONS)
def test_conditions_equal_setting_the_list_as_values(
    tail: str, as_span: bool, operations: list[tuple[str, Any]], after: list[tuple[str, Any]]
) -> None:
    """On an item that is a span of the input, and on a document with its own text."""
    text = HEAD + tail
    fast, reference = (
        (span_object(text, 0, len(text)), span_object(text, 0, len(text)))
        if as_span
        else (KubeObject.from_yaml(item_to_doc(text)), KubeObject.from_yaml(item_to_doc(text)))
    )
    ours, theirs = Conditions(fast), ValuesConditions(reference)
    assert _apply(ours, operations) == _apply(theirs, operations)
    ours.flush()
    theirs.flush()
    assert fast.to_yaml() == reference.to_yaml()
    assert fast.to_dict() == reference.to_dict()
    # A batch view read again from the written Kptfile answers the same.
    again, reread = Conditions(fast), ValuesConditions(reference)
    assert _apply(again, after) == _apply(reread, after)
    again.flush()
    reread.flush()
    assert fast.to_yaml() == reference.to_yaml()


def test_a_list_that_only_grew_is_inserted_as_a_patch_of_the_span() -> None:
    """kpt's layout: the new entries are one insertion into the input's span (no copy of the
    item, no values), and the view answers from the Kptfile afterwards."""
    text = HEAD + '  status:\n    conditions:\n    - type: old\n      status: "True"\n  info: {}\n'
    kptfile = span_object(text, 0, len(text))
    conditions = Conditions(kptfile)
    for n in range(3):
        conditions.set(Condition(f"t{n}", "False", "why", f"created {n}"))
    conditions.flush()
    patch = of(kptfile).patch
    assert patch is not None
    at, removed, inserted = patch
    assert (text[:at], removed) == (HEAD + text[len(HEAD) :].split("  info")[0], 0)
    assert isinstance(inserted, tuple) and all(type(piece) is str for piece in inserted)
    assert "".join(map(str, inserted)).startswith(
        '    - type: t0\n      status: "False"\n      reason: why\n'
    )
    assert kptfile.to_item().endswith("      message: created 2\n  info: {}\n")
    assert conditions.types() == ["old", "t0", "t1", "t2"]
    assert conditions.get("t1") == Condition("t1", "False", "why", "created 1")


def test_unwritable_text_takes_the_values_way() -> None:
    """A message the small emitter is unsure of keeps its condition as values (round trip)."""
    kptfile = span_object(HEAD, 0, len(HEAD))
    conditions = Conditions(kptfile)
    conditions.set(Condition("t", "False", "", "naïve\tmessage"))
    conditions.flush()
    assert kptfile.get("status.conditions") == [
        {"type": "t", "status": "False", "message": "naïve\tmessage"}
    ]


def test_thousands_of_new_conditions_are_written_as_their_own_pieces() -> None:
    """The output of a ResourceList whose Kptfile got thousands of conditions: each new entry's
    text is a piece of the output as it was made (never joined), and the text is the general
    way's."""
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        + HEAD
        + "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: after\n"
    )
    fast, reference = ResourceList.parse(text), ResourceList.parse(text)
    ours = Conditions(fast.package().kptfile)
    theirs = ValuesConditions(reference.package().kptfile)  # type: ignore[arg-type]
    for n in range(2000):
        condition = Condition(f"type-{n}", "False", "reason", f"message number {n}")
        ours.set(condition)
        theirs.set(condition)
    ours.flush()
    theirs.flush()
    pieces = [p for p in fast.pieces() if isinstance(p, str) and "message number" in p]
    assert len(pieces) == 2000
    assert pieces[7] == '    - type: type-7\n      status: "False"\n      reason: reason\n' + (
        "      message: message number 7\n"
    )
    assert fast.to_yaml() == reference.to_yaml()


def test_changed_conditions_are_one_edit_of_the_text_not_the_round_trip() -> None:
    """Existing entries changed (thousands of conditions set "True" by nad-generator, issue 26):
    the list's text is replaced in one edit when the emitter writes the input's entries exactly;
    the same text as setting the list as values, and no round-trip tree."""
    entries = "".join(
        f'    - type: t{n}\n      status: "False"\n      reason: r\n      message: waiting\n'
        for n in range(300)
    )
    text = HEAD + "  status:\n    conditions:\n" + entries + "  info: {}\n"
    fast, reference = (span_object(text, 0, len(text)) for _ in range(2))
    views = Conditions(fast), ValuesConditions(reference)
    for view in views:
        for n in range(0, 300, 2):
            view.set(Condition(f"t{n}", "True", "r", "done"))
        view.remove("t1")
        view.set(Condition("new", "False", "", "created"))
        view.flush()
    assert of(fast).node is None  # edited as text
    assert fast.to_yaml() == reference.to_yaml()
    assert '    - type: t0\n      status: "True"\n      reason: r\n      message: done\n' in (
        fast.to_item()
    )
    # a changed scalar whose quoting would change takes the general way (quote style kept)
    quoted = HEAD + '  status:\n    conditions:\n    - type: q\n      status: "False"\n'
    kptfile = span_object(quoted, 0, len(quoted))
    conditions = Conditions(kptfile)
    conditions.set(Condition("q", "Unknown", "", ""))
    conditions.flush()
    assert 'status: "Unknown"' in kptfile.to_item()
