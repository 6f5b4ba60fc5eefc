"""krmlib's runner keeps the cyclic garbage collector off while it reads and processes (the
floor of every function at 10k items, bench/SPECIALIZER.md), and puts it back as it was."""

from __future__ import annotations

import gc

from krmlib import ResourceList
from krmlib._io.runner import run_text

TEXT = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
"""


def test_the_collector_is_off_while_process_runs_and_on_again_after() -> None:
    seen: list[bool] = []

    def process(rl: ResourceList, config: None) -> None:
        seen.append(gc.isenabled())

    assert gc.isenabled()
    _out, code = run_text(process, None, TEXT)
    assert code == 0 and seen == [False]
    assert gc.isenabled()


def test_a_failing_process_puts_the_collector_back() -> None:
    def process(rl: ResourceList, config: None) -> None:
        raise RuntimeError("boom")

    out, code = run_text(process, None, TEXT)
    assert code == 1 and "boom" in out
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        run_text(lambda rl, config: None, None, TEXT)
        assert not gc.isenabled()
    finally:
        gc.enable()
