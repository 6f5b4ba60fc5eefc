"""Random byte-level corruptions of valid ResourceLists never pass as valid output.

Property: whatever bytes a function is given, it either refuses them (exit 1, an error result) or
its output is one YAML document that a strict reader (duplicate keys refused, no second document)
accepts. The functions run in process (krmlib's runner, the same code as the console scripts) so
hundreds of examples stay fast; ``HYPOTHESIS_PROFILE=full`` tries many more.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmlib import ResourceList
from krmlib._io.runner import decode, run_text

FULL = os.environ.get("HYPOTHESIS_PROFILE") == "full"
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]
# krmlib alone (a label on every item: every item is read and written) is cheap: many examples.
LIBRARY = settings(max_examples=5000 if FULL else 400, deadline=None, suppress_health_check=HEALTH)
SETTINGS = settings(max_examples=2000 if FULL else 60, deadline=None, suppress_health_check=HEALTH)

BASE = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: edge
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/path: 'Kptfile'
  info:
    description: corruption base # a comment
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    namespace: ran
    labels: {tier: front, app: web}
    annotations:
      config.kubernetes.io/path: 'settings.yaml'
      internal.config.kubernetes.io/index: '0'
  data:
    mode: "fast"
    script: |
      echo one
      echo two
    list: ['a', "b", c]
- apiVersion: v1
  kind: Service
  metadata:
    name: web
    annotations:
      config.kubernetes.io/path: 'svc.yaml'
  spec:
    ports:
    - port: 80
      protocol: TCP
    selector:
      app: web
results:
- message: earlier
  severity: info
"""

# Bytes that change what YAML means: indentation, structure, quoting, escapes, non-UTF-8.
SPECIAL = [b" ", b"\t", b"\n", b":", b"- ", b"'", b'"', b"{", b"}", b"[", b"]", b",", b"#",
           b"&a ", b"*a", b"!", b"!!python/name:os.system ", b"|", b">", b"\\", b"%", b"?",
           b"\x00", b"\xff", b"\xc3\xa9", b"\\ud800", b"---\n", b"...\n", b"<<: *a\n"]  # fmt: skip


def _strict_load(text: str) -> Any:
    """One YAML document, duplicate keys refused: libyaml, the C parser go-yaml (kpt's reader)
    was ported from."""

    class Strict(yaml.CSafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                assert key not in seen, f"duplicate key {key!r} in the output"
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return yaml.load(text, Loader=Strict)  # a CSafeLoader subclass: safe


@st.composite
def corrupted(draw: st.DrawFn) -> bytes:
    data = bytearray(BASE.encode())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, 2**20)) % (len(data) + 1)  # spread over the text, not its start
        action = draw(st.sampled_from(["insert", "delete", "replace", "flip"]))
        if action == "insert":
            data[at:at] = draw(st.sampled_from(SPECIAL))
        elif action == "delete":
            data[at : at + draw(st.integers(1, 8))] = b""
        elif action == "replace":
            data[at : at + 1] = draw(st.sampled_from(SPECIAL))
        elif at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
    return bytes(data)


def _label(rl: ResourceList, config: None) -> None:
    for obj in rl.items:
        obj.labels["krmfn.dev/seen"] = "yes"


def _function(name: str) -> tuple[Callable[[ResourceList, Any], None], Any]:
    """The process and config model of a krmfn function, as its console script runs them."""
    from krmfn.registry import BY_NAME

    return BY_NAME[name].load()


FUNCTIONS = ["interface-expander", "preparer", "merger", "topology-to-pvs", "applyset-labeler"]


def _check(data: bytes, process: Callable[[ResourceList, Any], None], model: Any) -> None:
    try:
        text = decode(data)
    except Exception:
        return  # not UTF-8: refused before any parse (tests/test_bad_inputs.py)
    out, code = run_text(process, model, text)
    parsed = _strict_load(out)  # every output, refusals included, is one valid document
    assert isinstance(parsed, dict) and parsed.get("kind") == "ResourceList"
    results = [r for r in parsed.get("results") or [] if isinstance(r, dict)]
    assert (code == 1) == any(r.get("severity") == "error" for r in results), (code, results)


def test_base_is_valid() -> None:
    out, code = run_text(_label, None, BASE)
    assert code == 0
    assert _strict_load(out)["items"][1]["metadata"]["labels"]["krmfn.dev/seen"] == "yes"


def _noop(rl: ResourceList, config: None) -> None:
    """Reads nothing: every item goes out as its text, so only the whole-input check stands
    between a broken item and the output."""


@LIBRARY
@given(corrupted())
def test_corruption_krmlib_noop(data: bytes) -> None:
    _check(data, _noop, None)


@LIBRARY
@given(corrupted())
def test_corruption_krmlib_label_every_item(data: bytes) -> None:
    _check(data, _label, None)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_corruption_functions(name: str) -> None:
    process, model = _function(name)

    @SETTINGS
    @given(corrupted())
    def run(data: bytes) -> None:
        _check(data, process, model)

    run()
