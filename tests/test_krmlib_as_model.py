"""KubeObject.as_model / write_model with pydantic models: pydantic is the optional extra
``krmfn[pydantic]`` (installed in the dev venv, so these run there; skipped where it is absent).
With a krmlib record, as_model needs no pydantic: tests/test_krmlib_object.py."""

from __future__ import annotations

import re

import pytest

from krmlib import KrmError
from tests.test_krmlib_object import obj

pytest.importorskip(
    "pydantic", reason="pydantic is the optional extra krmfn[pydantic], not installed here"
)

from pydantic import BaseModel, ConfigDict


class Container(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    image: str | None = None
    replicas: int = 1


def test_typed_views_write_back_without_losing_comments() -> None:
    o = obj()
    container = o.as_model(Container, "spec.template.spec.containers[0]")
    assert container.image == "nginx:1.25"
    updated = container.model_copy(update={"image": "nginx:9"})
    o.write_model(updated, "spec.template.spec.containers[0]")
    out = o.to_yaml()
    assert re.search(r'image: "nginx:9" +# pinned', out)
    assert "replicas" not in out.split("containers:")[1]  # defaults the model added stay out
    assert "value: 'on'" in out  # unknown (extra) fields kept as written


def test_typed_view_errors_name_the_field() -> None:
    o = obj()
    with pytest.raises(KrmError) as err:
        o.as_model(Container, "spec")
    assert err.value.field == "spec.name"
    assert err.value.obj is o
