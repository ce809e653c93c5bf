"""Start and stop everything `agentry up` runs: the store, Ray, the Serve application.

Shared by the CLI and the integration tests, so tests exercise the same start-up path users run.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass

import ray
from ray import serve

from actors.names import NAMESPACE
from actors.placement import TASK_SLOT_RESOURCE
from actors.scheduler import start_scheduler
from actors.webhook_dispatcher import start_webhook_dispatcher
from core.infra import ports
from core.infra.embedded_redis import EmbeddedRedis
from core.infra.persistence import warn_unless_durable
from core.infra.settings import Settings
from core.infra.store import async_client, resolve_redis_url
from core.stores.bootstrap import ensure_dev_key
from extraction.jobs.ray_session import forget_running_ray, record_running_ray
from serve.deployment import APP_NAME, deploy
from serve.ray_start import start_local_ray
from serve.waiters import request_drain

log = logging.getLogger(__name__)

#: Serve kills a proxy that is not ready within 5 s by default; a busy 2-core machine can take longer
#: to start one, and a killed proxy fails the whole start.
PROXY_READY_ENV = "RAY_SERVE_PROXY_READY_CHECK_TIMEOUT_S"
PROXY_READY_SECONDS = "30"


def _haproxy_ports() -> dict[str, str]:
    """HAProxy's stats and metrics listeners and Serve's fallback proxy (which answers while no
    replica runs) on free ports (core.infra.ports): their fixed defaults (8404, 9101, 8500, 9500)
    would collide with another service on this machine (another checkout, the tests)."""
    names = (
        "RAY_SERVE_HAPROXY_STATS_PORT",
        "RAY_SERVE_HAPROXY_METRICS_PORT",
        "RAY_SERVE_FALLBACK_PROXY_HTTP_PORT",
        "RAY_SERVE_FALLBACK_PROXY_GRPC_PORT",
    )
    return {name: str(port) for name, port in zip(names, ports.free_ports(len(names)), strict=True)}


#: How long a start waits for HTTP to answer once the application runs (a busy machine is slow).
HTTP_READY_SECONDS = 180.0


def _wait_for_http(settings: Settings) -> None:
    """Until the ingress answers `/-/healthz` (200 once a replica is behind it), or fail the start."""
    import httpx

    host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    url = f"http://{host}:{settings.port}/-/healthz"
    deadline = time.monotonic() + HTTP_READY_SECONDS
    while True:
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"HTTP did not answer on {url} within {HTTP_READY_SECONDS:.0f} s")
        time.sleep(0.5)


@dataclass
class RunningService:
    url: str
    redis_url: str
    dev_key: str | None
    embedded: EmbeddedRedis | None
    started_ray: bool
    #: The Ray dashboard of the Ray this service started (None when it joined one or runs none).
    dashboard_url: str | None = None


async def _bootstrap(redis_url: str, settings: Settings) -> str | None:
    client = async_client(redis_url)
    try:
        await warn_unless_durable(client, log)
        return await ensure_dev_key(client, settings.data_dir)
    finally:
        await client.aclose()


async def _drain(redis_url: str) -> None:
    client = async_client(redis_url)
    try:
        await request_drain(client)
    finally:
        await client.aclose()


def start_service(settings: Settings, *, dashboard: bool = True) -> RunningService:
    redis_url, embedded = resolve_redis_url(settings)
    try:
        dev_key = asyncio.run(_bootstrap(redis_url, settings))
        env = settings.worker_env(redis_url=redis_url)
        started_ray = not ray.is_initialized()
        dashboard_url = None
        if started_ray:
            init_args: dict[str, object] = {
                "namespace": NAMESPACE,
                "runtime_env": {"env_vars": env},
                "include_dashboard": dashboard,
                "logging_level": logging.WARNING,
            }
            if settings.ray_address:
                init_args["address"] = settings.ray_address
                context = ray.init(**init_args)  # type: ignore[arg-type]
            else:
                # "local" starts a cluster of our own even when `ray start` left one running on this
                # machine, which a bare ray.init() would join (and refuse our resources for).
                init_args["address"] = "local"
                init_args["resources"] = {TASK_SLOT_RESOURCE: settings.max_live_tasks_per_node}
                # Ray's processes inherit this environment; Serve's controller reads it.
                os.environ.setdefault(PROXY_READY_ENV, PROXY_READY_SECONDS)
                context = start_local_ray(ray.init, ray.shutdown, init_args)
            dashboard_address = getattr(context, "dashboard_url", None)
            if dashboard and dashboard_address:
                dashboard_url = f"http://{dashboard_address}"
            # Batch runs on this machine (`agentry extract`, notebooks) join this Ray instead of
            # starting a second one beside it (extraction.jobs.ray_session).
            record_running_ray(
                settings.data_dir, f"http://{dashboard_address}" if dashboard_address else None
            )
        deploy(settings, env, local_ports=None if settings.ray_address else _haproxy_ports())
        if not settings.ray_address:
            # On a cluster the proxies listen on its nodes, not necessarily here.
            _wait_for_http(settings)
        start_scheduler()
        start_webhook_dispatcher()
    except BaseException:
        if embedded is not None:
            embedded.stop()
        raise
    return RunningService(
        url=f"http://{settings.host}:{settings.port}",
        redis_url=redis_url,
        dev_key=dev_key,
        embedded=embedded,
        started_ray=started_ray,
        dashboard_url=dashboard_url,
    )


def stop_service(service: RunningService, settings: Settings) -> None:
    """Stop what `start_service` started and nothing else."""
    try:
        # Held sync runs answer `draining` now instead of being cut off by the shutdown.
        asyncio.run(_drain(service.redis_url))
        # The application first, while the proxies still run: its replicas finish their requests (the
        # held runs answering `draining`) before they stop. Shutting Serve down at once could stop a
        # proxy before a drained answer had passed through it.
        serve.delete(APP_NAME)
        if not settings.ray_address:
            # A shared cluster keeps its other Serve applications and its proxies.
            serve.shutdown()
    finally:
        if service.started_ray:
            forget_running_ray(settings.data_dir)
            ray.shutdown()
        if service.embedded is not None:
            service.embedded.stop()
