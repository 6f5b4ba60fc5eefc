"""An exec plugin's own results are kept (issue 35, item 4): it exits 0 with an error result
(as a KRM function may, the exit code being kpt's business), and the error used to be dropped
while its target was marked prepared."""

from __future__ import annotations

from pathlib import Path

import pytest

from krmfn.preparer import Config, process
from krmlib import ResourceList, parse_config_value

WIDGET = """apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: example.com/v1
  kind: Widget
  metadata:
    name: w1
"""

PLUGIN = """\
import sys
text = sys.stdin.read()
head, _, _ = text.partition("functionConfig:")
sys.stdout.write(head.rstrip("\\n") + "\\nresults:\\n")
sys.stdout.write("- message: {message}\\n  severity: {severity}\\n")
"""


def run(tmp_path: Path, severity: str) -> ResourceList:
    plugin = tmp_path / "plugin.py"  # the working folder: the tree a plugin may be in
    plugin.write_text(PLUGIN.format(message=f"the plugin says {severity}", severity=severity))
    config = parse_config_value(
        Config,
        {"plugins": [{"apiVersion": "example.com/v1", "kind": "Widget", "exec": "./plugin.py"}]},
    )
    rl = ResourceList.parse(WIDGET)
    process(rl, config)
    return rl


@pytest.mark.parametrize("severity", ["error", "warning", "info"])
def test_an_exec_plugins_results_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, severity: str
) -> None:
    monkeypatch.chdir(tmp_path)
    rl = run(tmp_path, severity)
    kept = [r for r in rl.results if f"the plugin says {severity}" in r.message]
    assert [r.severity.value for r in kept] == [severity], [r.message for r in rl.results]
    assert "Widget/w1" in kept[0].message  # the plugin and its target named
    widget = rl.items.find("example.com/v1", "Widget", "w1")
    assert widget is not None
    prepared = widget.annotations.get("nephio.org/prepared") == "true"
    assert prepared == (severity != "error")
