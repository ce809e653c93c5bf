"""Faults of a whole `agentry up` process (a child process with its own data dir).

- A `kill -9` of the embedded Redis under load: nothing acknowledged is lost, the API fails fast with
  503 in its envelope while the store is down, and recovers by itself when the store is back.
- The process stopped (SIGTERM) mid-load and started again: held sync runs answer `draining`, and
  every task, running or queued, resumes and completes once.

The service does not restart its embedded Redis: whoever runs on the same data dir next (another
`agentry` command, or this test, with `EmbeddedRedis(...).ensure_running()`) starts it from its
append-only file, and the running service reconnects without a restart.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.reliability.conftest import FULL, scaled
from tests.support.agentry_process import AgentryProcess
from tests.support.agents import TERMINAL, create_agent, feed, of_type, scripted, start
from tests.support.documents import pdf_text
from tests.support.service import wait_for

pytestmark = pytest.mark.reliability

#: Settings of the child service: no rate limit in the way of the load.
SERVICE_SETTINGS = {
    "AGENTRY_RATE_LIMIT": "100000/minute",
    "AGENTRY_SYNC_BUDGET_SECONDS": "45",
    "AGENTRY_LOG_LEVEL": "WARNING",
}
#: A request to a service whose store is down must answer within this (the store's timeouts are 2-5 s).
FAIL_FAST_SECONDS = 8.0


@pytest.fixture(scope="module")
def agentry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentryProcess]:
    process = AgentryProcess(Path(tmp_path_factory.mktemp("outage")), **SERVICE_SETTINGS)
    try:
        yield process.start()
    finally:
        process.close()


class Load:
    """Clients posting async runs until stopped; remembers every task answered with 201."""

    def __init__(self, url: str, key: str, agent_id: str, clients: int) -> None:
        self.url, self.key, self.agent_id = url, key, agent_id
        self.acknowledged: dict[str, str] = {}
        self.refused: list[int] = []
        self.errors: list[str] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._post, daemon=True) for _ in range(clients)]

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def _post(self) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.url, headers=headers, timeout=FAIL_FAST_SECONDS + 5) as client:
            while not self.stop.is_set():
                query = f"q-{uuid.uuid4().hex[:10]}"
                try:
                    reply = client.post(f"/api/v1/agents/{self.agent_id}/run", json={"query": query})
                except httpx.HTTPError as exc:
                    with self.lock:
                        self.errors.append(type(exc).__name__)
                    time.sleep(0.2)
                    continue
                with self.lock:
                    if reply.status_code == 201:
                        self.acknowledged[reply.json()["task_id"]] = query
                    else:
                        self.refused.append(reply.status_code)
                if reply.status_code != 201:
                    time.sleep(0.2)

    def count(self) -> int:
        with self.lock:
            return len(self.acknowledged)


def _probes(agent_id: str, task_id: str) -> list[tuple[str, str, dict]]:
    """One call of each route family, as (method, path, request kwargs)."""
    job = str(uuid.uuid4())
    return [
        ("GET", "/api/v1/agents", {}),
        ("GET", f"/api/v1/agents/{agent_id}", {}),
        ("POST", f"/api/v1/agents/{agent_id}/run", {"json": {"query": "during the outage"}}),
        (
            "POST",
            f"/api/v1/agents/{agent_id}/run",
            {"params": {"async": "false", "result": "summary"}, "json": {"query": "held during the outage"}},
        ),
        ("GET", "/api/v1/tasks", {}),
        ("GET", f"/api/v1/tasks/{task_id}", {}),
        ("GET", f"/api/v1/tasks/{task_id}/result", {}),
        ("POST", f"/api/v1/tasks/{task_id}/message", {"json": {"message": "hello"}}),
        ("GET", f"/api/v1/tasks/{task_id}/events", {}),
        ("GET", "/api/v1/audit", {}),
        ("GET", "/api/v1/webhooks", {}),
        ("GET", "/api/v1/integrations/practice", {}),
        ("GET", "/api/v2/configs", {}),
        ("GET", f"/api/v2/jobs/{job}", {}),
        ("POST", "/api/v2/files", {"files": {"file": ("a.pdf", pdf_text([["outage"]]))}}),
        ("POST", "/api/v2/parse/async", {"json": {"input": f"file://{job}"}}),
        ("POST", "/api/v2/parse/sync", {"json": {"input": f"file://{job}"}}),
    ]


def _check_unavailable(api: httpx.Client, agent_id: str, task_id: str) -> None:
    for method, path, kwargs in _probes(agent_id, task_id):
        started = time.monotonic()
        reply = api.request(method, path, **kwargs)
        took = time.monotonic() - started
        where = f"{method} {path}: {reply.status_code} {reply.text[:200]}"
        assert reply.status_code == 503, where
        assert took < FAIL_FAST_SECONDS, f"{where} took {took:.1f} s"
        envelope = "error" if path.startswith("/api/v1") else "detail"
        body = reply.json()
        assert set(body) == {envelope} and isinstance(body[envelope], str), where
        assert "Traceback" not in reply.text and int(reply.headers["Retry-After"]) > 0, where
    assert api.get("/readyz").status_code == 503


def test_acknowledged_tasks_survive_a_kill_9_of_redis(agentry: AgentryProcess) -> None:
    with agentry.client(timeout=FAIL_FAST_SECONDS + 5) as api:
        # Each task sleeps in its model call, so many are mid-step when the store dies.
        agent = create_agent(
            api,
            scripted(
                {"delay_seconds": 1.5, "answer": "done {{query}}"},
                placement="pooled",
                settings={"max_concurrent_tasks": 12},
            ),
        )
        before = scaled(15, 60)
        # At full scale also an extraction job long enough to straddle the outage (its result is
        # stored once the store is back).
        job = _start_long_parse(api) if FULL else None
        with Load(agentry.url, agentry.key(), agent["id"], clients=scaled(2, 4)) as load:
            wait_for(lambda: load.count() >= before, timeout=120, what=f"{before} acknowledged runs")
            service_pid = agentry.process.pid  # type: ignore[union-attr]
            agentry.kill_redis()
            down_at = time.monotonic()
            # The clients go on posting into the outage; none of those may hang.
            wait_for(lambda: len(load.refused) >= 3, timeout=30, what="runs refused during the outage")
        acknowledged = dict(load.acknowledged)
        assert load.errors == [], f"client errors (timeouts, resets): {load.errors}"
        assert set(load.refused) == {503}, load.refused

        _check_unavailable(api, agent["id"], next(iter(acknowledged)))
        # Longer than a task lease: every runner has lost its lease by the time the store is back.
        time.sleep(max(0.0, 7.0 - (time.monotonic() - down_at)))

        agentry.redis.ensure_running()
        assert agentry.process.pid == service_pid and agentry.process.poll() is None  # type: ignore[union-attr]
        wait_for(
            lambda: api.get("/api/v1/agents").status_code == 200,
            timeout=30,
            interval=0.5,
            what="the API to recover by itself",
        )
        assert httpx.get(f"{agentry.url}/readyz").status_code == 200

        def ended() -> dict[str, dict] | None:
            found = {tid: api.get(f"/api/v1/tasks/{tid}").json() for tid in acknowledged}
            if all(body.get("status") in TERMINAL for body in found.values()):
                return found
            return None

        tasks = wait_for(ended, timeout=scaled(120, 300), interval=1.0, what="every acknowledged task to end")
        for task_id, query in acknowledged.items():
            assert tasks[task_id]["status"] == "completed", tasks[task_id]
            summary = api.get(f"/api/v1/tasks/{task_id}/summary").json()
            assert summary["summary"] == f"done {query}", summary
        if job is not None:
            done = wait_for(lambda: _job_ended(api, job), timeout=300, interval=1.0, what="the parse job")
            assert done["status"] == "completed", done
        # And a new run goes through as before.
        reply = api.post(
            f"/api/v1/agents/{agent['id']}/run",
            params={"async": "false", "result": "summary"},
            json={"query": "after"},
        )
        assert reply.status_code == 200 and reply.json()["result"] == "done after", reply.text


def test_a_restart_mid_load_resumes_every_task(agentry: AgentryProcess) -> None:
    count = scaled(10, 40)
    with agentry.client() as api:
        agent = create_agent(
            api,
            scripted({"delay_seconds": 4, "answer": "done {{query}}"}, settings={"max_concurrent_tasks": 4}),
        )
        held: list[httpx.Response | Exception] = []

        def hold() -> None:
            with agentry.client(timeout=120) as client:
                try:
                    held.append(
                        client.post(
                            f"/api/v1/agents/{agent['id']}/run",
                            params={"async": "false", "result": "summary"},
                            json={"query": "held"},
                        )
                    )
                except httpx.HTTPError as exc:
                    held.append(exc)

        holder = threading.Thread(target=hold, daemon=True)
        holder.start()
        wait_for(lambda: _count(api, agent["id"], "running") == 1, timeout=60, what="the held run to start")
        queries = {start(api, agent["id"], f"r{i}"): f"r{i}" for i in range(count)}
        wait_for(lambda: _count(api, agent["id"], "running") == 4, timeout=60, what="four running tasks")
        assert _count(api, agent["id"], "queued") > 0

    assert agentry.stop() == 0, agentry.output()
    holder.join(timeout=60)
    (reply,) = held
    # The stopping service told the held request to let go, with the id of its task.
    assert isinstance(reply, httpx.Response), repr(reply)
    assert reply.status_code == 202 and reply.json()["outcome"] == "draining", reply.text
    queries[reply.json()["task_id"]] = "held"

    agentry.start()
    with agentry.client() as api:
        seen: dict[str, str] = {}
        stalls: list[str] = []

        def ended() -> dict[str, dict] | None:
            found: dict[str, dict] = {}
            for tid in queries:
                reply = api.get(f"/api/v1/tasks/{tid}")
                if reply.status_code == 503:
                    # The store stalled past its client's timeout (seen once in CI; likely an fsync of
                    # the restarted Redis's append-only file on a busy disk): the API says "retry
                    # shortly", and a client does.
                    stalls.append(reply.json()["error"])
                    return None
                assert reply.status_code == 200, reply.text
                found[tid] = reply.json()
            seen.update({tid: body["status"] for tid, body in found.items()})
            return found if all(body["status"] in TERMINAL for body in found.values()) else None

        try:
            tasks = wait_for(
                ended, timeout=scaled(180, 400), interval=1.0, what="every task after the restart"
            )
        except AssertionError as exc:
            # What a failure needs to be understood: where each task stopped, the store's stalls, and
            # the service's and its Redis's own logs.
            redis_log = agentry.data_dir / "redis" / "redis.log"
            tail = redis_log.read_text(errors="replace")[-2000:] if redis_log.exists() else ""
            raise AssertionError(
                f"{exc}\nstatuses: {seen}\n{len(stalls)} polls answered 503\n{agentry.output()}\n"
                f"--- redis.log (tail)\n{tail}"
            ) from exc
        for task_id, query in queries.items():
            assert tasks[task_id]["status"] == "completed", tasks[task_id]
            messages = of_type(feed(api, task_id), "assistant_message")
            assert [m["text"] for m in messages] == [f"done {query}"], messages


def _start_long_parse(api: httpx.Client) -> str:
    pages = [[f"Outage page {n}"] for n in range(1, 401)]
    upload = api.post("/api/v2/files", files={"file": ("long.pdf", pdf_text(pages))})
    assert upload.status_code == 200, upload.text
    queued = api.post("/api/v2/parse/async", json={"input": upload.json()["file_id"]})
    assert queued.status_code == 200, queued.text
    return str(queued.json()["record_id"])


def _job_ended(api: httpx.Client, record_id: str) -> dict | None:
    reply = api.get(f"/api/v2/jobs/{record_id}")
    body: dict = reply.json()
    return body if reply.status_code == 200 and body["status"] != "processing" else None


def _count(api: httpx.Client, agent_id: str, status: str) -> int:
    reply = api.get("/api/v1/tasks", params={"agent_id": agent_id, "status": status, "limit": 100})
    return len(reply.json()["data"]) if reply.status_code == 200 else 0
