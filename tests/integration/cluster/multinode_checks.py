"""A two-node Ray cluster on this machine, deployed the way an operator does it.

Run by `test_multinode.py` in a pytest process of its own (one process holds one Ray, and the
session service of the other integration tests is an in-process Ray), with token authentication on
as cluster.yaml has it (RAY_AUTH_MODE=token, RAY_AUTH_TOKEN); runnable alone too:

    python -m pytest tests/integration/cluster/multinode_checks.py

The nodes (a head and two workers) start like cluster.yaml's `ray start` lines (CPUs, task slots,
a metrics port, the settings in the raylet's environment); the application is deployed with
`serve deploy` and the repository's serve/config.yaml through the head's dashboard, and no
`agentry up` runs anywhere. The tests run in file order and share the cluster: placement first,
losing a node last.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import ray
import yaml

from actors.names import HOST_PREFIX, NAMESPACE, TASK_ACTOR_PREFIX
from actors.placement import TASK_SLOT_RESOURCE
from actors.scheduler import SCHEDULER_NAME
from core.infra.settings import load_settings
from core.infra.store import resolve_redis_url
from serve.service import PROXY_READY_ENV, PROXY_READY_SECONDS
from tests.support import documents
from tests.support.metrics import scrape, total
from tests.support.service import free_port, new_key, wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
#: Task slots of each worker node and of the head: 40 pooled tasks fill both workers.
SLOTS_PER_WORKER = 20
HEAD_SLOTS = 4
#: Concurrent pooled tasks; each worker must run 40-60% of them. Each lasts long enough for all
#: of them to be started (over HTTP) while the first still run.
POOLED_TASKS = 40
POOLED_SECONDS = 90
#: How long a test task's one model call takes: long enough to remove a node under it.
TASK_SECONDS = 15
#: Pages of each scanned test PDF: three ranges of extraction.jobs.pool.SCAN_PAGES_PER_RANGE, read
#: by OCR in parallel. A scan, because ranges of a text layer parse in milliseconds: the first
#: worker leased finishes each before a worker starts on another node, and Ray rightly reuses it.
PDF_PAGES = 12


@dataclass
class Deployed:
    cluster: Any
    head_id: str
    workers: list[Any]
    worker_ids: list[str]
    url: str
    dashboard: str
    redis_url: str
    data_dir: Path
    metrics_ports: dict[str, int]


def _node_env(redis_url: str, data_dir: Path, secret: str) -> dict[str, str]:
    """What cluster.yaml puts in the environment of `ray start` (here the blob store is a folder)."""
    return {
        "REDIS_URL": redis_url,
        "AGENTRY_SECRET": secret,
        "AGENTRY_DATA_DIR": str(data_dir),
        "AGENTRY_BLOB_URL": f"file://{data_dir / 'blobs'}",
        "AGENTRY_LOG_LEVEL": "WARNING",
        # Workers import this checkout, not whatever copy of the project is installed.
        "PYTHONPATH": str(ROOT),
        # Metrics reach the node's endpoint within a second instead of ten.
        "RAY_metrics_report_interval_ms": "1000",
        # Serve kills a proxy not ready within 5 s; on a loaded 2-core machine one can take longer.
        PROXY_READY_ENV: PROXY_READY_SECONDS,
    }


def _serve_config(port: int, data_dir: Path) -> dict[str, Any]:
    """The repository's serve/config.yaml, changed only where one machine differs from a cluster."""
    config: dict[str, Any] = yaml.safe_load((ROOT / "serve" / "config.yaml").read_text())
    config["http_options"] |= {"host": "127.0.0.1", "port": port}
    # Both nodes share this machine's ports: one proxy, on the head.
    config["proxy_location"] = "HeadOnly"
    (app,) = config["applications"]
    app["runtime_env"]["env_vars"] |= {
        "AGENTRY_BLOB_URL": f"file://{data_dir / 'blobs'}",
        "AGENTRY_RATE_LIMIT": "off",
        # These checks are about Ray placing one actor per task within the nodes' task slots (spares
        # hold none and take tasks on the node placement picked: tests/integration/runtime/test_spares.py).
        "AGENTRY_SPARE_TASK_ACTORS": "0",
        "AGENTRY_LOG_LEVEL": "WARNING",
        # A lost runner is noticed within seconds, so the test stays short.
        "AGENTRY_TASK_LEASE_SECONDS": "3",
        "AGENTRY_RECONCILE_SECONDS": "1",
    }
    app["deployments"][0]["num_replicas"] = 1
    # HAProxy's launcher from this virtualenv (a cluster's nodes install it at cluster.yaml's path),
    # and its listeners on free ports beside the other services of this machine.
    local = {
        "RAY_SERVE_HAPROXY_BINARY_PATH": str(Path(sys.executable).parent / "agentry-haproxy"),
        "RAY_SERVE_HAPROXY_STATS_PORT": str(free_port()),
        "RAY_SERVE_HAPROXY_METRICS_PORT": str(free_port()),
        "RAY_SERVE_FALLBACK_PROXY_HTTP_PORT": str(free_port()),
        "RAY_SERVE_FALLBACK_PROXY_GRPC_PORT": str(free_port()),
    }
    config["controller_options"]["runtime_env"]["env_vars"] |= local
    app["runtime_env"]["env_vars"] |= local
    return config


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    from ray.cluster_utils import Cluster

    data_dir = tmp_path_factory.mktemp("cluster")
    saved = dict(os.environ)
    os.environ.pop("RAY_ADDRESS", None)
    os.environ["AGENTRY_DATA_DIR"] = str(data_dir)
    redis_url, embedded = resolve_redis_url(load_settings())
    env = _node_env(redis_url, data_dir, secrets.token_urlsafe(32))
    dashboard_port = free_port()
    ports = {"head": free_port(), "worker-1": free_port(), "worker-2": free_port()}
    cluster = Cluster()
    try:
        cluster.add_node(
            num_cpus=1,
            resources={TASK_SLOT_RESOURCE: HEAD_SLOTS},
            include_dashboard=True,
            dashboard_port=dashboard_port,
            dashboard_agent_listen_port=free_port(),
            metrics_export_port=ports["head"],
            env_vars=env,
        )
        workers = [
            cluster.add_node(
                num_cpus=1,
                resources={TASK_SLOT_RESOURCE: SLOTS_PER_WORKER},
                metrics_export_port=ports[f"worker-{n}"],
                env_vars=env,
            )
            for n in (1, 2)
        ]
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, namespace=NAMESPACE, logging_level="WARNING")
        dashboard = f"http://127.0.0.1:{dashboard_port}"
        wait_for(lambda: _answers(dashboard + "/api/version"), timeout=60, interval=0.5, what="the dashboard")
        # Picked only now: the nodes' own processes took their random ports while starting.
        http_port = free_port()
        config = data_dir / "serve.yaml"
        config.write_text(yaml.safe_dump(_serve_config(http_port, data_dir)))
        deploy = subprocess.run(
            [str(Path(sys.executable).parent / "serve"), "deploy", str(config), "-a", dashboard],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert deploy.returncode == 0, deploy.stdout + deploy.stderr
        url = f"http://127.0.0.1:{http_port}"
        wait_for(lambda: _answers(url + "/readyz"), timeout=180, interval=0.5, what="the deployed service")
        yield Deployed(
            cluster=cluster,
            head_id=cluster.head_node.node_id,
            workers=workers,
            worker_ids=[w.node_id for w in workers],
            url=url,
            dashboard=dashboard,
            redis_url=redis_url,
            data_dir=data_dir,
            metrics_ports={
                cluster.head_node.node_id: ports["head"],
                workers[0].node_id: ports["worker-1"],
                workers[1].node_id: ports["worker-2"],
            },
        )
    finally:
        ray.shutdown()
        cluster.shutdown()
        if embedded is not None:
            embedded.stop()
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")
def api(deployed: Deployed) -> Iterator[httpx.Client]:
    key = new_key(deployed.redis_url, "cluster").key
    with httpx.Client(
        base_url=deployed.url, headers={"Authorization": f"Bearer {key}"}, timeout=60
    ) as client:
        yield client


def _answers(url: str) -> bool:
    # With token authentication on, the dashboard asks for the cluster's token; our service does not.
    token = os.environ.get("RAY_AUTH_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        return httpx.get(url, headers=headers, timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def _get(api: httpx.Client, path: str) -> dict[str, Any] | None:
    """The body of a GET, or None while the service is out of reach (a replica being replaced)."""
    try:
        reply = api.get(path)
    except httpx.HTTPError:
        return None
    return dict(reply.json()) if reply.status_code == 200 else None


def _task_actors() -> dict[str, str]:
    """Alive task actors: task id -> node id (Ray's state API, served by the head's dashboard)."""
    from ray.util.state import list_actors

    alive = list_actors(filters=[("state", "=", "ALIVE")], limit=1000, raise_on_missing_output=False)
    return {
        a.name[len(TASK_ACTOR_PREFIX) :]: a.node_id
        for a in alive
        if a.name.startswith(TASK_ACTOR_PREFIX) and a.ray_namespace == NAMESPACE
    }


def _actor_nodes(name: str) -> set[str]:
    """Every node an actor of this name ran on, including the dead ones."""
    from ray.util.state import list_actors

    return {a.node_id for a in list_actors(filters=[("name", "=", name)], raise_on_missing_output=False)}


def test_serve_deploy_alone_starts_the_service_and_its_scheduler(deployed: Deployed) -> None:
    assert httpx.get(deployed.url + "/healthz").json() == {"status": "ok"}
    ready = httpx.get(deployed.url + "/readyz").json()
    assert ready["checks"] == {"redis": True, "ray": True}
    # Nothing but the ingress replica could have created it: no driver of ours ran start_service.
    scheduler = wait_for(lambda: _named(SCHEDULER_NAME), timeout=60, interval=0.5, what="the scheduler actor")
    assert ray.get(scheduler.alive.remote(), timeout=60) is True
    nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert nodes == {deployed.head_id, *deployed.worker_ids}
    assert ray.cluster_resources()[TASK_SLOT_RESOURCE] == HEAD_SLOTS + 2 * SLOTS_PER_WORKER
    assert ready["store"]["durable"] is True


def _named(name: str) -> Any:
    try:
        return ray.get_actor(name, namespace=NAMESPACE)
    except ValueError:
        return None


def test_extraction_jobs_run_on_both_nodes(deployed: Deployed, api: httpx.Client) -> None:
    first = ["Invoice Number: INV-000", "Total: 10.00"]
    pdf = documents.pdf_scan([first] + [[f"Item {n}: widget", "Amount: 10.00"] for n in range(1, PDF_PAGES)])
    jobs = []
    for n in range(2):
        upload = api.post("/api/v2/files", files={"file": (f"big-{n}.pdf", pdf)})
        assert upload.status_code == 200, upload.text
        reply = api.post(
            "/api/v2/extract/async",
            json={
                "input": upload.json()["file_id"],
                "extraction_config": {"json_options": ["invoice_number"], "prompt_mode": "rules"},
            },
        )
        assert reply.status_code in (200, 201, 202), reply.text
        jobs.append(reply.json()["record_id"])
    for job in jobs:
        done = wait_for(
            lambda job=job: (
                (body := _get(api, f"/api/v2/jobs/{job}")) and body["status"] != "processing" and body
            ),
            timeout=180,
            interval=0.5,
            what=f"extraction job {job}",
        )
        assert done["status"] == "completed", done
        assert done["result"]["data"]["invoice_number"] == "INV-000"

    # Pages are counted by the worker that parsed them, on its own node's metrics endpoint.
    def parsed_per_node() -> dict[str, float] | None:
        counts = {
            node: total(scrape(port), "agentry_extraction_pages_total", format="pdf") or 0
            for node, port in deployed.metrics_ports.items()
        }
        return counts if sum(counts.values()) >= 2 * PDF_PAGES else None

    counts = wait_for(parsed_per_node, timeout=60, interval=1.0, what="pages counted on the nodes")
    assert sum(1 for count in counts.values() if count > 0) >= 2, counts


def test_notebooks_submit_batch_extraction_as_ray_jobs(deployed: Deployed, tmp_path: Path) -> None:
    from ray.job_submission import JobStatus, JobSubmissionClient

    source = tmp_path / "form.pdf"
    source.write_bytes(documents.pdf_text([["Invoice Number: B-7", "Total: 5.00"]]))
    out = tmp_path / "out.jsonl"
    client = JobSubmissionClient(deployed.dashboard)
    job = client.submit_job(
        entrypoint=f"{sys.executable} -m serve.cli extract {source} --fields invoice_number --out {out} --quiet",
        entrypoint_num_cpus=0,
    )
    status = wait_for(
        lambda: (
            (s := client.get_job_status(job)) in (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.STOPPED)
            and s
        ),
        timeout=180,
        interval=1.0,
        what="the batch job",
    )
    assert status == JobStatus.SUCCEEDED, client.get_job_logs(job)
    record = json.loads(out.read_text())
    assert record["data"] == {"invoice_number": "B-7"} and record["error"] is None


def _agent(api: httpx.Client, placement: str, seconds: float) -> str:
    agent = api.post(
        "/api/v1/agents",
        json={
            "config": {
                "model": {"provider": "scripted", "turns": [{"delay_seconds": seconds, "answer": "done"}]},
                "settings": {"placement": placement, "max_concurrent_tasks": 100},
            }
        },
    )
    assert agent.status_code == 201, agent.text
    return str(agent.json()["id"])


def _start(api: httpx.Client, agent_id: str, count: int) -> list[str]:
    def one(n: int) -> str:
        reply = api.post(f"/api/v1/agents/{agent_id}/run", json={"query": f"task {n}"})
        assert reply.status_code == 201, reply.text
        return str(reply.json()["task_id"])

    # A few at a time, as clients do: a burst reaches the service within seconds, also on 2 busy cores.
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(one, range(count)))


def _ended(api: httpx.Client, task_ids: list[str]) -> list[dict[str, Any]] | None:
    bodies = [_get(api, f"/api/v1/tasks/{task_id}") for task_id in task_ids]
    if any(b is None or b["status"] in ("pending", "queued", "running") for b in bodies):
        return None
    return [b for b in bodies if b is not None]


def _pooled_nodes() -> dict[str, str]:
    """Tasks the pooled hosts run now: task id -> node id (a host's name ends in its node and index)."""
    from tests.support.hosts import host_tasks

    return {
        task_id: name[len(HOST_PREFIX) :].rsplit(":", 1)[0]
        for name, running in host_tasks().items()
        for task_id in running
    }


def _held() -> dict[str, Any]:
    """What task work still holds: live task actors, busy pooled runners, task slots in use."""
    from ray._private.state import available_resources_per_node, total_resources_per_node

    free = available_resources_per_node()
    slots = {
        node: total.get(TASK_SLOT_RESOURCE, 0) - free.get(node, {}).get(TASK_SLOT_RESOURCE, 0)
        for node, total in total_resources_per_node().items()
    }
    return {
        "actors": _task_actors(),
        "pooled": _pooled_nodes(),
        "slots": {node: used for node, used in slots.items() if used},
    }


def test_task_work_fills_the_workers_evenly_then_the_head(deployed: Deployed, api: httpx.Client) -> None:
    pooled = _start(api, _agent(api, "pooled", POOLED_SECONDS), POOLED_TASKS)

    def all_pooled() -> dict[str, str] | None:
        running = {t: node for t, node in _pooled_nodes().items() if t in pooled}
        return running if len(running) == POOLED_TASKS else None

    on = wait_for(all_pooled, timeout=POOLED_SECONDS, interval=1.0, what="every pooled task running at once")
    per_node = Counter(on.values())
    assert set(per_node) == set(deployed.worker_ids), per_node
    for worker in deployed.worker_ids:
        assert 0.4 * POOLED_TASKS <= per_node[worker] <= 0.6 * POOLED_TASKS, per_node

    # The pooled runners fill the workers' slots: dedicated actors take what room is left on them,
    # then go to the head.
    room = {w: max(0, SLOTS_PER_WORKER - per_node[w]) for w in deployed.worker_ids}
    overflow = _start(api, _agent(api, "dedicated", 5), sum(room.values()) + 2)
    placed: dict[str, str] = {}

    def overflow_placed() -> bool:
        placed.update({t: node for t, node in _task_actors().items() if t in overflow})
        return len(placed) == len(overflow)

    wait_for(overflow_placed, timeout=120, interval=0.5, what="the overflow's task actors")
    per_node = Counter(placed.values())
    assert per_node[deployed.head_id] == 2 and all(per_node[w] <= room[w] for w in room), (per_node, room)
    ended = wait_for(
        lambda: _ended(api, pooled + overflow), timeout=POOLED_SECONDS + 120, interval=1.0, what="every task"
    )
    assert {b["status"] for b in ended} == {"completed"}, ended

    # Once every task is terminal, nothing stays held: no task actor, no pooled runner, no slot.
    _wait_released()

    # Free workers again: dedicated actors go to them, evenly, and none to the head.
    spread = _start(api, _agent(api, "dedicated", 5), 4)
    placed.clear()

    def spread_placed() -> bool:
        placed.update({t: node for t, node in _task_actors().items() if t in spread})
        return len(placed) == len(spread)

    wait_for(spread_placed, timeout=120, interval=0.5, what="the burst's task actors")
    assert Counter(placed.values()) == {w: 2 for w in deployed.worker_ids}, placed
    ended = wait_for(lambda: _ended(api, spread), timeout=180, interval=1.0, what="the burst")
    assert {b["status"] for b in ended} == {"completed"}, ended

    _wait_released()


def _wait_released() -> None:
    """Once every task is terminal, nothing stays held: no task actor, no pooled runner, no slot."""
    wait_for(
        lambda: _held() == {"actors": {}, "pooled": {}, "slots": {}},
        timeout=60,
        interval=1.0,
        what="no task actor, runner or slot held",
    )


def test_tasks_survive_losing_a_worker(deployed: Deployed, api: httpx.Client) -> None:
    task_ids = _start(api, _agent(api, "dedicated", TASK_SECONDS), 4)
    on: dict[str, str] = {}

    def all_placed() -> bool:
        # Actors start one after another on a busy machine: note each one's node as it shows up.
        on.update({t: node for t, node in _task_actors().items() if t in task_ids})
        return len(on) == len(task_ids)

    wait_for(all_placed, timeout=120, interval=0.5, what="a task actor for every task")
    # Every task runs on a worker, not on the head, while the workers have room.
    assert set(on.values()) <= set(deployed.worker_ids), on
    # The worker holding most of them goes away (either, when they are spread evenly).
    lost_id = Counter(on.values()).most_common(1)[0][0]
    lost = next(worker for worker in deployed.workers if worker.node_id == lost_id)
    kept = next(node for node in deployed.worker_ids if node != lost_id)
    moved = [task_id for task_id, node in on.items() if node == lost.node_id]

    # A worker goes away while its tasks are mid-call.
    deployed.cluster.remove_node(lost, allow_graceful=False)

    ended = wait_for(lambda: _ended(api, task_ids), timeout=240, interval=1.0, what="every task to end")
    assert [b["status"] for b in ended] == ["completed"] * len(task_ids), ended
    # The lost tasks ran again on the worker that remained, and their answer was recorded once.
    for task_id in moved:
        assert kept in _actor_nodes(f"{TASK_ACTOR_PREFIX}{task_id}")
        result = wait_for(
            lambda t=task_id: _get(api, f"/api/v1/tasks/{t}/result"), timeout=60, what="a result"
        )
        answers = [i for i in result["feed"] if i["type"] == "assistant_message"]
        assert [a["text"] for a in answers] == ["done"]
