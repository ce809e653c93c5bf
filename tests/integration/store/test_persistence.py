"""The store's persistence is checked: the embedded one keeps AOF on, a Redis without AOF or RDB is
called out loudly (core.infra.persistence)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
import redis

from core.infra.embedded_redis import EmbeddedRedis
from core.infra.persistence import Persistence, warn_unless_durable
from core.infra.store import async_client

pytestmark = pytest.mark.integration


def _check(url: str, log: logging.Logger) -> Persistence:
    async def run() -> Persistence:
        client = async_client(url)
        try:
            return await warn_unless_durable(client, log)
        finally:
            await client.aclose()

    return asyncio.run(run())


def test_the_embedded_store_is_durable_and_a_store_without_aof_or_rdb_is_called_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A server of its own: the test changes its configuration.
    server = EmbeddedRedis(tmp_path / "redis")
    url = server.ensure_running()
    log = logging.getLogger("test.persistence")
    try:
        with caplog.at_level(logging.WARNING, logger=log.name):
            embedded = _check(url, log)
        assert embedded.aof is True and embedded.durable is True
        assert embedded.appendfsync == "always"
        assert caplog.records == []

        redis.Redis.from_url(url).config_set("appendonly", "no")
        with caplog.at_level(logging.WARNING, logger=log.name):
            rdb_only = _check(url, log)
        # The embedded server takes no RDB snapshots: with AOF off, nothing is kept.
        assert rdb_only == Persistence(aof=False, rdb=False, appendfsync="always")
        assert rdb_only.durable is False
        assert [r.levelno for r in caplog.records] == [logging.ERROR]
        assert "NOT DURABLE" in caplog.records[0].getMessage()

        caplog.clear()
        redis.Redis.from_url(url).config_set("save", "3600 1")
        with caplog.at_level(logging.WARNING, logger=log.name):
            snapshots = _check(url, log)
        assert snapshots.durable is True and snapshots.rdb is True
        assert [r.levelno for r in caplog.records] == [logging.WARNING]
    finally:
        server.stop()


def test_an_unknown_setting_is_not_taken_for_a_missing_one() -> None:
    assert Persistence(aof=None, rdb=None).durable is None
    assert Persistence(aof=None, rdb=False).durable is None
    assert Persistence(aof=True, rdb=None).durable is True
