"""The Python client (`agentry_client`) against the real service: runs, waits, lists, extraction,
live events, and its retries (429 from the service's limiter; 5xx and broken connections from a
loopback proxy standing in for the network)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from agentry_client import (
    AsyncClient,
    BadRequest,
    Client,
    Conflict,
    ConnectionFailed,
    Event,
    Forbidden,
    NotFound,
    PollPolicy,
    RateLimited,
    RetryPolicy,
    Unauthorized,
    ValidationFailed,
)

from tests.integration.conftest import Service
from tests.support import documents
from tests.support.agents import ask, scripted
from tests.support.flaky_proxy import flaky_proxy

pytestmark = pytest.mark.integration

SCHEMA = {"type": "object", "properties": {"greeting": {"type": "string"}}}


def pooled(*turns: dict[str, Any], **config: Any) -> dict[str, Any]:
    """A scripted agent on the warm pool of runners: these tests are about the client, not about
    starting a process per task."""
    return scripted(*turns, placement="pooled", **config)


@pytest.fixture(scope="module")
def key(service: Service) -> str:
    return service.key()


@pytest.fixture
def client(service: Service, key: str) -> Iterator[Client]:
    with Client(service.url, key) as c:
        yield c


def test_the_key_comes_from_the_environment(
    service: Service, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTRY_API_KEY", key)
    with Client(service.url) as c:
        agent = c.create_agent("From env", pooled({"answer": "ok"}))
        assert c.get_agent(agent.id).name == "From env"


def test_run_and_wait_pause_reply_and_outputs(client: Client) -> None:
    agent = client.create_agent(
        "Greeter",
        pooled(
            ask("Your name?"),
            {
                "answer": "Hello {{last_user_message}}",
                "structured": {"greeting": "Hello {{last_user_message}}"},
            },
            output_schema=SCHEMA,
        ),
    )
    paused = client.run_and_wait(agent.id, "greet me", result="structured")
    assert paused.outcome == "result_unavailable" and paused.status == "waiting_for_input"
    assert paused.task.pause is not None and paused.task.pause.question == "Your name?"
    client.reply(paused.task_id, "Ada")
    done = client.wait(paused.task_id)
    assert done.status == "completed" and done.usage is not None
    assert client.summary(done.task_id).summary == "Hello Ada"
    assert client.structured_response(done.task_id).structured_response == {"greeting": "Hello Ada"}


def test_run_and_wait_held_to_its_end_and_cancel(client: Client) -> None:
    quick = client.create_agent(config=pooled({"answer": "Hi {{query}}"}))
    done = client.run_and_wait(quick.id, "Grace", result="summary")
    assert (done.outcome, done.result, done.result_status, done.polled) == (
        "terminal",
        "Hi Grace",
        "completed",
        False,
    )

    slow = client.create_agent(config=pooled({"delay_seconds": 30, "answer": "late"}))
    started = client.run(slow.id, "wait")
    assert started.status == "running"
    stopped = client.cancel(started.task_id)
    assert stopped.status == "stopped" and client.cancel(started.task_id).status == "stopped"


def test_a_sync_run_queued_behind_the_concurrency_limit_is_finished_by_polling(client: Client) -> None:
    agent = client.create_agent(
        config=pooled({"delay_seconds": 2, "answer": "{{query}} done"}, settings={"max_concurrent_tasks": 1})
    )
    first = client.run(agent.id, "first")
    started = time.monotonic()
    # The agent's one slot is taken, so the service answers 201 (`queued`) instead of holding.
    done = client.run_and_wait(agent.id, "second", result="summary", timeout=60)
    assert done.polled and done.outcome == "terminal" and done.result == "second done"
    assert client.get_task(first.task_id).status == "completed"
    assert time.monotonic() - started < 30


def test_lists_are_iterated_across_cursors(service: Service) -> None:
    with Client(service.url, service.key()) as fresh:
        agents = [fresh.create_agent(f"Agent {i}", pooled({"answer": "a"})) for i in range(5)]
        assert [a.id for a in fresh.list_agents(limit=2)] == [a.id for a in reversed(agents)]
        runner = agents[0]
        created = [fresh.run(runner.id, f"q{i}").task_id for i in range(5)]
        listed = list(fresh.list_tasks(agent_group_id=runner.agent_group_id, limit=2))
        assert [t.task_id for t in listed] == list(reversed(created))
        assert all(t.agent_name == "Agent 0" for t in listed)


def test_upload_parse_extract_classify_and_jobs(client: Client) -> None:
    form = client.upload(
        documents.pdf_form({"first_name": "Ada", "last_name": "Lovelace", "dob": "12/10/1815"}), "intake.pdf"
    )
    assert form.file_id.startswith("file://") and form.filename == "intake.pdf" and form.format == "pdf"
    extracted = client.extract(form, ["first_name", "last_name"], config={"prompt_mode": "rules"})
    assert extracted.data == {"first_name": "Ada", "last_name": "Lovelace"}
    invoice = client.upload(
        documents.pdf_text([["INVOICE", "Invoice number 77", "Amount due 120.00"]]), "inv.pdf"
    )
    parsed = client.parse(invoice.file_id)
    assert (
        parsed.status == "completed"
        and parsed.result is not None
        and "Invoice number 77" in parsed.result["content"]
    )
    classified = client.classify(invoice, ["invoice", "contract"])
    assert classified.result is not None and classified.result["classification"]["category"] == "invoice"
    queued = client.submit("extract", form, config={"json_options": ["dob"], "prompt_mode": "rules"})
    assert queued.record_id is not None
    finished = client.wait_job(queued.record_id, timeout=60)
    assert finished.status == "completed" and finished.data == {"dob": "12/10/1815"}


def test_429_is_retried_after_retry_after(service: Service) -> None:
    limited = service.key(rate_limit="2/second")
    with Client(service.url, limited) as c:
        agent = c.create_agent(config=pooled({"answer": "a"}))
        started = time.monotonic()
        for _ in range(5):
            assert c.get_agent(agent.id).id == agent.id
        # Five calls at two a second only get through by waiting out the limiter's Retry-After.
        assert time.monotonic() - started >= 1.0
    with Client(service.url, limited, retry=RetryPolicy(max_attempts=1)) as impatient:
        with pytest.raises(RateLimited) as raised:
            for _ in range(5):
                impatient.get_agent(agent.id)
        assert (
            raised.value.status == 429
            and raised.value.retry_after is not None
            and raised.value.retry_after >= 1
        )


def test_5xx_and_broken_connections_through_a_flaky_network(service: Service, key: str) -> None:
    fast = RetryPolicy(base_delay=0.1, max_delay=0.5)
    with flaky_proxy(service.url) as proxy, Client(proxy.url, key, retry=fast) as c:
        agent = c.create_agent(config=pooled({"answer": "{{query}}"}))
        proxy.fail(f"/agents/{agent.id}", "status", status_code=500, times=2)
        proxy.fail(f"/agents/{agent.id}", "drop")
        assert c.get_agent(agent.id).id == agent.id
        assert proxy.count("GET", f"/agents/{agent.id}") == 4

        # A run may have reached the service when the connection broke: it is not sent twice.
        proxy.fail("/run", "drop")
        with pytest.raises(ConnectionFailed) as raised:
            c.run(agent.id, "once")
        assert raised.value.maybe_applied and proxy.count("POST", "/run") == 1
        # A 500 is the service saying it did nothing (docs/spec.md: safe to retry), so a run is resent.
        proxy.fail("/run", "status", status_code=500)
        assert c.run_and_wait(agent.id, "twice", result="summary").result == "twice"
        assert proxy.count("POST", "/run") == 3


def test_events_iterator_resumes_a_dropped_stream_without_loss_or_duplicates(
    service: Service, key: str
) -> None:
    with Client(service.url, key) as direct:
        agent = direct.create_agent(config=pooled(ask("Name?"), {"answer": "Hello {{last_user_message}}"}))
        task_id = direct.run(agent.id, "hi").task_id
        direct.wait(task_id)
        direct.reply(task_id, "Ada")
        done = direct.wait(task_id)
        assert done.status == "completed"
        expected = list(direct.events(task_id))
    assert [e.type for e in expected][-1] == "end" and expected[-1].data["status"] == "completed"
    assert {"status", "feed"} <= {e.type for e in expected}
    fast = RetryPolicy(base_delay=0.1, max_delay=0.5)
    with flaky_proxy(service.url) as proxy, Client(proxy.url, key, retry=fast) as c:
        proxy.fail("/events", "cut", events=2)
        proxy.fail("/events", "cut", events=1)
        received = list(c.events(task_id))
        resumes = [last for method, path, last in proxy.seen if "/events" in path]
    assert [(e.id, e.type, e.data) for e in received] == [(e.id, e.type, e.data) for e in expected]
    assert resumes == [None, expected[1].id, expected[2].id]
    with Client(service.url, key) as direct:
        tail = list(direct.events(task_id, last_event_id=expected[-3].id))
    assert [(e.id, e.type) for e in tail] == [(e.id, e.type) for e in expected[-2:]]


async def test_async_client_runs_lists_and_follows_events(service: Service, key: str) -> None:
    async with AsyncClient(service.url, key, poll=PollPolicy(initial=0.5)) as c:
        agent = await c.create_agent(config=pooled({"delay_seconds": 1, "answer": "async {{query}}"}))
        started = await c.run(agent.id, "one")
        events: list[Event] = [event async for event in c.events(started.task_id)]
        assert events[-1].type == "end" and events[-1].data["status"] == "completed"
        done = await c.run_and_wait(agent.id, "two", result="summary")
        assert done.result == "async two"
        listed = [t.task_id async for t in c.list_tasks(agent_group_id=agent.agent_group_id, limit=1)]
        assert listed == [done.task_id, started.task_id]


def test_errors_are_typed(client: Client, service: Service) -> None:
    agent = client.create_agent(config=pooled({"answer": "a"}))
    task = client.run_and_wait(agent.id, "q", result="summary").task
    with pytest.raises(Conflict):
        client.reply(task.task_id, "late")
    with pytest.raises(BadRequest):
        client.run_and_wait(agent.id, "q")  # async=false needs a result selector
    with pytest.raises(NotFound):
        client.get_task("00000000-0000-4000-8000-000000000000")
    with Client(service.url, service.key()) as stranger, pytest.raises(Forbidden):
        stranger.get_task(task.task_id)
    with Client(service.url, "agk_nope_nope") as anonymous, pytest.raises(Unauthorized):
        anonymous.get_agent(agent.id)
    with pytest.raises(ValidationFailed):
        client.extract("file://00000000-0000-4000-8000-000000000000")
