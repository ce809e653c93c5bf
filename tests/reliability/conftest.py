"""Fault-injection tests: bounded by default (CI), full size with `AGENTRY_CHAOS_SCALE=full`."""

from __future__ import annotations

import os

#: `full`: the sizes of the issue (100 tasks, many kills); anything else: the bounded CI run.
FULL = os.environ.get("AGENTRY_CHAOS_SCALE", "").strip().lower() == "full"


def scaled(ci: int, full: int) -> int:
    return full if FULL else ci
