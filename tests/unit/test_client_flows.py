"""The client's flows driven by a script of replies: retries, run fallbacks, polling, parsing.

A flow is the client's logic with the I/O taken out (see `agentry_client.protocol`), so these tests
feed it replies and record what it asks for; the integration tests run it against the service.
"""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import pytest
from agentry_client.errors import (
    AgentryClientError,
    ConnectionFailed,
    NotFound,
    RateLimited,
    ServerError,
    ValidationFailed,
    WaitTimeout,
)
from agentry_client.models import Job, Page, SyncReply, Task, TaskSummary
from agentry_client.operations import jobs as job_ops
from agentry_client.operations import lists as list_ops
from agentry_client.operations import runs as run_ops
from agentry_client.operations import tasks as task_ops
from agentry_client.operations.common import segment
from agentry_client.protocol import Call, Context, Flow, Reply, TransportFailure, drive_sync
from agentry_client.retry import PollPolicy, RetryPolicy
from agentry_client.transport import request_options, resolve_api_key, to_failure

pytestmark = pytest.mark.unit

TASK = {"task_id": "t1", "agent_id": "a1", "status": "running", "created_at": "2025-01-01T00:00:00Z"}


def reply(body: Any, status: int = 200, **headers: str) -> Reply:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Reply(status=status, headers={k.replace("_", "-"): v for k, v in headers.items()}, content=content)


def task(status: str, **extra: Any) -> Reply:
    return reply(TASK | {"status": status} | extra)


class Script:
    """Answers each call with the next reply (or raises the next transport failure)."""

    def __init__(self, *answers: Reply | TransportFailure) -> None:
        self.answers = list(answers)
        self.calls: list[Call] = []
        self.sleeps: list[float] = []
        self.now = 0.0

    def send(self, call: Call) -> Reply:
        self.calls.append(call)
        answer = self.answers.pop(0)
        if isinstance(answer, TransportFailure):
            raise answer
        return answer

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def context(self, **retry: Any) -> Context:
        policy = RetryPolicy(**({"jitter": 0.0, "base_delay": 0.5} | retry))
        return Context(retry=policy, poll=PollPolicy(), rng=random.Random(1), clock=lambda: self.now)

    def drive(self, flow: Flow[Any]) -> Any:
        result = drive_sync(flow, self.send, self.sleep)
        assert self.answers == [], "every scripted reply was used"
        return result

    @property
    def paths(self) -> list[str]:
        return [f"{c.method} {c.path}" for c in self.calls]


def test_500_and_503_are_retried_with_backoff_then_succeed() -> None:
    script = Script(reply({"error": "x"}, 500), reply({"error": "y"}, 503, retry_after="2"), task("running"))
    found = script.drive(task_ops.get_task(script.context(), "t1"))
    assert isinstance(found, Task) and found.status == "running"
    assert script.sleeps == [0.5, 2.0] and len(script.calls) == 3


def test_retries_are_bounded_and_end_in_a_typed_error() -> None:
    script = Script(*[reply({"error": "boom"}, 500)] * 3)
    with pytest.raises(ServerError) as raised:
        script.drive(task_ops.get_task(script.context(max_attempts=3), "t1"))
    assert raised.value.status == 500 and raised.value.message == "boom" and script.sleeps == [0.5, 1.0]


def test_429_waits_retry_after_even_for_a_run() -> None:
    script = Script(reply({"error": "slow down"}, 429, retry_after="3"), reply(TASK, 201))
    created = script.drive(run_ops.run(script.context(), "a1", run_ops.RunInputs(query="hi")))
    assert created.task_id == "t1" and script.sleeps == [3.0]
    exhausted = Script(reply(b"Too many requests", 429, retry_after="120"))
    with pytest.raises(RateLimited) as raised:
        exhausted.drive(task_ops.get_task(exhausted.context(), "t1"))
    assert raised.value.retry_after == 120 and raised.value.message == "Too many requests"


def test_a_run_is_not_resent_once_it_may_have_reached_the_service() -> None:
    script = Script(TransportFailure("ReadError", sent=True))
    with pytest.raises(ConnectionFailed) as raised:
        script.drive(run_ops.run(script.context(), "a1", run_ops.RunInputs(query="hi")))
    assert raised.value.maybe_applied and len(script.calls) == 1
    gateway = Script(reply(b"bad gateway", 502))
    with pytest.raises(ServerError):
        gateway.drive(run_ops.run(gateway.context(), "a1", run_ops.RunInputs(query="hi")))


def test_a_run_is_resent_when_no_connection_was_made_and_reads_after_any_break() -> None:
    script = Script(TransportFailure("ConnectError", sent=False), reply(TASK, 201))
    script.drive(run_ops.run(script.context(), "a1", run_ops.RunInputs(query="hi")))
    assert len(script.calls) == 2
    reads = Script(TransportFailure("ReadError", sent=True), reply(b"bad gateway", 502), task("running"))
    reads.drive(task_ops.get_task(reads.context(), "t1"))
    assert len(reads.calls) == 3
    cancels = Script(TransportFailure("RemoteProtocolError", sent=True), task("stopped"))
    assert cancels.drive(task_ops.cancel(cancels.context(), "t1", cascade=True)).status == "stopped"
    assert cancels.calls[0].params == {"cascade": "true"}


def test_error_bodies_of_both_apis() -> None:
    v1 = Script(reply({"error": "task not found"}, 404))
    with pytest.raises(NotFound) as raised:
        v1.drive(task_ops.get_task(v1.context(), "t1"))
    assert raised.value.message == "task not found" and raised.value.body == {"error": "task not found"}
    v2 = Script(
        reply({"detail": [{"loc": ["body", "input"], "msg": "Field required", "type": "missing"}]}, 422)
    )
    with pytest.raises(ValidationFailed) as invalid:
        v2.drive(job_ops.get_job(v2.context(), "r1"))
    assert invalid.value.message == "input: Field required"


def sync_reply(**fields: Any) -> dict[str, Any]:
    return TASK | {"outcome": "terminal", "message": "", "wait_budget_seconds": 300} | fields


def test_run_and_wait_held_to_the_end() -> None:
    script = Script(
        reply(
            sync_reply(status="completed", result_selector="summary", result_status="completed", result="hi")
        ),
        task("completed"),
    )
    done = script.drive(wait_run(script, result="summary"))
    assert (
        done.outcome == "terminal" and done.result == "hi" and not done.polled and done.status == "completed"
    )
    assert script.calls[0].params == {"async": "false", "result": "summary"}


def wait_run(script: Script, **options: Any) -> Flow[Any]:
    settings = {
        "result": None,
        "include_citations": False,
        "hold": True,
        "stop_on_pause": True,
        "timeout": None,
    }
    return run_ops.run_and_wait(script.context(), "a1", run_ops.RunInputs(query="hi"), **(settings | options))


def test_a_too_large_result_is_read_from_its_polling_endpoint() -> None:
    script = Script(
        reply(
            sync_reply(
                status="completed", result_selector="summary", result_status="too_large", result_bytes=9
            )
        ),
        task("completed"),
        reply({"task_id": "t1", "status": "completed", "summary": "long"}),
    )
    done = script.drive(wait_run(script, result="summary"))
    assert done.result == "long" and done.result_status == "completed"
    assert script.paths[-1] == "GET /api/v1/tasks/t1/summary"


def test_the_201_fallback_is_polled_with_backoff_then_its_payload_read() -> None:
    script = Script(
        reply(TASK | {"status": "queued"}, 201),
        task("queued"),
        task("queued"),
        task("queued"),
        task("running"),
        task("running"),
        task("completed"),
        reply({"task_id": "t1", "status": "completed", "summary": "done"}),
    )
    done = script.drive(wait_run(script, result="summary"))
    assert done.polled and done.result == "done" and done.result_selector == "summary"
    # 1 s, backing off; a change of status starts again at 1 s.
    assert script.sleeps == [1.0, 1.5, 2.25, 1.0, 1.5]


@pytest.mark.parametrize("outcome", ["budget_expired", "draining", "something_new"])
def test_202_outcomes_are_polled_and_a_tool_payload_is_read_from_the_feed(outcome: str) -> None:
    feed = [
        {"seq": 1, "type": "tool_result", "tool_name": "lookup", "status": "ok", "output": {"n": 1}},
        {"seq": 2, "type": "tool_result", "tool_name": "lookup", "status": "error", "error": "x"},
    ]
    script = Script(
        reply(sync_reply(outcome=outcome, result_selector="tool:lookup", result_status="processing"), 202),
        task("completed"),
        reply({"task_id": "t1", "status": "completed", "feed": feed}),
    )
    done = script.drive(wait_run(script, result="tool:lookup"))
    assert done.result == {"n": 1} and done.result_status == "completed" and done.polled


def test_a_pause_ends_the_wait_unless_asked_to_go_on() -> None:
    paused = sync_reply(status="waiting_for_input", outcome="result_unavailable", result_selector="summary")
    script = Script(
        reply(paused, 202), task("waiting_for_input", pause={"kind": "ask_user", "question": "Name?"})
    )
    done = script.drive(wait_run(script, result="summary"))
    assert done.outcome == "result_unavailable" and done.result is None
    assert done.task.pause is not None and done.task.pause.question == "Name?"
    going_on = Script(
        reply(paused, 202),
        task("waiting_for_input"),
        task("completed"),
        reply({"task_id": "t1", "status": "completed", "summary": None, "error": "no summary"}),
    )
    done = going_on.drive(wait_run(going_on, result="summary", stop_on_pause=False))
    assert done.outcome == "terminal" and done.result_status == "not_found"


def test_without_a_result_the_agents_stored_selector_applies_after_a_fallback() -> None:
    agent = {
        "id": "a1",
        "agent_group_id": "g1",
        "version_number": 1,
        "status": "published",
        "name": "A",
        "config": {"settings": {"sync_result": "structured"}},
        "created_at": "x",
        "updated_at": "x",
    }
    script = Script(
        reply(TASK | {"status": "queued"}, 201),
        task("failed"),
        reply(agent),
        reply({"task_id": "t1", "status": "failed", "feed": []}),
    )
    done = script.drive(wait_run(script))
    # A stored `structured` on an agent without an output schema degrades to the feed.
    assert done.result_selector == "feed" and done.result == [] and done.result_status == "failed"


def test_waits_end_at_their_timeout_with_the_last_state() -> None:
    script = Script(task("running"), task("running"), task("running"))
    with pytest.raises(WaitTimeout) as raised:
        script.drive(task_ops.wait_task(script.context(), "t1", stop_on_pause=True, timeout=2.0))
    assert isinstance(raised.value.last, Task) and script.sleeps == [1.0, 1.0]


def test_sync_extraction_still_processing_is_polled_to_its_end() -> None:
    processing = {"success": True, "message": "processing", "record_id": "r1", "status": "processing"}
    done = processing | {"status": "completed", "result": {"data": {"name": "Ada"}}}
    script = Script(reply(processing), reply(processing), reply(done))
    job = script.drive(
        job_ops.run_job(script.context(), "extract", {"input": "file://x"}, settle=True, timeout=None)
    )
    assert isinstance(job, Job) and job.data == {"name": "Ada"} and script.sleeps == [1.0]
    assert script.paths == ["POST /api/v2/extract/sync", "GET /api/v2/jobs/r1", "GET /api/v2/jobs/r1"]


def test_models_accept_fields_they_do_not_know_and_unknown_enum_members() -> None:
    item = TaskSummary.model_validate(TASK | {"priority": "high"})
    assert item.model_extra == {"priority": "high"}
    odd = SyncReply.model_validate(sync_reply(outcome="paused_elsewhere", result_status="vanished"))
    assert odd.known_outcome == "budget_expired" and odd.known_result_status == "unavailable"
    page = Page[TaskSummary].model_validate({"data": [TASK], "has_more": True, "next_cursor": "c2"})
    assert page.cursor_for_next == "c2" and isinstance(page.data[0], TaskSummary)
    assert (
        Page[TaskSummary].model_validate({"data": [], "has_more": False, "next_cursor": ""}).cursor_for_next
        is None
    )


def test_list_pages_carry_filters_and_the_cursor() -> None:
    params = list_ops.task_filters(
        status=["running", "queued"], include_data_fields=True, limit=2, title=None
    )
    assert params == {"status": "running,queued", "include_data_fields": "true", "limit": "2"}
    script = Script(reply({"data": [TASK], "has_more": False, "next_cursor": ""}))
    page = script.drive(list_ops.page(script.context(), "/api/v1/tasks", params, TaskSummary, "c1"))
    assert script.calls[0].params == params | {"cursor": "c1"} and page.data[0].task_id == "t1"


def test_run_bodies_json_or_multipart() -> None:
    plain = run_ops.RunInputs(
        query="q", file_ids=["file://1"], output_config={"instructions": "x"}, version=2
    )
    call = plain.call("a1", {"async": "true"})
    assert call.json == {
        "query": "q",
        "file_ids": ["file://1"],
        "output_config": {"instructions": "x"},
        "version": 2,
    }
    assert request_options(call)["json"] == call.json and not call.idempotent
    with_files = run_ops.run_inputs(
        "q",
        files=[("a.pdf", b"%PDF-")],
        file_ids=[],
        output_config={"output_schema": {"type": "object"}},
        version=None,
        source="test",
        disable_delegation=False,
    )
    options = request_options(with_files.call("a1", {}))
    assert options["files"] == [("files", ("a.pdf", b"%PDF-", "application/pdf"))]
    assert options["data"] == {
        "query": "q",
        "output_config": '{"output_schema": {"type": "object"}}',
        "source": "test",
    }
    assert segment("file://abc") == "file%3A%2F%2Fabc"


def test_which_connection_errors_prove_nothing_was_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not to_failure(httpx.ConnectError("refused")).sent
    assert not to_failure(httpx.ConnectTimeout("slow")).sent
    assert to_failure(httpx.ReadError("reset")).sent and to_failure(httpx.RemoteProtocolError("gone")).sent
    assert to_failure(httpx.ReadTimeout("slow")).sent and to_failure(httpx.WriteError("pipe")).sent
    monkeypatch.setenv("AGENTRY_API_KEY", "agk_env")
    assert resolve_api_key(None) == "agk_env" and resolve_api_key("agk_arg") == "agk_arg"
    monkeypatch.delenv("AGENTRY_API_KEY")
    with pytest.raises(AgentryClientError, match="AGENTRY_API_KEY"):
        resolve_api_key(None)


def test_a_review_names_the_preview_it_answers() -> None:
    pending = {"call_id": "call_1_0", "arguments_sha256": "ab" * 32, "tool_name": "x", "arguments": {}}
    bound, unbound = Script(task("running")), Script(task("running"))
    bound.drive(task_ops.review(bound.context(), "t1", "approve", None, pending))
    unbound.drive(task_ops.review(unbound.context(), "t1", "reject", "no"))
    assert bound.calls[0].json == {
        "decision": "approve",
        "call_id": "call_1_0",
        "arguments_sha256": "ab" * 32,
    }
    assert unbound.calls[0].json == {"decision": "reject", "comment": "no"}
