"""Batch extraction for notebooks and the command line: many local files, one Ray cluster.

`extract_many` runs the same Ray tasks as the API's jobs (`extraction.jobs.pool`), under the same time
limit and memory cap, so a file that hangs or crashes its worker fails alone. It joins the cluster
of `RAY_ADDRESS`, else the Ray of the `agentry up` running on this data dir, else starts a private
local Ray for the duration of the call (`extraction.jobs.ray_session`). It works from a plain script and
from a notebook cell, whose event loop is already running; `extract_many_async` is the same for
`await`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import glob
import json
import logging
import os
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from tqdm import tqdm

from core.settings import get_settings
from extraction.jobs.model import ModelCaller
from extraction.jobs.pool import JobFailure, WorkerPool, run_document
from extraction.jobs.ray_session import joined_ray
from extraction.jobs.saved_config import saved_extract_params
from extraction.jobs.stages import DocumentSpec

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Files read ahead of the pool, per worker: enough to keep every CPU busy, not all at once.
READ_AHEAD_PER_WORKER = 2


def expand_paths(paths: list[str] | str) -> list[str]:
    """Files named by paths and glob patterns (`**` recurses), in order, each once."""
    patterns = [paths] if isinstance(paths, str) else list(paths)
    found: list[str] = []
    seen: set[str] = set()
    for pattern in patterns:
        matches = sorted(glob.glob(pattern, recursive=True)) if glob.has_magic(pattern) else [pattern]
        for match in matches:
            if os.path.isdir(match) or match in seen:
                continue
            seen.add(match)
            found.append(match)
    return found


def field_names(fields: list[str]) -> list[str]:
    names = [name.strip() for name in fields if name.strip()]
    if not names:
        raise ValueError("name at least one field to extract")
    return names


def run_blocking(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to its end from synchronous code, even where an event loop already runs
    in this thread (a Jupyter or IPython cell), where `asyncio.run` would raise."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentry-batch") as runner:
        return runner.submit(asyncio.run, make()).result()


def extract_many(
    paths: list[str] | str,
    fields: list[str] | None = None,
    *,
    out: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    model: ModelCaller | None = None,
    timeout_seconds: float | None = None,
    config_id: str | None = None,
    api_key: str | None = None,
) -> list[dict[str, Any]]:
    """Extract `fields` from every file of `paths` (paths or globs) on the Ray cluster.

    Returns one record per file, in input order: `{path, data, fields, error}` (`data` and `fields`
    as in an extract job's result; `error` null, or why the file failed). With `out`, the records
    are also written to that JSON Lines file as they finish. `workers` bounds the files processed
    at once (default: the cluster's CPUs). `model` is asked for fields the rules leave empty.
    `timeout_seconds` bounds each document task (default: `AGENTRY_DOCUMENT_TIMEOUT_SECONDS`).
    `config_id` (with `api_key`, a key of the config's workspace) reads with a saved extract
    config instead of `fields`: its fields, its settings and the examples taught on it.
    Paths that match no file return `[]` at once, without starting Ray.
    """
    params = job_params(fields, config_id, api_key)
    # Ray is joined here, in the caller's thread: ray.init installs signal handlers, which only the
    # main thread may do; the tasks' futures then work from any thread's event loop.
    with _batch(paths, params, out, workers, progress, model, timeout_seconds) as run:
        return run_blocking(run) if run is not None else []


async def extract_many_async(
    paths: list[str] | str,
    fields: list[str] | None = None,
    *,
    out: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    model: ModelCaller | None = None,
    timeout_seconds: float | None = None,
    config_id: str | None = None,
    api_key: str | None = None,
) -> list[dict[str, Any]]:
    """`extract_many` for `await` (a notebook cell, an async application): the same records.

    Joining or starting Ray, when this process has not yet, blocks the loop for that moment."""
    if config_id is not None and not fields:
        params = await saved_extract_params(get_settings(), config_id, _key(api_key))
    else:
        params = job_params(fields, config_id, api_key)
    with _batch(paths, params, out, workers, progress, model, timeout_seconds) as run:
        return await run() if run is not None else []


def job_params(fields: list[str] | None, config_id: str | None, api_key: str | None) -> dict[str, Any]:
    """The extract params of a batch: the named fields, or a saved config's (with its examples)."""
    if config_id is None:
        return {"json_options": field_names(fields or []), "prompt_mode": "auto"}
    if fields:
        raise ValueError("give fields or config_id, not both")
    return run_blocking(lambda: saved_extract_params(get_settings(), config_id, _key(api_key)))


def _key(api_key: str | None) -> str:
    if not api_key:
        raise ValueError("config_id needs api_key: a key of the workspace the config belongs to")
    return api_key


@contextmanager
def _batch(
    paths: list[str] | str,
    params: dict[str, Any],
    out: str | None,
    workers: int | None,
    progress: bool,
    model: ModelCaller | None,
    timeout_seconds: float | None,
) -> Iterator[Callable[[], Coroutine[Any, Any, list[dict[str, Any]]]] | None]:
    """The batch's run, while Ray is joined; None when no file matches, and Ray is not started."""
    files = expand_paths(paths)
    if not files:
        yield None
        return
    with joined_ray(get_settings()):
        yield lambda: _extract_to(files, params, out, workers, progress, model, timeout_seconds)


async def _extract_to(
    files: list[str],
    params: dict[str, Any],
    out: str | None,
    workers: int | None,
    progress: bool,
    model: ModelCaller | None,
    timeout_seconds: float | None,
) -> list[dict[str, Any]]:
    sink = await asyncio.to_thread(open, out, "w", encoding="utf-8") if out else None
    try:
        pool = WorkerPool(workers, timeout_seconds=timeout_seconds)
        return await _extract_all(files, params, sink=sink, pool=pool, progress=progress, model=model)
    finally:
        if sink is not None:
            sink.close()


async def _extract_all(
    files: list[str],
    params: dict[str, Any],
    *,
    sink: IO[str] | None,
    pool: WorkerPool,
    progress: bool,
    model: ModelCaller | None,
) -> list[dict[str, Any]]:
    reading = asyncio.Semaphore(pool.size * READ_AHEAD_PER_WORKER)
    bar = tqdm(total=len(files), unit="file", disable=not progress)
    try:

        async def one(path: str) -> dict[str, Any]:
            async with reading:
                record = await _extract_one(path, params, pool, model)
            if sink is not None:
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                sink.flush()
            bar.update(1)
            return record

        return list(await asyncio.gather(*(one(path) for path in files)))
    finally:
        bar.close()


async def _extract_one(
    path: str, params: dict[str, Any], pool: WorkerPool, model: ModelCaller | None
) -> dict[str, Any]:
    from extraction.formats.errors import DocumentError
    from extraction.formats.sniff import sniff_format

    record: dict[str, Any] = {"path": path, "data": None, "fields": None, "error": None}
    try:
        data = await asyncio.to_thread(Path(path).read_bytes)
        fmt = sniff_format(data, os.path.basename(path))
        spec = DocumentSpec(
            kind="extract",
            params=params,
            filename=os.path.basename(path),
            format=fmt,
            file_size=len(data),
            model_available=model is not None,
        )
        result = await run_document(spec, data, pool=pool, model=model)
    except OSError as exc:
        record["error"] = f"the file could not be read ({exc.strerror or type(exc).__name__})"
    except DocumentError as exc:
        record["error"] = str(exc)
    except JobFailure as exc:
        record["error"] = exc.message
    else:
        record["data"] = result["data"]
        record["fields"] = result["fields"]
    return record
