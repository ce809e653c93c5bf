"""How long to wait before trying a failed thing again: every retry loop in the service waits this way.

The wait doubles with each attempt from `base` up to `cap`, and is then drawn at random between half
of that and all of it ("equal jitter"), so the retries of many callers that failed together spread
out instead of arriving in lockstep, while a retry still never comes sooner than half the nominal wait.
"""

from __future__ import annotations

import random

#: Doubling stops growing past this many attempts (2**32 times the base exceeds any cap in use).
_MAX_DOUBLINGS = 32


def nominal_seconds(attempt: int, *, base: float, cap: float) -> float:
    """The wait before retry number `attempt` (1-based) before jitter: base, 2 x base, 4 x base, ... capped."""
    return float(min(cap, base * 2 ** min(max(attempt, 1) - 1, _MAX_DOUBLINGS)))


def backoff_seconds(attempt: int, *, base: float, cap: float, rng: random.Random | None = None) -> float:
    """The jittered wait before retry number `attempt` (1-based): between half and all of the nominal one."""
    nominal = nominal_seconds(attempt, base=base, cap=cap)
    draw = (rng or random).uniform(0.5, 1.0)
    return nominal * draw
