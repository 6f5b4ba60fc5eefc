"""The Argo Workflows WorkflowTemplate that fans ``krmfn prepare-all --shard`` out
(docs/argo/prepare-all-shards.yaml, issue 37.6): valid against Argo's published JSON schema
(vendored in tests/schemas/argo-workflows, its source in SOURCES.md), unknown fields refused;
its steps are N shards at once, then ``--check`` on the whole tree; with its parameters filled
in, its command lines are ``krmfn prepare-all --shard K/N`` for K = 1..N and a final ``--check``,
as krmfn's own parser reads them (that those give one run's tree: tests/test_prepare_all_shards.py).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from krmfn.preparer.prepare_all import _parser, parse_shard

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "docs" / "argo" / "prepare-all-shards.yaml"
SCHEMA = Path(__file__).resolve().parent / "schemas" / "argo-workflows"


def _template() -> dict[str, Any]:
    doc = yaml.safe_load(TEMPLATE.read_text())
    assert isinstance(doc, dict)
    return doc


def _closed(schema: Any) -> Any:
    """The schema with every object that names its properties closed to others."""
    if isinstance(schema, dict):
        out = {k: _closed(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_closed(v) for v in schema]
    return schema


def _schema() -> dict[str, Any]:
    schema = json.loads((SCHEMA / "workflowtemplate.schema.json").read_text())
    assert isinstance(schema, dict)
    return schema


def _errors(schema: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema)
    return [
        f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)
    ]


def test_the_workflow_template_is_valid_for_argo() -> None:
    doc = _template()
    assert (doc["apiVersion"], doc["kind"]) == ("argoproj.io/v1alpha1", "WorkflowTemplate")
    assert _errors(_schema(), doc) == []
    assert _errors(_closed(_schema()), doc) == []


def test_the_schema_check_could_fail() -> None:
    """The validation catches a wrong type, a missing field and an unknown field."""
    schema, closed = _schema(), _closed(_schema())
    wrong = _template()
    wrong["spec"]["templates"][1]["container"]["args"] = "prepare-all"
    assert _errors(schema, wrong)
    missing = _template()
    del missing["spec"]["volumes"][0]["name"]  # a Volume's name is required
    assert _errors(schema, missing)
    unknown = _template()
    unknown["spec"]["templates"][0]["stepz"] = unknown["spec"]["templates"][0].pop("steps")
    assert _errors(closed, unknown) and not _errors(schema, unknown)


def _by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in doc["spec"]["templates"]}


def _fill(text: str, values: dict[str, str]) -> str:
    found = re.sub(r"\{\{([^}]+)\}\}", lambda m: values[m.group(1).strip()], text)
    assert "{{" not in found
    return found


def test_n_shards_at_once_then_the_check_over_the_whole_tree() -> None:
    doc = _template()
    templates = _by_name(doc)
    steps = templates[doc["spec"]["entrypoint"]]["steps"]
    assert len(steps) == 2  # two stages: the check starts after every shard ended
    [fan_out], [check] = steps
    assert fan_out["template"] == "shard"
    assert fan_out["withSequence"] == {"start": "1", "end": "{{workflow.parameters.shards}}"}
    assert fan_out["arguments"]["parameters"] == [{"name": "k", "value": "{{item}}"}]
    assert check["template"] == "check"
    params = {p["name"]: p["value"] for p in doc["spec"]["arguments"]["parameters"]}
    n = params["shards"]
    lines = []
    for k in range(1, int(n) + 1):
        values = {f"workflow.parameters.{name}": v for name, v in params.items()}
        values["inputs.parameters.k"] = str(k)
        container = templates["shard"]["container"]
        lines.append([_fill(a, values) for a in [*container["command"], *container["args"]]])
    check_container = templates["check"]["container"]
    values = {f"workflow.parameters.{name}": v for name, v in params.items()}
    final = [_fill(a, values) for a in [*check_container["command"], *check_container["args"]]]
    shards = []
    for line in [*lines, final]:
        assert line[0].endswith("/krmfn") and line[1] == "prepare-all", line
        opts = _parser().parse_args(line[2:])
        assert opts.root == params["root"]
        shards.append(opts.shard)
        if opts.shard is not None:
            assert not opts.check
    assert shards == [f"{k}/{n}" for k in range(1, int(n) + 1)] + [None]
    assert all(parse_shard(s) is not None for s in shards[:-1])
    assert "--check" in final, shlex.join(final)
    # the tree's volume is mounted where the root parameter points
    mounts = {
        m["mountPath"]
        for t in templates.values()
        for m in t.get("container", {}).get("volumeMounts", [])
    }
    assert all(params["root"] == m or params["root"].startswith(m + "/") for m in mounts)
