"""When to resend a request and how long to wait between polls (pure: no I/O, no clock).

docs/spec.md, Errors: retry 500 with exponential backoff; on 429 wait the `Retry-After` interval.
docs/spec.md, Limits: poll at 1 to 2 seconds, backing off to about 10 seconds.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

#: Statuses that say the service did not do the work and a later attempt can succeed. 500 is
#: documented as safe to retry; 503 is the service's "store unreachable, retry shortly".
RETRY_ALWAYS = frozenset({500, 503})
#: Gateway answers: the request may have been passed on and applied, so only idempotent requests
#: are resent after them.
RETRY_IF_IDEMPOTENT = frozenset({502, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter, and how long a `Retry-After` may make us wait."""

    #: Attempts in all, the first included; 1 disables retries.
    max_attempts: int = 5
    #: Delay before the second attempt, doubled for each later one, capped at `max_delay`.
    base_delay: float = 0.5
    max_delay: float = 8.0
    #: A `Retry-After` longer than this is not slept through: the 429 is raised at once.
    max_retry_after: float = 60.0
    #: Each backoff is drawn from [delay * (1 - jitter), delay] so that clients that failed together
    #: do not come back together.
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be 1 or more")
        if not 0 <= self.jitter <= 1:
            raise ValueError("jitter must be between 0 and 1")

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """The delay after failed attempt number `attempt` (1-based)."""
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return float(ceiling * (1 - self.jitter * rng.random()))

    def after_status(
        self, status: int, attempt: int, *, idempotent: bool, retry_after: float | None, rng: random.Random
    ) -> float | None:
        """Seconds to wait before resending after `status`, or None to stop and report it."""
        if attempt >= self.max_attempts:
            return None
        if status == 429:
            # The limiter refused the request before doing anything, so any request may be resent.
            wait = retry_after if retry_after is not None else self.backoff(attempt, rng)
            return wait if wait <= self.max_retry_after else None
        if status in RETRY_ALWAYS or (idempotent and status in RETRY_IF_IDEMPOTENT):
            if retry_after is not None and retry_after <= self.max_retry_after:
                return max(retry_after, self.backoff(attempt, rng))
            return self.backoff(attempt, rng)
        return None

    def after_transport_error(
        self, attempt: int, *, sent: bool, idempotent: bool, rng: random.Random
    ) -> float | None:
        """Seconds to wait before resending after a connection error, or None to give up.

        `sent` is false only when the error proves nothing reached the service (the connection was
        never established); then any request may be resent. Otherwise only an idempotent one is.
        """
        if attempt >= self.max_attempts or (sent and not idempotent):
            return None
        return self.backoff(attempt, rng)


@dataclass(frozen=True)
class PollPolicy:
    """Polling intervals: `initial`, then times `factor` each poll, at most `maximum`."""

    initial: float = 1.0
    factor: float = 1.5
    maximum: float = 10.0
    #: Start again at `initial` when the polled status changes: a task that just moved is likely
    #: to move again soon (a reply resumes it, a child finishes).
    reset_on_change: bool = True

    def __post_init__(self) -> None:
        if self.initial <= 0 or self.factor < 1 or self.maximum < self.initial:
            raise ValueError("PollPolicy needs 0 < initial <= maximum and factor >= 1")

    def delays(self) -> Iterator[float]:
        """1, 1.5, 2.25, ... up to `maximum`, then `maximum` for ever."""
        delay = self.initial
        while True:
            yield delay
            delay = min(self.maximum, delay * self.factor)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds: whole seconds (what this service sends) or an HTTP date."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
