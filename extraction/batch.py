"""Batch extraction for notebooks and the command line: many local files, one Ray cluster.

`extract_many` runs the same Ray tasks as the API's jobs (`extraction.pool`), under the same time
limit and memory cap, so a file that hangs or crashes its worker fails alone. It joins the cluster
named by RAY_ADDRESS, or starts a local Ray for the duration of the call.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import json
import logging
import os
from pathlib import Path
from typing import IO, Any

import ray
from tqdm import tqdm

from core.settings import get_settings
from extraction.model import ModelCaller
from extraction.pool import DocumentSpec, JobFailure, WorkerPool, run_document

log = logging.getLogger(__name__)

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


def extract_many(
    paths: list[str] | str,
    fields: list[str],
    *,
    out: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    model: ModelCaller | None = None,
) -> list[dict[str, Any]]:
    """Extract `fields` from every file of `paths` (paths or globs) on the Ray cluster.

    Returns one record per file, in input order: `{path, data, fields, error}` (`data` and `fields`
    as in an extract job's result; `error` null, or why the file failed). With `out`, the records
    are also written to that JSON Lines file as they finish. `workers` bounds the files processed
    at once (default: the cluster's CPUs). `model` is asked for fields the rules leave empty.
    """
    names = [name.strip() for name in fields if name.strip()]
    if not names:
        raise ValueError("name at least one field to extract")
    files = expand_paths(paths)
    started_ray = not ray.is_initialized()
    if started_ray:
        settings = get_settings()
        # Without RAY_ADDRESS a private local Ray: a bare ray.init() would join any cluster on the machine.
        ray.init(
            address=settings.ray_address or "local", logging_level=logging.WARNING, include_dashboard=False
        )
    try:
        with open(out, "w", encoding="utf-8") if out else contextlib.nullcontext() as sink:
            return asyncio.run(
                _extract_all(files, names, sink=sink, workers=workers, progress=progress, model=model)
            )
    finally:
        if started_ray:
            ray.shutdown()


async def _extract_all(
    files: list[str],
    names: list[str],
    *,
    sink: IO[str] | None,
    workers: int | None,
    progress: bool,
    model: ModelCaller | None,
) -> list[dict[str, Any]]:
    pool = WorkerPool(workers)
    reading = asyncio.Semaphore(pool.size * READ_AHEAD_PER_WORKER)
    bar = tqdm(total=len(files), unit="file", disable=not progress)
    try:

        async def one(path: str) -> dict[str, Any]:
            async with reading:
                record = await _extract_one(path, names, pool, model)
            if sink is not None:
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                sink.flush()
            bar.update(1)
            return record

        return list(await asyncio.gather(*(one(path) for path in files)))
    finally:
        bar.close()


async def _extract_one(
    path: str, names: list[str], pool: WorkerPool, model: ModelCaller | None
) -> dict[str, Any]:
    from extraction.errors import DocumentError
    from extraction.sniff import sniff_format

    record: dict[str, Any] = {"path": path, "data": None, "fields": None, "error": None}
    try:
        data = await asyncio.to_thread(Path(path).read_bytes)
        fmt = sniff_format(data, os.path.basename(path))
        spec = DocumentSpec(
            kind="extract",
            params={"json_options": names, "prompt_mode": "auto"},
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
