"""krmlib._model.names' label key and value rules (Kubernetes' IsQualifiedName, IsValidLabelValue:
k8s.io/apimachinery v0.34.1 pkg/util/validation/validation_test.go; the full lists of that test
are in test_topology_to_pvs_porch_rules.py, whose function words these rules Porch's way)."""

from __future__ import annotations

import pytest

from krmlib import label_key_problem, label_value_problem


@pytest.mark.parametrize(
    "key", ["simple", "1234", "example.com/Uppercase_Is_OK_123", "a" * 253 + "/" + "b" * 63]
)
def test_label_keys(key: str) -> None:
    assert label_key_problem(key) is None


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("", "it is empty"),
        ("example.com/", "its name, after the '/', is empty"),
        ("/simple", "its prefix '' is not a DNS-1123 subdomain: it is empty"),
        ("Example.com/abc", "its prefix 'Example.com' is not a DNS-1123 subdomain: a DNS-1123"),
        ("only/one/slash", "its prefix 'only/one' is not a DNS-1123 subdomain"),
        ("a" * 254 + "/abc", "is not a DNS-1123 subdomain: it is longer than 253 characters"),
        ("a" * 64, "it is longer than 63 characters"),
        ("-dash", "its name '-dash': a label key's name has only letters, digits, '-', '_'"),
        ("abc\n", "its name 'abc\\n': a label key's name"),
    ],
)
def test_label_key_problems_name_the_part(key: str, reason: str) -> None:
    problem = label_key_problem(key)
    assert problem is not None and reason in problem, problem


@pytest.mark.parametrize("value", ["", "a", "Short_Instance.1", "a" * 63])
def test_label_values(value: str) -> None:
    assert label_value_problem(value) is None


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("a" * 64, "it is longer than 63 characters"),
        ("edge site", "a label value has only letters, digits, '-', '_' and '.'"),
        (".dot", "starts and ends with a letter or digit"),
        ("abc\n", "a label value has only"),
    ],
)
def test_label_value_problems(value: str, reason: str) -> None:
    problem = label_value_problem(value)
    assert problem is not None and reason in problem, problem
