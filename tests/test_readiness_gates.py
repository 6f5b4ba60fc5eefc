"""krmlib's readiness-gate helpers on a Kptfile: what nfdeploy (Nephio's Root specializer) and
topology-to-pvs add. A gate is added in one edit of the Kptfile's text (no round-trip parser, so
no ruamel import in a function's run), the gates and comments already there are kept."""

from __future__ import annotations

import subprocess
import sys

from krmlib import ResourceList, add_readiness_gate, get_readiness_gates, remove_readiness_gate

KPTFILE = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/path: Kptfile
"""

WITH_GATES = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
  info:
    description: a package # the description
    readinessGates:
    # the first gate
    - conditionType: a.b.C.first
"""


def test_a_gate_without_info_is_added_after_the_other_fields() -> None:
    rl = ResourceList.parse(KPTFILE)
    kptfile = rl.package().kptfile
    assert kptfile is not None
    assert add_readiness_gate(kptfile, "nephio.org.Specializer.specialize")
    assert not add_readiness_gate(kptfile, "nephio.org.Specializer.specialize")
    assert rl.to_yaml().endswith(
        "  info:\n    readinessGates:\n    - conditionType: nephio.org.Specializer.specialize\n"
    )


def test_existing_gates_and_comments_are_kept() -> None:
    rl = ResourceList.parse(WITH_GATES)
    kptfile = rl.package().kptfile
    assert kptfile is not None
    assert add_readiness_gate(kptfile, "nephio.org.Specializer.specialize")
    assert get_readiness_gates(kptfile) == [
        "a.b.C.first",
        "nephio.org.Specializer.specialize",
    ]
    text = rl.to_yaml()
    assert "description: a package # the description" in text
    assert "    # the first gate\n    - conditionType: a.b.C.first\n" in text
    assert remove_readiness_gate(kptfile, "a.b.C.first")
    assert get_readiness_gates(kptfile) == ["nephio.org.Specializer.specialize"]


def test_adding_a_gate_does_not_load_the_round_trip_parser() -> None:
    code = (
        "import sys\n"
        "from krmlib import ResourceList, add_readiness_gate\n"
        f"rl = ResourceList.parse({KPTFILE!r})\n"
        "add_readiness_gate(rl.package().kptfile, 'nephio.org.Specializer.specialize')\n"
        "rl.to_yaml()\n"
        "print(sorted(m for m in sys.modules if m.startswith('ruamel')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
