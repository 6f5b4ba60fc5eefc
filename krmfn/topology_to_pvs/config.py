"""The functionConfig: ``krmfn.dev/v1alpha1 TopologyToPVS`` or a ConfigMap (kebab-case keys)."""

from __future__ import annotations

import re
from typing import Any, Literal

from krmlib import Field, FunctionConfig, Record, field_validator, model_validator

NF_TYPES = ("upf", "smf", "amf")
PLACEHOLDERS = ("topology", "instance")

TargetSelector = Literal["repositorySelector", "objectSelector"]
RevisionType = Literal["string", "integer", "asWritten"]
CapacityMode = Literal["packageContext", "capacityResource", "annotations", "none"]


class WaitRule(Record):
    """``waiter`` instances are not published before their connected ``waitsFor`` instances.

    The ConfigMap form writes one rule as ``waiter:waitsFor`` (``smf:upf``).
    """

    waiter: Literal["upf", "smf", "amf"]
    waits_for: Literal["upf", "smf", "amf"] = Field(alias="waitsFor")

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            waiter, sep, waits_for = value.partition(":")
            if not sep:
                raise ValueError(f"a wait rule is written waiter:waitsFor (smf:upf), not {value!r}")
            return {"waiter": waiter.strip(), "waitsFor": waits_for.strip()}
        return value

    @model_validator(mode="after")
    def _not_self(self) -> WaitRule:
        if self.waiter == self.waits_for:
            raise ValueError(f"a {self.waiter} cannot wait for its own type")
        return self


class Config(FunctionConfig):
    """Options of krmfn-topology-to-pvs (all optional)."""

    KIND = "TopologyToPVS"

    target_selector: TargetSelector = Field(default="repositorySelector", alias="targetSelector")
    revision_type: RevisionType = Field(default="integer", alias="revisionType")
    list_planned: bool = Field(default=False, alias="listPlanned")
    wait_rules: tuple[WaitRule, ...] = Field(
        default=(WaitRule(waiter="smf", waitsFor="upf"),), alias="waitRules"
    )
    capacity_mode: CapacityMode = Field(default="packageContext", alias="capacityMode")
    approval_policy: str = Field(default="", alias="approvalPolicy")
    downstream_package: str = Field(default="", alias="downstreamPackage")
    adoption_policy: Literal["adoptNone", "adoptExisting", ""] = Field(
        default="", alias="adoptionPolicy"
    )

    @field_validator("downstream_package")
    @classmethod
    def _placeholders(cls, value: str) -> str:
        unknown = set(re.findall(r"\{([^}]*)\}", value)) - set(PLACEHOLDERS)
        if unknown:
            raise ValueError(
                f"unknown placeholder {{{sorted(unknown)[0]}}}: write {{topology}} or {{instance}}"
            )
        return value
