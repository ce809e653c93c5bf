"""Usage and cost accounting on a task's hash: the counters a model call adds (per purpose and for
the task's tree), and whether every call was priced.
"""

from __future__ import annotations

from core.tasks.records import Task, parse_task

#: Prefix of the per-purpose usage counters in a task's hash: `usage:<purpose>:<metric>`.
_PURPOSE_PREFIX = "usage:"


_USAGE_METRICS = ("input_tokens", "output_tokens", "cost_usd", "calls", "unpriced_calls")


#: Calls of a model with no known price (actors.models.pricing): while there is one, `cost_usd`
#: counts only the priced calls and `cost_known` is false.
UNPRICED_CALLS = "unpriced_calls"


def usage_increments(
    purpose: str, input_tokens: int, output_tokens: int, cost_usd: float, *, cost_known: bool = True
) -> dict[str, float]:
    """What one model call adds to a task's usage: the totals and its purpose's share
    (`steps`, `data_fields`, `documents`, `grounding`)."""
    increments: dict[str, float] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": cost_usd,
        f"{_PURPOSE_PREFIX}{purpose}:input_tokens": input_tokens,
        f"{_PURPOSE_PREFIX}{purpose}:output_tokens": output_tokens,
        f"{_PURPOSE_PREFIX}{purpose}:cost_usd": cost_usd,
        f"{_PURPOSE_PREFIX}{purpose}:calls": 1,
    }
    if not cost_known:
        increments[UNPRICED_CALLS] = 1
        increments[f"{_PURPOSE_PREFIX}{purpose}:{UNPRICED_CALLS}"] = 1
    return increments


def all_priced(raw: dict[str, str], prefix: str = "") -> bool:
    """Whether every model call counted in `raw` (its `<prefix>unpriced_calls`) had a known price."""
    return not float(raw.get(f"{prefix}{UNPRICED_CALLS}") or 0)


def usage_by_purpose(raw: dict[str, str]) -> dict[str, dict[str, float | int]]:
    """`usage.by_purpose`: per purpose, the tokens, cost and calls its model calls used."""
    split: dict[str, dict[str, float | int]] = {}
    for name, value in raw.items():
        if not name.startswith(_PURPOSE_PREFIX):
            continue
        purpose, _, metric = name[len(_PURPOSE_PREFIX) :].rpartition(":")
        if metric not in _USAGE_METRICS or not purpose:
            continue
        number = float(value)
        split.setdefault(purpose, {})[metric] = round(number, 6) if metric == "cost_usd" else int(number)
    return split


def tree_usage(raw: dict[str, str]) -> dict[str, float | int]:
    """`usage.tree`: what the task and every task below it spent, and (a delegated child in a tree
    with a budget) `budget_usd`, what it reserved from its parent (actors.tree_budget)."""
    usage: dict[str, float | int] = {
        "input_tokens": int(float(raw.get("tree_input_tokens", 0))),
        "output_tokens": int(float(raw.get("tree_output_tokens", 0))),
        "cost_usd": round(float(raw.get("tree_cost_usd", 0.0)), 6),
        "cost_known": all_priced(raw, "tree_"),
    }
    if raw.get("tree_budget_usd"):
        usage["budget_usd"] = round(float(raw["tree_budget_usd"]), 6)
    return usage


def with_increments(task: Task, increments: dict[str, float], fields: dict[str, str] | None = None) -> Task:
    """`task` as it is after a `record` of these increments and fields was written (no re-read)."""
    raw = dict(task.raw)
    for name, amount in increments.items():
        raw[name] = repr(float(raw.get(name) or 0) + amount)
    return parse_task(raw | (fields or {}))
