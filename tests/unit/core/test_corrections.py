"""The pure parts of core.stores.corrections: the leaf paths of a structured output (as its
citation leaves name them), the check of the names a request gives, and its body's shape."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.infra.errors import BadRequest, Unprocessable
from core.stores.corrections import JobCorrections, TaskCorrections, check_names, leaf_paths

pytestmark = pytest.mark.unit


def test_leaf_paths_name_every_leaf_as_citations_do() -> None:
    output = {"patient": {"name": "Ada", "group": None}, "visits": ["a", {"on": "b"}], "__meta": 1, "n": 0}
    assert leaf_paths(output) == {"patient.name", "patient.group", "visits[0]", "visits[1].on", "n"}
    assert leaf_paths(["x", ["y"]]) == {"[0]", "[1][0]"}
    # An output that is one value has no leaf to name; empty containers have none either.
    assert leaf_paths("text") == set() and leaf_paths({"a": {}, "b": []}) == set()


def test_unknown_names_are_refused_all_at_once() -> None:
    check_names({"a": None}, {"a", "b"}, "fields")
    with pytest.raises(Unprocessable, match="not fields of this result: x, z"):
        check_names({"z": None, "a": None, "x": None}, {"a"}, "fields")
    with pytest.raises(BadRequest, match="not paths of this result: q"):
        check_names({"q": None}, set(), "paths", BadRequest)


def test_a_body_holds_typed_values_and_a_boolean_checked() -> None:
    body = JobCorrections.model_validate(
        {"fields": {"a": {"value": 3}, "b": None, "c": {"value": None, "checked": True}}}
    )
    assert body.fields["a"] is not None and body.fields["a"].checked is False and body.fields["b"] is None
    for bad in (
        {"fields": {}},
        {"fields": {"a": {"value": [1]}}},
        {"fields": {"a": {"value": "x", "checked": "true"}}},
        {"fields": {"": {"value": "x"}}},
        {"fields": {"a": {}}},
        {"fields": {f"f{i}": {"value": i} for i in range(201)}},
    ):
        with pytest.raises(ValidationError):
            JobCorrections.model_validate(bad)
    with pytest.raises(ValidationError):
        TaskCorrections.model_validate({"paths": {"a": {"value": "x"}}, "fields": {}})
