"""The client's retry and polling policy (pure)."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime

import pytest
from agentry_client.retry import PollPolicy, RetryPolicy, parse_retry_after

pytestmark = pytest.mark.unit


def test_backoff_doubles_to_its_cap_and_jitter_stays_within_half() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0, jitter=0.5, max_attempts=10)
    rng = random.Random(7)
    for attempt, ceiling in zip(range(1, 8), [0.5, 1, 2, 4, 4, 4, 4], strict=True):
        delays = [policy.backoff(attempt, rng) for _ in range(200)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert max(delays) - min(delays) > ceiling / 4  # jitter spreads clients out
    exact = RetryPolicy(base_delay=1.0, jitter=0.0)
    assert [exact.backoff(a, rng) for a in (1, 2, 3, 4, 5)] == [1, 2, 4, 8, 8]


def test_statuses_retried_and_the_attempt_bound() -> None:
    policy = RetryPolicy(max_attempts=3, jitter=0.0, base_delay=1.0)
    rng = random.Random(0)

    def decide(status: int, attempt: int = 1, idempotent: bool = False, retry_after: float | None = None):
        return policy.after_status(status, attempt, idempotent=idempotent, retry_after=retry_after, rng=rng)

    assert decide(500) == 1.0 and decide(503, attempt=2) == 2.0 and decide(500, attempt=3) is None
    assert decide(502) is None and decide(504) is None
    assert decide(502, idempotent=True) == 1.0 and decide(504, idempotent=True) == 1.0
    for status in (400, 401, 403, 404, 409, 413, 415, 422, 501):
        assert decide(status, idempotent=True) is None
    # 429: the service's Retry-After, whatever the request; beyond what the policy waits, give up.
    assert decide(429, retry_after=3) == 3 and decide(429) == 1.0
    assert decide(429, retry_after=61) is None and decide(429, attempt=3, retry_after=1) is None
    # A 503 with Retry-After waits at least that long.
    assert decide(503, retry_after=5) == 5


def test_connection_errors_resend_only_what_is_safe() -> None:
    policy = RetryPolicy(max_attempts=2, jitter=0.0, base_delay=0.5)
    rng = random.Random(0)
    assert policy.after_transport_error(1, sent=False, idempotent=False, rng=rng) == 0.5
    assert policy.after_transport_error(1, sent=True, idempotent=True, rng=rng) == 0.5
    assert policy.after_transport_error(1, sent=True, idempotent=False, rng=rng) is None
    assert policy.after_transport_error(2, sent=False, idempotent=True, rng=rng) is None


def test_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(jitter=2)
    with pytest.raises(ValueError):
        PollPolicy(initial=0)
    with pytest.raises(ValueError):
        PollPolicy(initial=5, maximum=2)


def test_poll_starts_at_one_second_and_backs_off_to_ten() -> None:
    delays = list(itertools.islice(PollPolicy().delays(), 9))
    assert delays[:4] == [1.0, 1.5, 2.25, 3.375]
    assert delays == sorted(delays) and delays[-1] == 10.0 and max(delays) == 10.0


def test_retry_after_in_seconds_or_as_a_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7") == 7.0 and parse_retry_after(" 1 ") == 1.0
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:30 GMT", now) == 30.0
    assert parse_retry_after("Wed, 01 Jan 2025 11:00:00 GMT", now) == 0.0
    assert parse_retry_after(None) is None and parse_retry_after("") is None
    assert parse_retry_after("soon") is None and parse_retry_after("-1") is None
