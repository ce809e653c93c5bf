"""One running service for the whole session: embedded Redis, local Ray, the Serve application.

Ray and Serve start once (about 10 s); every integration and reliability test talks HTTP to it. The
fixtures are registered in `tests/conftest.py`, so both folders share the one instance.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from core.infra.settings import Settings, load_settings
from tests.support.service import client_for, free_port, new_key


@dataclass
class Service:
    url: str
    redis_url: str
    settings: Settings
    data_dir: Path

    def key(self, workspace: str | None = None, *, rate_limit: str | None = None) -> str:
        return new_key(self.redis_url, workspace or f"ws-{uuid.uuid4().hex[:8]}", rate_limit=rate_limit).key

    def client(self, key: str | None = None, **kwargs: object) -> httpx.Client:
        return client_for(self.url, key, **kwargs)  # type: ignore[arg-type]


#: Settings every integration run uses; tests that need others start their own process.
TEST_ENV = {
    "AGENTRY_RATE_LIMIT": "100000/minute",
    "AGENTRY_ALLOW_PRIVATE_URLS": "true",
    "AGENTRY_SYNC_BUDGET_SECONDS": "45",
    "AGENTRY_LOG_LEVEL": "WARNING",
    # Failed webhook deliveries are retried after 1 s, 2 s, ... instead of 10 s, 20 s, ...
    "AGENTRY_WEBHOOK_RETRY_BASE_SECONDS": "1",
    # A task's failed model or tool call is retried after 0.1-0.2 s, 0.2-0.4 s, ... instead of 0.5-1 s, ...
    "AGENTRY_RETRY_BASE_SECONDS": "0.2",
    # An operator key that must never reach a base URL an agent or a connection names (the
    # key-leak tests of tests/integration/models); nothing in the suite calls Anthropic's own host.
    "ANTHROPIC_API_KEY": "sk-ant-operator-never-leaves",
}


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Service]:
    from serve.service import start_service, stop_service

    data_dir = tmp_path_factory.mktemp("data")
    env = dict(TEST_ENV, AGENTRY_DATA_DIR=str(data_dir), AGENTRY_PORT=str(free_port()))
    if request.config.getoption("--ray-address"):
        env["RAY_ADDRESS"] = request.config.getoption("--ray-address")
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    settings = load_settings()
    running = start_service(settings, dashboard=False)
    try:
        yield Service(url=running.url, redis_url=running.redis_url, settings=settings, data_dir=data_dir)
    finally:
        stop_service(running, settings)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="session")
def api_key(service: Service) -> str:
    return service.key("main")


@pytest.fixture
def api(service: Service, api_key: str) -> Iterator[httpx.Client]:
    with service.client(api_key) as client:
        yield client


@pytest.fixture(params=["dedicated", "pooled"])
def placement(request: pytest.FixtureRequest) -> str:
    """Runtime tests run under both placements of the task runner (docs/contract.md AGENTRY_TASK_PLACEMENT)."""
    return str(request.param)
