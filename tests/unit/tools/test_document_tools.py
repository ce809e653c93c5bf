"""The document tools' pure parts: naming the input, their schemas, error mapping, known values."""

from __future__ import annotations

import pytest

from core.infra.errors import BadRequest, NotFound, ServiceUnavailable, UnsupportedMediaType
from extraction.jobs.service import JobFailed
from tools.documents.attachments import resolve_input
from tools.documents.processed import known_values
from tools.documents.specs import document_tools, job_tool_error
from tools.errors import ToolArgumentError, ToolError
from tools.registry import ToolRegistry

pytestmark = pytest.mark.unit

ATTACHMENTS = [
    {"file": "invoice.pdf", "file_id": "file://old"},
    {"file": "scan.png", "file_id": "file://scan"},
    {"file": "invoice.pdf", "file_id": "file://new"},
]


def test_inputs_name_a_file_id_or_an_attachment() -> None:
    assert resolve_input("file://anything", ATTACHMENTS) == "file://anything"
    assert resolve_input(" FILE://x ", []) == "FILE://x"
    assert resolve_input("scan.png", ATTACHMENTS) == "file://scan"
    assert resolve_input("SCAN.PNG", ATTACHMENTS) == "file://scan"
    # The newest attachment of a name wins: a corrected file sent with a reply replaces the first.
    assert resolve_input("invoice.pdf", ATTACHMENTS) == "file://new"


def test_an_unknown_name_lists_the_attachments() -> None:
    with pytest.raises(ToolError) as raised:
        resolve_input("receipt.pdf", ATTACHMENTS)
    assert not raised.value.retryable
    assert "'receipt.pdf'" in raised.value.message
    assert "'invoice.pdf', 'scan.png'" in raised.value.message
    with pytest.raises(ToolError, match="has no attachments"):
        resolve_input("receipt.pdf", [])


def registry() -> ToolRegistry:
    return ToolRegistry(document_tools(lambda settings: None))


def test_the_tools_take_the_sync_endpoint_bodies() -> None:
    tools = registry()
    tools.validate("parse_document", {"input": "a.pdf", "parse_config": {"output_format": "text"}})
    tools.validate("parse_document", {"input": "a.pdf", "config_id": "config://x"})
    tools.validate(
        "extract_document",
        {"input": "a.pdf", "extraction_config": {"json_options": ["total"], "prompt_mode": "rules"}},
    )
    tools.validate(
        "classify_document",
        {"input": "a.pdf", "classify_config": {"categories": ["a", {"name": "b", "description": "B"}]}},
    )
    with pytest.raises(ToolArgumentError, match="json_options"):
        tools.validate("extract_document", {"input": "a.pdf", "extraction_config": {}})
    with pytest.raises(ToolArgumentError, match="input"):
        tools.validate("parse_document", {"parse_config": {}})
    with pytest.raises(ToolArgumentError):
        tools.validate("parse_document", {"input": "a.pdf", "url": "x"})


def test_extraction_errors_become_tool_errors() -> None:
    for final in (BadRequest("bad"), NotFound("gone"), UnsupportedMediaType("no"), JobFailed("damaged")):
        error = job_tool_error(final)
        assert error.message == final.message and not error.retryable
    assert job_tool_error(ServiceUnavailable("busy")).retryable


def test_known_values_are_the_cited_field_values() -> None:
    result = {
        "fields": {
            "a": {"value": "1", "confidence": 0.9, "citations": [{"file": "f", "page": 1}]},
            "b": {"value": None, "confidence": 0.0, "citations": []},
            "c": {"value": "x", "confidence": 0.2, "citations": []},
        }
    }
    assert known_values(result) == [{"value": "1", "citations": [{"file": "f", "page": 1}]}]
    assert known_values({"classification": {}}) == []
