"""Per-process services of the task runtime, created on first use inside the process's event loop.

Imported with the task actor's class (`actors.hosts`), so it imports nothing heavy itself: the
runner, the tools and the HTTP client load on the first `runtime()` call (a task's first step, or a
spare's warm-up), not when Ray creates the actor (issue 29: a task actor starts like a bare one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx
    import redis.asyncio as aioredis

    from actors.runner import TaskRunner
    from core.infra.settings import Settings
    from tools.registry import ToolRegistry


@dataclass
class Runtime:
    settings: Settings
    redis: aioredis.Redis
    registry: ToolRegistry
    http: httpx.AsyncClient
    runner: TaskRunner


_runtime: Runtime | None = None


def runtime() -> Runtime:
    global _runtime
    if _runtime is None:
        import httpx

        from actors.models.extraction import extraction_model
        from actors.runner import TaskRunner
        from core.infra.settings import get_settings
        from core.infra.store import async_client, resolve_redis_url
        from tools.builtin import build_registry

        settings = get_settings()
        url, _ = resolve_redis_url(settings)
        redis = async_client(url)
        registry = build_registry(extraction_model)
        http = httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=10.0))
        runner = TaskRunner(settings=settings, redis=redis, registry=registry)
        _runtime = Runtime(settings=settings, redis=redis, registry=registry, http=http, runner=runner)
    return _runtime
