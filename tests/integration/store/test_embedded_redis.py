"""The embedded server: started on the socket with AOF, reused, stopped only by its starter."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from core.infra.embedded_redis import EmbeddedRedis

pytestmark = pytest.mark.integration


def test_data_survives_a_restart_and_a_second_process_reuses_the_server(tmp_path: Path) -> None:
    directory = tmp_path / "redis"
    owner = EmbeddedRedis(directory)
    url = owner.ensure_running()
    assert owner.started_here and url == f"unix://{directory / 'redis.sock'}"
    client = redis.Redis.from_url(url)
    assert client.config_get("appendonly")["appendonly"] == "yes"
    client.set("durable", "yes")

    other = EmbeddedRedis(directory)
    assert other.ensure_running() == url and not other.started_here
    other.stop()
    assert owner.is_running(), "a process that reused the server must not stop it"

    owner.stop()
    assert not owner.is_running()
    restarted = EmbeddedRedis(directory)
    restarted.ensure_running()
    try:
        assert redis.Redis.from_url(url).get("durable") == b"yes"
    finally:
        restarted.stop()
