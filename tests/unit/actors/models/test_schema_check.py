"""Output schemas compiled before they are saved or run, and answers checked against a user's
regex within a time bound (actors.models.schema_check)."""

import time

import pytest

from actors.models.schema_check import UnusableSchema, answer_errors, schema_problem

pytestmark = pytest.mark.unit


def test_a_regex_that_does_not_compile_is_named_by_its_path() -> None:
    path, message = schema_problem({"properties": {"code": {"type": "string", "pattern": "("}}}) or ("", "")
    assert path == "properties.code.pattern"
    assert message.startswith("'(' is not a 'regex' (missing ), unterminated subpattern")


def test_a_bad_pattern_properties_key_is_named_with_the_key() -> None:
    problem = schema_problem({"type": "object", "patternProperties": {"^ok$": {}, "[": {}}})
    assert problem is not None and problem[0] == "patternProperties.["


def test_a_reference_to_nowhere_is_refused() -> None:
    schema = {"$defs": {"code": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/nope"}}}
    assert schema_problem(schema) == ("properties.a.$ref", "'#/$defs/nope' resolves to nothing in the schema")


def test_a_remote_reference_is_never_fetched() -> None:
    problem = schema_problem({"properties": {"a": {"$ref": "http://127.0.0.1:9/schema.json"}}})
    assert problem == (
        "properties.a.$ref",
        "'http://127.0.0.1:9/schema.json' resolves to nothing in the schema",
    )


def test_references_that_resolve_pass() -> None:
    schema = {
        "$defs": {"code": {"$anchor": "code", "type": "string"}},
        "properties": {
            "a": {"$ref": "#/$defs/code"},
            "b": {"$ref": "#code"},
            "c": {"$ref": "https://json-schema.org/draft/2020-12/schema"},
            # Data, not a reference: never resolved.
            "d": {"const": {"$ref": "#/nowhere"}},
        },
    }
    assert schema_problem(schema) is None


async def test_a_catastrophic_pattern_is_stopped_at_its_bound() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a+)+$"}}}
    started = time.monotonic()
    with pytest.raises(UnusableSchema, match="took over 1 s"):
        await answer_errors(schema, {"a": "a" * 64 + "!"}, seconds=1.0)
    # Python's `re` would take longer than the age of the universe on this: the child was killed.
    assert time.monotonic() - started < 3.0


async def test_a_pattern_is_still_checked_in_its_child_process() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^[0-9]+$"}}}
    assert await answer_errors(schema, {"a": "123"}) == []
    assert await answer_errors(schema, {"a": "12x"}) == ["a: '12x' does not match '^[0-9]+$'"]


async def test_a_reference_loop_cannot_check_an_answer() -> None:
    schema = {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
    assert schema_problem(schema) is None
    with pytest.raises(UnusableSchema, match="refers to itself without end"):
        await answer_errors(schema, {"x": 1})
