"""Helpers the integration tests share: API keys, HTTP clients, polling with a deadline."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx

from core.infra import ports
from core.infra.store import async_client
from core.stores import apikeys

T = TypeVar("T")


def free_port() -> int:
    """A port for a server a test starts, outside the ranges Ray and the kernel hand out."""
    return ports.free_port()


def run_async(redis_url: str, work: Callable[[Any], Any]) -> Any:
    async def run() -> Any:
        client = async_client(redis_url)
        try:
            return await work(client)
        finally:
            await client.aclose()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    # Called from an async test: run on a thread of its own rather than nest event loops.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def new_key(redis_url: str, workspace: str, *, rate_limit: str | None = None) -> apikeys.IssuedKey:
    async def work(redis: Any) -> apikeys.IssuedKey:
        return await apikeys.issue_key(redis, workspace, label="test", rate_limit=rate_limit)

    result: apikeys.IssuedKey = run_async(redis_url, work)
    return result


def client_for(base_url: str, key: str | None, *, timeout: float = 60.0) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=base_url, headers=headers, timeout=timeout)


def wait_for(
    check: Callable[[], T | None], *, timeout: float = 30.0, interval: float = 0.1, what: str = ""
) -> T:
    """Poll `check` until it returns something truthy, or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or check}; last value: {last!r}")
