"""Helpers the integration tests share: API keys, HTTP clients, polling with a deadline."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import socket
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx

from core.infra.store import async_client
from core.stores import apikeys

T = TypeVar("T")


#: Ports tests hand to a server they start: above Ray's worker ports (10002-19999) and below the
#: kernel's ephemeral range (32768 and up), from which Ray's processes and every outgoing connection
#: take ports while the server starts. A port the kernel picked with bind(0) is from that range, and
#: one of Ray's processes took it between the probe and the server's bind (HAProxy: "Address already
#: in use").
TEST_PORTS = range(20000, 32000)


def free_port() -> int:
    """A port nothing listens on now, outside the ranges Ray and the kernel hand out."""
    for port in random.sample(TEST_PORTS, 64):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {TEST_PORTS.start}-{TEST_PORTS.stop - 1} after 64 tries")


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
