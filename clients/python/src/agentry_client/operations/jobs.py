"""Extraction (`/api/v2`): parse, extract and classify jobs, their batches, and saved configs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ..models import Batch, Job, SavedConfig
from ..protocol import Call, Context, Flow, exchange, fetch
from .common import V2, poll_sleep, segment

JobKind = Literal["parse", "extract", "classify"]


def job_body(
    kind: JobKind, inputs: str | Sequence[str], config: Mapping[str, Any] | None, config_id: str | None
) -> dict[str, Any]:
    """The body of `/api/v2/{kind}/...`: an inline config or a saved one (`config://...`)."""
    body: dict[str, Any] = {"input": inputs if isinstance(inputs, str) else list(inputs)}
    if config_id is not None:
        body["config_id"] = config_id
    if config is not None:
        body[
            {"parse": "parse_config", "extract": "extraction_config", "classify": "classify_config"}[kind]
        ] = dict(config)
    return body


def extract_config(fields: Sequence[str] | None, options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`extraction_config`: the field names to extract (`json_options`) and any other options."""
    if fields is None and options is None:
        return None
    config = dict(options or {})
    if fields is not None:
        config["json_options"] = list(fields)
    return config


def classify_config(
    categories: Sequence[str | Mapping[str, str]] | None, mode: str | None, options: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    if categories is None and mode is None and options is None:
        return None
    config = dict(options or {})
    if categories is not None:
        config["categories"] = [c if isinstance(c, str) else dict(c) for c in categories]
    if mode is not None:
        config["mode"] = mode
    return config


def run_job(
    ctx: Context, kind: JobKind, body: Mapping[str, Any], *, settle: bool, timeout: float | None
) -> Flow[Job]:
    """`/api/v2/{kind}/sync`. A job that outlives the service's wait answers `processing` with its
    `record_id`; with `settle` it is then polled to its end, as for an async job."""
    # Resending only repeats a read-only computation on the same document (a second job record).
    job = yield from fetch(ctx, Call("POST", f"{V2}/{kind}/sync", json=dict(body), idempotent=True), Job)
    if settle and not job.is_done and job.record_id:
        return (yield from wait_job(ctx, job.record_id, timeout=timeout))
    return job


def submit_job(ctx: Context, kind: JobKind, body: Mapping[str, Any]) -> Flow[Job]:
    return fetch(ctx, Call("POST", f"{V2}/{kind}/async", json=dict(body), idempotent=True), Job)


def submit_batch(ctx: Context, kind: JobKind, body: Mapping[str, Any]) -> Flow[Batch]:
    return fetch(ctx, Call("POST", f"{V2}/{kind}/async", json=dict(body), idempotent=True), Batch)


def get_job(ctx: Context, record_id: str) -> Flow[Job]:
    return fetch(ctx, Call("GET", f"{V2}/jobs/{segment(record_id)}", idempotent=True), Job)


def wait_job(ctx: Context, record_id: str, *, timeout: float | None) -> Flow[Job]:
    """Poll a job until it is `completed` or `failed`, with the task polling's backoff."""
    deadline = None if timeout is None else ctx.clock() + timeout
    delays = ctx.poll.delays()
    while True:
        job = yield from get_job(ctx, record_id)
        if job.is_done:
            return job
        yield poll_sleep(ctx, next(delays), deadline, job, f"job {record_id} is still {job.status}")


def get_batch(ctx: Context, batch_id: str) -> Flow[Batch]:
    return fetch(ctx, Call("GET", f"{V2}/batches/{segment(batch_id)}", idempotent=True), Batch)


def wait_batch(ctx: Context, batch_id: str, *, timeout: float | None) -> Flow[Batch]:
    deadline = None if timeout is None else ctx.clock() + timeout
    delays = ctx.poll.delays()
    while True:
        batch = yield from get_batch(ctx, batch_id)
        if batch.is_done:
            return batch
        yield poll_sleep(ctx, next(delays), deadline, batch, f"batch {batch_id} has items processing")


def create_config(ctx: Context, name: str, type: JobKind, params: Mapping[str, Any]) -> Flow[SavedConfig]:
    body = {"name": name, "type": type, "params": dict(params)}
    return fetch(ctx, Call("POST", f"{V2}/configs", json=body), SavedConfig)


def get_config(ctx: Context, config_id: str) -> Flow[SavedConfig]:
    return fetch(ctx, Call("GET", f"{V2}/configs/{segment(config_id)}", idempotent=True), SavedConfig)


def delete_config(ctx: Context, config_id: str) -> Flow[None]:
    yield from exchange(ctx, Call("DELETE", f"{V2}/configs/{segment(config_id)}", idempotent=True))
