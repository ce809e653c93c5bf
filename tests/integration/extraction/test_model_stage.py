"""The model stage of extraction and classification against an OpenAI-compatible test server.

A whole service with a model configured would cost a second Ray cluster; the stage functions are
the same ones the worker tasks run, so they are exercised here directly, with the real `openai`
provider pointed at the loopback server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from actors.models.extraction import DEFAULT_EXTRACTION_MODEL, ProviderCaller, extraction_model
from actors.models.openai import OpenAIProvider
from actors.models.targets import ModelTarget
from core.settings import Settings
from extraction.formats.engines import parse_bytes
from extraction.jobs.model import ModelReplyError
from extraction.jobs.results import finish
from extraction.jobs.stages import DocumentSpec, ModelReply
from tests.support import documents
from tests.support.openai_server import OpenAICompatibleServer, completion

pytestmark = pytest.mark.integration

TEXT = ["Purchase order", "Order reference: PO-555", "Delivery expected on 2024-05-01 at the north gate"]


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer() as running:
        yield running


@pytest.fixture
def model(server: OpenAICompatibleServer) -> ProviderCaller:
    server.reset()
    return ProviderCaller(
        OpenAIProvider(
            ModelTarget("openai", "test-model", server.base_url, "sk-test", True, allow_private=True),
            max_retries=0,
        )
    )


def spec(params: dict, *, kind: str = "extract", model_factory=None) -> DocumentSpec:
    return DocumentSpec(
        kind=kind,
        params=params,
        filename="po.pdf",
        format="pdf",
        model_available=True,
        model_factory=model_factory,
    )


@pytest.fixture(scope="module")
def doc():
    return parse_bytes(documents.pdf_text([TEXT]), "po.pdf")


def test_auto_asks_the_model_only_for_what_the_rules_left_empty(server, model, doc) -> None:
    job = spec({"json_options": ["order_reference", "delivery_location"], "prompt_mode": "auto"})
    first = finish(job, [doc], None)
    assert first.result is None and first.model_messages is not None
    asked = first.model_messages[-1]["content"]
    assert '["delivery_location"]' in asked and "PO-555" in asked
    server.push(completion('Sure: ```json\n{"delivery_location": "north gate"}\n```'))
    reply = asyncio.run(model(first.model_messages))
    result = finish(job, [doc], ModelReply(reply, first.pending)).result
    assert result is not None
    assert result["data"]["order_reference"] == "PO-555"
    assert result["data"]["delivery_location"] == "north gate"
    cited = result["fields"]["delivery_location"]["citations"]
    assert cited and cited[0]["page"] == 1 and len(cited[0]["bounding_box"]) == 4
    (sent,) = server.requests
    assert sent.body["model"] == "test-model" and sent.body["messages"] == first.model_messages


def test_model_mode_grounds_every_value_and_flags_inventions(server, model, doc) -> None:
    job = spec({"json_options": ["order_reference", "supplier"], "prompt_mode": "model"})
    first = finish(job, [doc], None)
    assert first.model_messages is not None
    server.push(completion(json.dumps({"order_reference": "PO-555", "supplier": "Invented Ltd"})))
    result = finish(job, [doc], ModelReply(asyncio.run(model(first.model_messages)))).result
    assert result is not None and result["confidence_source"] == "model"
    fields = result["fields"]
    assert fields["order_reference"]["citations"] and fields["order_reference"]["confidence"] >= 0.8
    assert fields["supplier"]["citations"] == [] and fields["supplier"]["confidence"] < 0.5


def test_a_reply_without_json_fails_clearly(server, model, doc) -> None:
    job = spec({"json_options": ["supplier"], "prompt_mode": "model"})
    first = finish(job, [doc], None)
    server.push(completion("I cannot help with that."))
    with pytest.raises(ModelReplyError, match="no JSON object"):
        finish(job, [doc], ModelReply(asyncio.run(model(first.model_messages))))


def test_classification_asks_the_model_when_the_rules_are_unsure(server, doc) -> None:
    server.reset()
    caller = ProviderCaller(
        OpenAIProvider(
            ModelTarget("openai", "test-model", server.base_url, "sk-test", True, allow_private=True),
            max_retries=0,
        )
    )
    job = spec(
        {"categories": ["memo", "letter"], "prompt_mode": "auto"},
        kind="classify",
        model_factory=lambda _: caller,
    )
    server.push(completion('{"category": "letter", "confidence": 0.65}'))
    result = finish(job, [doc], None).result
    assert result is not None and result["classification"] == {"category": "letter", "confidence": 0.65}
    assert len(server.requests) == 1
    rules_only = spec(
        {"categories": ["memo", "letter"], "prompt_mode": "rules"},
        kind="classify",
        model_factory=lambda _: caller,
    )
    assert finish(rules_only, [doc], None).result["classification"]["category"] is None
    assert len(server.requests) == 1


def test_the_extraction_model_follows_the_settings() -> None:
    assert extraction_model(Settings(OPENAI_API_KEY=None)) is None
    built = extraction_model(Settings(OPENAI_API_KEY="sk-x", OPENAI_BASE_URL="http://127.0.0.1:9/v1"))
    assert isinstance(built, ProviderCaller) and isinstance(built.provider, OpenAIProvider)
    assert built.provider.model == DEFAULT_EXTRACTION_MODEL.removeprefix("openai:")
    assert built.provider.target.base_url == "http://127.0.0.1:9/v1"
    named = extraction_model(Settings(OPENAI_API_KEY="sk-x", AGENTRY_DEFAULT_MODEL="openai:gpt-4.1"))
    assert isinstance(named, ProviderCaller) and named.provider.model == "gpt-4.1"


def test_a_taught_design_shows_the_model_its_worked_example(server, model) -> None:
    """Issue 37: the matched example's values and places go into the prompt; the model's answer for
    this document is grounded in this document."""
    from extraction.examples import teach

    taught_doc = parse_bytes(documents.intake_form("Maria Okafor", "03/14/1987", "QX-48213"), "a.pdf")
    example = {
        "example_id": "ex-1",
        "taught": teach(taught_doc, {"patient_name": "Maria Okafor", "chart_ref": "QX-48213"}).to_json(),
    }
    later = parse_bytes(documents.intake_form("Tobias Lindqvist", "11/02/1954", "ZK-90177"), "b.pdf")
    job = spec({"json_options": ["patient_name", "chart_ref"], "prompt_mode": "model", "examples": [example]})
    first = finish(job, [later], None)
    assert first.model_messages is not None
    asked = first.model_messages[-1]["content"]
    assert "Worked example:" in asked and '- chart_ref: "QX-48213" (page 1, box [' in asked
    server.push(completion(json.dumps({"patient_name": "Tobias Lindqvist", "chart_ref": "ZK-90177"})))
    result = finish(job, [later], ModelReply(asyncio.run(model(first.model_messages)))).result
    assert result is not None and result["data"]["chart_ref"] == "ZK-90177"
    assert result["fields"]["chart_ref"]["citations"]

    # Without examples the prompt has none.
    plain = finish(spec({"json_options": ["chart_ref"], "prompt_mode": "model"}), [later], None)
    assert plain.model_messages is not None and "Worked example" not in plain.model_messages[-1]["content"]
