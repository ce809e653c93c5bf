"""Start and stop everything `agentry up` runs: the store, Ray, the Serve application.

Shared by the CLI and the integration tests, so tests exercise the same start-up path users run.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass

import ray
from ray import serve

from actors.launcher import NAMESPACE, TASK_SLOT_RESOURCE
from actors.scheduler import start_scheduler
from actors.webhook_dispatcher import start_webhook_dispatcher
from core.bootstrap import ensure_dev_key
from core.embedded_redis import EmbeddedRedis
from core.persistence import warn_unless_durable
from core.settings import Settings
from core.store import async_client, resolve_redis_url
from serve.deployment import APP_NAME, deploy
from serve.waiters import request_drain

log = logging.getLogger(__name__)

#: Serve kills a proxy that is not ready within 5 s by default; a busy 2-core machine can take longer
#: to start one, and a killed proxy fails the whole start.
PROXY_READY_ENV = "RAY_SERVE_PROXY_READY_CHECK_TIMEOUT_S"
PROXY_READY_SECONDS = "30"


@dataclass
class RunningService:
    url: str
    redis_url: str
    dev_key: str | None
    embedded: EmbeddedRedis | None
    started_ray: bool


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
        if started_ray:
            init_args: dict[str, object] = {
                "namespace": NAMESPACE,
                "runtime_env": {"env_vars": env},
                "include_dashboard": dashboard,
                "logging_level": logging.WARNING,
            }
            if settings.ray_address:
                init_args["address"] = settings.ray_address
            else:
                # "local" starts a cluster of our own even when `ray start` left one running on this
                # machine, which a bare ray.init() would join (and refuse our resources for).
                init_args["address"] = "local"
                init_args["resources"] = {TASK_SLOT_RESOURCE: settings.max_live_tasks_per_node}
                # Ray's processes inherit this environment; Serve's controller reads it.
                os.environ.setdefault(PROXY_READY_ENV, PROXY_READY_SECONDS)
            ray.init(**init_args)  # type: ignore[arg-type]
        deploy(settings, env)
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
            ray.shutdown()
        if service.embedded is not None:
            service.embedded.stop()
