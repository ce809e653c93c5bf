"""The shared retry wait (core.infra.backoff): doubling from a base, capped, jittered within bounds."""

from __future__ import annotations

import random

from core.infra.backoff import backoff_seconds, nominal_seconds


def test_the_nominal_wait_doubles_per_attempt_up_to_the_cap() -> None:
    assert [nominal_seconds(n, base=1.0, cap=60.0) for n in (1, 2, 3, 4, 5, 6)] == [1, 2, 4, 8, 16, 32]
    assert nominal_seconds(7, base=1.0, cap=60.0) == 60.0
    assert nominal_seconds(10_000, base=1.0, cap=60.0) == 60.0
    # An attempt number below 1 waits as the first does.
    assert nominal_seconds(0, base=0.5, cap=60.0) == 0.5


def test_the_jittered_wait_stays_between_half_and_all_of_the_nominal_one_and_varies() -> None:
    rng = random.Random(7)
    for attempt in (1, 2, 3, 8, 40):
        nominal = nominal_seconds(attempt, base=0.25, cap=5.0)
        waits = [backoff_seconds(attempt, base=0.25, cap=5.0, rng=rng) for _ in range(200)]
        assert all(nominal / 2 <= w <= nominal for w in waits), (attempt, min(waits), max(waits))
        assert max(waits) - min(waits) > nominal / 4  # spread out, not one fixed value
    # Growth survives the jitter: the shortest later wait is longer than the longest first one.
    assert min(backoff_seconds(4, base=1.0, cap=60.0) for _ in range(100)) > max(
        backoff_seconds(1, base=1.0, cap=60.0) for _ in range(100)
    )


def test_no_wait_is_zero() -> None:
    assert min(backoff_seconds(1, base=0.01, cap=1.0) for _ in range(500)) >= 0.005
