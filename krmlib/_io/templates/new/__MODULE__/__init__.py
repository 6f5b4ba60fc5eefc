"""__NAME__: a kpt KRM function written with krmlib (its README.md is its --help)."""

from __future__ import annotations

from krmlib import FunctionConfig, ResourceList, run

TEAM_LABEL = "example.com/team"


class Config(FunctionConfig):
    """The functionConfig: ``apiVersion: fn.example.com/v1alpha1``, ``kind: __KIND__``, the
    fields under ``spec``; or a ConfigMap with ``data.team``."""

    API_VERSION = "fn.example.com/v1alpha1"
    KIND = "__KIND__"
    team: str


def process(rl: ResourceList, config: Config) -> None:
    """Label every Deployment with the team; a Service without a selector is an error."""
    for obj in rl.items.where(kind="Deployment"):
        obj.labels[TEAM_LABEL] = config.team
    for service in rl.items.where(kind="Service"):
        if not service.get("spec.selector"):
            rl.results.error("a Service needs spec.selector", service, "spec.selector")
    rl.results.info(f"team {config.team}")


def main() -> int:
    """The console script ``__NAME__``."""
    from importlib.metadata import metadata

    return run(
        process,
        Config,
        name="__NAME__",
        help_text=lambda: str(metadata("__NAME__").json.get("description", "")),
        version=metadata("__NAME__")["Version"],
    )
