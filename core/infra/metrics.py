"""The service's custom metrics, in one place: names, kinds, tags, and how to record them.

Recorded with `ray.util.metrics`, they are exported in Prometheus text by every node's metrics agent
(`ray start --metrics-export-port`), each name prefixed `ray_`, with Ray's own labels added
(`NodeAddress`, `WorkerId`, `SessionName`). Ray is imported on first record, not on import, so the
kernel stays free of it; a process that never joined Ray records into nothing.

| metric | kind | tags | recorded by |
|---|---|---|---|
| `agentry_task_transitions_total` | counter | status | every status change of a task (`core.tasks`) |
| `agentry_tasks_live` | gauge | status | the scheduler's reconcile pass: pending, queued, running |
| `agentry_agent_queue_depth` | gauge | agent_id | the same pass: queued tasks per agent |
| `agentry_task_actors` | gauge | | the scheduler: task actors alive or waiting for a slot |
| `agentry_model_call_seconds` | histogram | model, outcome | the task runner, per model call |
| `agentry_tool_call_seconds` | histogram | tool, outcome | the task runner, per tool call |
| `agentry_extraction_pages_total` | counter | format | the worker that parsed the pages |
| `agentry_extraction_pages_per_second` | histogram | format | the same worker, per parse task |
| `agentry_extraction_job_seconds` | histogram | kind, outcome | the extraction coordinator, per job |

`outcome` is `ok`, or the name of the exception that ended the call (`ModelError`, `ToolError`,
`PauseForInput`, ...); for jobs it is `completed` or `failed`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

MetricKind = Literal["counter", "gauge", "histogram"]

#: Upper bounds (seconds) of the latency buckets: a fast tool call to a slow model or a large document.
LATENCY_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
#: Upper bounds of the pages-per-second buckets of one parse task (OCR is slow, text layers fast).
PAGES_PER_SECOND_BUCKETS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0)


@dataclass(frozen=True)
class MetricSpec:
    name: str
    kind: MetricKind
    description: str
    tag_keys: tuple[str, ...] = ()
    boundaries: tuple[float, ...] = ()


TASK_TRANSITIONS = MetricSpec(
    "agentry_task_transitions_total", "counter", "Tasks entering each status.", ("status",)
)
TASKS_LIVE = MetricSpec(
    "agentry_tasks_live", "gauge", "Tasks not yet paused or ended, by status.", ("status",)
)
QUEUE_DEPTH = MetricSpec(
    "agentry_agent_queue_depth", "gauge", "Tasks queued behind an agent's concurrency limit.", ("agent_id",)
)
TASK_ACTORS = MetricSpec(
    "agentry_task_actors",
    "gauge",
    "Task actors in the cluster (each task's own and the warm spares), alive or waiting for a task slot.",
)
MODEL_CALL_SECONDS = MetricSpec(
    "agentry_model_call_seconds",
    "histogram",
    "Latency of one model call of a task.",
    ("model", "outcome"),
    LATENCY_BUCKETS,
)
TOOL_CALL_SECONDS = MetricSpec(
    "agentry_tool_call_seconds",
    "histogram",
    "Latency of one tool call of a task.",
    ("tool", "outcome"),
    LATENCY_BUCKETS,
)
EXTRACTION_PAGES = MetricSpec(
    "agentry_extraction_pages_total", "counter", "Document pages parsed by the worker pool.", ("format",)
)
EXTRACTION_PAGES_PER_SECOND = MetricSpec(
    "agentry_extraction_pages_per_second",
    "histogram",
    "Pages per second of one parse task on one worker.",
    ("format",),
    PAGES_PER_SECOND_BUCKETS,
)
EXTRACTION_JOB_SECONDS = MetricSpec(
    "agentry_extraction_job_seconds",
    "histogram",
    "Latency of one extraction job, from its start to its result.",
    ("kind", "outcome"),
    LATENCY_BUCKETS,
)

ALL_METRICS = (
    TASK_TRANSITIONS,
    TASKS_LIVE,
    QUEUE_DEPTH,
    TASK_ACTORS,
    MODEL_CALL_SECONDS,
    TOOL_CALL_SECONDS,
    EXTRACTION_PAGES,
    EXTRACTION_PAGES_PER_SECOND,
    EXTRACTION_JOB_SECONDS,
)

_lock = threading.Lock()
_instances: dict[str, Any] = {}
#: Tag values each gauge family last reported, so a value that disappears is reported as 0.
_reported: dict[str, set[str]] = {}


def _metric(spec: MetricSpec) -> Any:
    with _lock:
        metric = _instances.get(spec.name)
        if metric is None:
            from ray.util import metrics

            if spec.kind == "counter":
                metric = metrics.Counter(spec.name, spec.description, tag_keys=spec.tag_keys)
            elif spec.kind == "gauge":
                metric = metrics.Gauge(spec.name, spec.description, tag_keys=spec.tag_keys)
            else:
                metric = metrics.Histogram(
                    spec.name, spec.description, boundaries=list(spec.boundaries), tag_keys=spec.tag_keys
                )
            _instances[spec.name] = metric
        return metric


def _check(spec: MetricSpec, kind: MetricKind, tags: Mapping[str, str]) -> None:
    if spec.kind != kind:
        raise TypeError(f"{spec.name} is a {spec.kind}, not a {kind}")
    if set(tags) != set(spec.tag_keys):
        raise ValueError(f"{spec.name} takes the tags {spec.tag_keys}, got {tuple(tags)}")


def inc(spec: MetricSpec, value: float = 1.0, **tags: str) -> None:
    _check(spec, "counter", tags)
    if value > 0:
        _metric(spec).inc(value, tags=tags)


def set_gauge(spec: MetricSpec, value: float, **tags: str) -> None:
    _check(spec, "gauge", tags)
    _metric(spec).set(value, tags=tags)


def set_gauges(spec: MetricSpec, values: Mapping[str, float]) -> None:
    """Set a gauge with one tag for each of its tag values; values reported before and absent now get 0."""
    if len(spec.tag_keys) != 1:
        raise ValueError(f"{spec.name} does not have exactly one tag")
    (key,) = spec.tag_keys
    with _lock:
        gone = _reported.get(spec.name, set()) - set(values)
        _reported[spec.name] = set(values)
    for tag in gone:
        set_gauge(spec, 0, **{key: tag})
    for tag, value in values.items():
        set_gauge(spec, value, **{key: tag})


def observe(spec: MetricSpec, value: float, **tags: str) -> None:
    _check(spec, "histogram", tags)
    _metric(spec).observe(value, tags=tags)


@contextmanager
def timed(spec: MetricSpec, **tags: str) -> Iterator[None]:
    """Observe the block's duration; `outcome` is `ok`, or the name of the exception that left it."""
    started = time.perf_counter()
    outcome = "ok"
    try:
        yield
    except BaseException as exc:
        outcome = type(exc).__name__
        raise
    finally:
        observe(spec, time.perf_counter() - started, outcome=outcome, **tags)
