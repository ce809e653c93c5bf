"""Webhook rules without Redis: events, signatures, the retry schedule, the URL guard."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta

import pytest

from core.infra.errors import BadRequest
from core.stores.webhook_delivery import RETRY_CAP_SECONDS, next_attempt_at, payload, retry_delay
from core.stores.webhooks import EVENTS, check_events, sign
from serve.webhooks import check_url

pytestmark = pytest.mark.unit


def test_events_are_checked_and_deduplicated() -> None:
    assert check_events(["task.failed", "task.completed", "task.failed"]) == ["task.failed", "task.completed"]
    assert "extraction.job.completed" in EVENTS
    for bad in ([], ["task.completed", "task.started"]):
        with pytest.raises(BadRequest):
            check_events(bad)


def test_the_signature_is_hmac_sha256_over_timestamp_and_body() -> None:
    body = payload("e", "task.completed", "2025-01-01T00:00:00.000Z", "w", {"task_id": "t", "name": "Zoë"})
    assert json.loads(body)["data"]["name"] == "Zoë"
    expected = hmac.new(b"whsec_k", b"1700000000." + body.encode(), hashlib.sha256).hexdigest()
    assert sign("whsec_k", 1700000000, body) == f"v1={expected}"
    assert sign("whsec_k", 1700000001, body) != sign("whsec_k", 1700000000, body)


def test_retries_double_up_to_the_cap_with_jitter_and_stop_at_the_window() -> None:
    for n, nominal in (
        (1, 10),
        (2, 20),
        (3, 40),
        (4, 80),
        (20, RETRY_CAP_SECONDS),
        (10_000, RETRY_CAP_SECONDS),
    ):
        waits = [retry_delay(n, 10) for _ in range(50)]
        assert all(nominal / 2 <= w <= nominal for w in waits), (n, waits)
        assert len(set(waits)) > 1  # jittered: a crowd of failed deliveries does not retry in lockstep
    now = datetime(2025, 1, 1, tzinfo=UTC)
    first = next_attempt_at(1, now, now + timedelta(hours=24), 10)
    assert first is not None and now + timedelta(seconds=5) <= first <= now + timedelta(seconds=10)
    assert next_attempt_at(4, now, now + timedelta(seconds=30), 10) is None
    # A day of retries from a 10 s base: the doubling reaches the one-hour cap, then about hourly.
    attempts, moment, deadline = 1, now, now + timedelta(hours=24)
    while (following := next_attempt_at(attempts, moment, deadline, 10)) is not None:
        attempts, moment = attempts + 1, following
    assert 28 <= attempts <= 60 and moment <= deadline


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://10.1.2.3/h",
        "http://[::1]/h",
        "http://169.254.169.254/",
    ],
)
async def test_webhook_urls_pass_the_guard_of_extraction_inputs(url: str) -> None:
    with pytest.raises(BadRequest) as refused:
        await check_url(url, allow_private=False)
    assert "webhook URL" in refused.value.message


async def test_loopback_passes_only_when_private_addresses_are_allowed() -> None:
    assert await check_url(" http://127.0.0.1:9/hook ", allow_private=True) == "http://127.0.0.1:9/hook"
    assert await check_url("https://93.184.216.34/hook", allow_private=False) == "https://93.184.216.34/hook"
    for bad in ("", "x" * 3000, "not a url", "ftp://93.184.216.34/", "http://u:p@93.184.216.34/"):
        with pytest.raises(BadRequest):
            await check_url(bad, allow_private=True)
