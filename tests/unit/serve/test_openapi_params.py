"""The OpenAPI document says what the service accepts: formats, patterns, enums and bounds."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from core.infra.cursors import cursor_key, sign_cursor
from core.infra.errors import BadRequest
from core.infra.ids import encode_cursor
from core.tasks.queries import TaskFilter
from serve.app import build_app


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return build_app().openapi()


def parameters(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", p["name"], p)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        for p in operation.get("parameters", ())
    ]


def test_every_id_in_a_path_declares_its_form(document: dict[str, Any]) -> None:
    ids = [
        (op, name, p["schema"])
        for op, name, p in parameters(document)
        if p["in"] == "path" and name.endswith("_id")
    ]
    assert len(ids) >= 25
    for op, name, schema in ids:
        assert schema.get("format") == "uuid" or "pattern" in schema, (op, name, schema)


def test_prefixed_ids_match_both_forms(document: dict[str, Any]) -> None:
    schema = document["paths"]["/api/v2/files/{file_id}"]["get"]["parameters"][0]["schema"]
    some = str(uuid.uuid4())
    assert re.match(schema["pattern"], some) and re.match(schema["pattern"], f"file://{some}")
    assert not re.match(schema["pattern"], f"config://{some}")


def test_no_parameter_may_be_null(document: dict[str, Any]) -> None:
    for op, name, p in parameters(document):
        assert "anyOf" not in p["schema"], (op, name, p["schema"])


def test_cursor_limit_and_filters(document: dict[str, Any]) -> None:
    cursors = [p["schema"] for _, name, p in parameters(document) if name == "cursor"]
    # agents, versions, tasks, children, audit, webhooks, deliveries, configs, config examples,
    # mcp-servers, batches
    assert len(cursors) == 11
    issued = sign_cursor(encode_cursor("0001:x"), key=cursor_key("s"), scope="/api/v1/agents")
    assert all(re.match(schema["pattern"], issued) for schema in cursors)
    limits = [p["schema"] for _, name, p in parameters(document) if name == "limit"]
    assert limits and all(s["minimum"] == 1 and s["maximum"] == 100 for s in limits)
    tasks = {p["name"]: p["schema"] for p in document["paths"]["/api/v1/tasks"]["get"]["parameters"]}
    assert tasks["bucket"]["enum"] == ["production", "test", "all"]
    assert tasks["agent_id"]["format"] == tasks["agent_group_id"]["format"] == "uuid"
    assert re.match(tasks["status"]["pattern"], "running, completed")
    assert not re.match(tasks["status"]["pattern"], "running,done")


def test_body_fields(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    name = schemas["AgentCreate"]["properties"]["name"]
    assert name["maxLength"] == 200 and name["minLength"] == 1
    webhook = schemas["WebhookBody"]["properties"]
    assert "task.completed" in webhook["events"]["items"]["enum"]
    assert webhook["url"]["maxLength"] == 2048
    run = document["paths"]["/api/v1/agents/{agent_id}/run"]["post"]["requestBody"]["content"]
    file_ids = run["application/json"]["schema"]["properties"]["file_ids"]
    assert file_ids["items"]["pattern"].startswith("^(file://)?")


def test_task_filters_that_are_ids_must_be_uuids() -> None:
    with pytest.raises(BadRequest, match="agent_id"):
        TaskFilter.parse(
            agent_group_id=None,
            agent_id="x",
            status=None,
            created_after=None,
            created_before=None,
            title=None,
            bucket=None,
        )
    some = str(uuid.uuid4())
    flt = TaskFilter.parse(
        agent_group_id=some.upper(),
        agent_id=None,
        status=None,
        created_after=None,
        created_before=None,
        title=None,
        bucket=None,
    )
    assert flt.agent_group_id == some
