import pytest

from actors.data_fields import coerce, extraction_request, fields_schema, values_from
from core.tasks import usage_by_purpose, usage_increments

pytestmark = pytest.mark.unit

FIELDS = [
    {"key": "name", "description": "Full name"},
    {"key": "dob", "key_type": "date"},
    {"key": "copay", "key_type": "number"},
    {"key": "insured", "key_type": "boolean"},
]


def test_schema_types_every_field_and_requires_none() -> None:
    schema = fields_schema(FIELDS)
    assert schema["properties"]["name"] == {"type": ["string", "null"], "description": "Full name"}
    assert schema["properties"]["dob"] == {"type": ["string", "null"], "format": "date"}
    assert schema["properties"]["copay"]["type"] == ["number", "null"]
    assert "required" not in schema and schema["additionalProperties"] is False


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        ("25.50", "number", 25.5),
        ("1,200", "number", 1200),
        (True, "number", None),
        ("yes", "boolean", True),
        ("maybe", "boolean", None),
        ("1980-02-03T00:00:00", "date", "1980-02-03"),
        ("03/02/1980", "date", None),
        ("", "string", None),
        (7, "string", "7"),
    ],
)
def test_values_are_coerced_or_dropped(value: object, kind: str, expected: object) -> None:
    assert coerce(value, kind) == expected


def test_only_declared_fields_with_values_are_kept() -> None:
    answer = {"name": "Jane", "dob": None, "copay": "n/a", "insured": False, "extra": "x"}
    assert values_from(FIELDS, answer) == {"name": "Jane", "insured": False}
    assert values_from(FIELDS, ["not", "an", "object"]) == {}


def test_the_request_shows_the_conversation_without_the_system_prompt() -> None:
    messages = [
        {"role": "system", "content": "secret instructions"},
        {"role": "user", "content": "Jane, born 1980"},
        {"role": "tool", "tool_call_id": "c", "content": "x" * 50_000},
    ]
    request = extraction_request(FIELDS, messages, "All done", {"a": 1}, call_index=4, query="q")
    text = request.messages[1]["content"]
    assert "secret instructions" not in text
    assert "Jane, born 1980" in text and "[final answer]\nAll done" in text and '{"a": 1}' in text
    assert len(text) < 20_000
    assert request.output_schema == fields_schema(FIELDS) and request.tools == []


def test_usage_is_split_by_purpose() -> None:
    raw = {
        k: str(v)
        for k, v in (
            usage_increments("steps", 10, 2, 0.5) | usage_increments("data_fields", 3, 1, 0.25)
        ).items()
        if k.startswith("usage:")
    }
    assert usage_by_purpose(raw | {"usage:bogus": "1", "spec": "{}"}) == {
        "steps": {"input_tokens": 10, "output_tokens": 2, "cost_usd": 0.5, "calls": 1},
        "data_fields": {"input_tokens": 3, "output_tokens": 1, "cost_usd": 0.25, "calls": 1},
    }
