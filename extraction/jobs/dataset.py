"""Batch parse, extract and classify on Ray Data: documents in, one row per document out.

    ds = read_documents("invoices/*.pdf")              # or "s3://bucket/scans/", a folder, a list
    table = extract_dataset(ds, ["invoice_number", "total"]).to_pandas()

Each document goes through the same Ray tasks as the API's jobs (`extraction.jobs.pool.run_document`):
the same engines, the per-task time limit (`AGENTRY_DOCUMENT_TIMEOUT_SECONDS`, or `timeout_seconds`)
and memory cap, and a document that fails, hangs or crashes its worker fails alone: its row carries
the `error` and the run goes on. Ray Data's operator only orchestrates: one actor holding no CPU
takes documents one block at a time, a few more than `workers` in hand, and runs them all on one
`WorkerPool` of `workers` one-CPU tasks. So the workers are never idle while documents wait, a long
scan's page ranges spread over every free worker, and the pool shares its workers fairly between
documents, so small ones do not wait behind a long one.

Rows come in the order documents finish, with a fixed Arrow schema (below), so results stream to
`write_parquet`, `write_json` or `to_pandas()` alike. An extract row has `path`, `error`,
`overall_confidence` and, per field `f`, `f` (the value as text), `f_confidence` and
`f_citations` (the field's citations as JSON text), and with a saved config's examples
`f_example_id` (the example the value was read by).
Ray Data's progress bars, and the dashboard's Data view, show the run.
"""

from __future__ import annotations

import asyncio
import fnmatch
import glob
import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from extraction.jobs.model import ModelFactory

if TYPE_CHECKING:
    import pyarrow as pa
    from ray.data import Dataset

#: Suffixes of the columns an extract row holds for each field, beside the value's own column.
CONFIDENCE_SUFFIX = "_confidence"
CITATIONS_SUFFIX = "_citations"
#: With a saved config's examples: the example each field was read by (null: the general rules).
EXAMPLE_SUFFIX = "_example_id"
#: Documents the operator holds per worker: the next one is read while the last one finishes.
DOCUMENTS_PER_WORKER = 2
#: Columns every row has.
PATH_COLUMN = "path"
ERROR_COLUMN = "error"


def read_documents(sources: str | Sequence[str]) -> Dataset:
    """A dataset of documents (`path`, `bytes`) from local paths, globs, folders or URLs.

    Local globs (`**` recurses) and folders are expanded here; URLs (`s3://bucket/prefix/`,
    `gs://...`, `file:///...`) are read by Ray Data through pyarrow's filesystems, a folder
    recursively and a glob in the URL's last part matched against its folder. Raises
    `FileNotFoundError` when nothing matches. Joins Ray as `extraction.jobs.ray_session` chooses. Ray
    Data may read on any node: on a cluster, give paths every node sees (a shared mount) or URLs
    (Ray deprecates `local://`, its way of pinning reads to the driver's node).
    """
    import ray.data

    from extraction.jobs.ray_session import ensure_ray

    paths = expand_sources([sources] if isinstance(sources, str) else list(sources))
    if not paths:
        raise FileNotFoundError(f"no document matches {sources!r}")
    ensure_ray()
    # One document per block: blocks are dealt to the operator one at a time, so several documents
    # bundled in one block would be processed one after the other.
    return ray.data.read_binary_files(paths, include_paths=True, override_num_blocks=len(paths))


def expand_sources(sources: list[str]) -> list[str]:
    """Files and URLs named by `sources`, in order, each once."""
    found: list[str] = []
    for source in sources:
        if "://" in source:
            found.extend(_expand_url(source))
        elif os.path.isdir(source):
            found.extend(
                sorted(p for p in glob.glob(os.path.join(source, "**"), recursive=True) if os.path.isfile(p))
            )
        elif glob.has_magic(source):
            found.extend(sorted(p for p in glob.glob(source, recursive=True) if os.path.isfile(p)))
        elif os.path.exists(source):
            found.append(os.path.abspath(source))
        else:
            raise FileNotFoundError(f"no such file: {source}")
    return list(dict.fromkeys(os.path.abspath(p) if "://" not in p else p for p in found))


def _expand_url(url: str) -> list[str]:
    """A URL's files: itself, a folder's files (recursively), or a glob's matches in its folder."""
    from pyarrow import fs

    scheme = url.split("://", 1)[0]
    folder, _, last = url.rstrip("/").rpartition("/")
    if glob.has_magic(last):
        filesystem, base = fs.FileSystem.from_uri(folder)
        selector = fs.FileSelector(base, recursive=False, allow_not_found=True)
        infos = [i for i in filesystem.get_file_info(selector) if fnmatch.fnmatch(i.base_name, last)]
    else:
        filesystem, base = fs.FileSystem.from_uri(url)
        info = filesystem.get_file_info(base)
        if info.type == fs.FileType.File:
            return [url]
        if info.type == fs.FileType.NotFound:
            raise FileNotFoundError(f"no such file: {url}")
        infos = filesystem.get_file_info(fs.FileSelector(base, recursive=True))
    files = sorted(i.path for i in infos if i.type == fs.FileType.File)
    # Local paths stay plain paths: Ray Data reads them on this node.
    return files if scheme == "file" else [f"{scheme}://{path}" for path in files]


def extract_dataset(
    ds: Dataset,
    fields: Sequence[str] | None = None,
    *,
    workers: int | None = None,
    timeout_seconds: float | None = None,
    prompt_mode: str = "auto",
    model_factory: ModelFactory | None = None,
    config_id: str | None = None,
    api_key: str | None = None,
) -> Dataset:
    """One row per document: `path`, `error`, `overall_confidence`, and per field its value (text),
    `_confidence` and `_citations`. `model_factory` (e.g.
    `actors.models.extraction.extraction_model`) builds, on the workers, the model asked for what
    the rules leave empty; without it the rules alone answer. `config_id` (with `api_key`, a key of
    the config's workspace) reads with a saved extract config instead of `fields` and
    `prompt_mode`: its fields, its settings and the examples taught on it."""
    from core.configs import ExtractParams

    params: dict[str, Any]
    if config_id is None:
        params = ExtractParams(json_options=list(fields or []), prompt_mode=prompt_mode).model_dump(
            mode="json"
        )  # type: ignore[arg-type]
    else:
        from extraction.jobs.batch import job_params

        params = job_params(list(fields or []), config_id, api_key)
    return _map(ds, "extract", params, workers, timeout_seconds, model_factory)


def parse_dataset(
    ds: Dataset,
    *,
    output_format: str = "markdown",
    workers: int | None = None,
    timeout_seconds: float | None = None,
) -> Dataset:
    """One row per document: `path`, `error`, `content` (markdown, text or the elements' JSON),
    `page_count` and `overall_confidence`."""
    from core.configs import ParseParams

    params = ParseParams(output_format=output_format).model_dump(mode="json")  # type: ignore[arg-type]
    return _map(ds, "parse", params, workers, timeout_seconds, None)


def classify_dataset(
    ds: Dataset,
    categories: Sequence[str | dict[str, str]],
    *,
    mode: str = "document",
    workers: int | None = None,
    timeout_seconds: float | None = None,
    prompt_mode: str = "auto",
    model_factory: ModelFactory | None = None,
) -> Dataset:
    """One row per document: `path`, `error`, `category` and `confidence` (`document` mode; null
    in `split` mode) and `classification` (the API's classification object as JSON text)."""
    from core.configs import ClassifyParams

    params = ClassifyParams.model_validate(
        {"categories": list(categories), "mode": mode, "prompt_mode": prompt_mode}
    ).model_dump(mode="json")
    return _map(ds, "classify", params, workers, timeout_seconds, model_factory)


def _map(
    ds: Dataset,
    kind: str,
    params: dict[str, Any],
    workers: int | None,
    timeout_seconds: float | None,
    model_factory: ModelFactory | None,
) -> Dataset:
    from ray.data import ActorPoolStrategy

    from core.settings import get_settings
    from extraction.jobs.pool import cluster_cpus
    from extraction.jobs.ray_session import ensure_ray

    ensure_ray()
    size = workers or cluster_cpus()
    in_hand = size * DOCUMENTS_PER_WORKER
    return ds.map_batches(
        DocumentBatch,
        fn_constructor_kwargs={
            "kind": kind,
            "params": params,
            "workers": size,
            "timeout_seconds": timeout_seconds or get_settings().document_timeout_seconds,
            "model_factory": model_factory,
        },
        batch_size=1,
        batch_format="pyarrow",
        # One actor, its calls concurrent on one event loop: the pool's tasks hold the CPUs.
        compute=ActorPoolStrategy(
            size=1, max_tasks_in_flight_per_actor=in_hand, max_concurrent_calls_per_actor=in_hand
        ),
        num_cpus=0,
    )


class DocumentBatch:
    """The Ray Data operator: runs each document of a batch as the API's jobs do, on one pool that
    every concurrent call of the actor shares (Ray Data runs an async `__call__` on one loop)."""

    def __init__(
        self,
        kind: str,
        params: dict[str, Any],
        workers: int,
        timeout_seconds: float,
        model_factory: ModelFactory | None,
    ) -> None:
        from core.settings import get_settings

        self.kind = kind
        self.params = params
        self.workers = workers
        self.timeout_seconds = timeout_seconds
        self.model_factory = model_factory
        self.model = (
            model_factory(get_settings()) if model_factory is not None and kind == "extract" else None
        )
        self._pool: Any = None

    async def __call__(self, batch: pa.Table) -> pa.Table:
        paths = batch.column("path").to_pylist()
        blobs = batch.column("bytes").to_pylist()
        pool = self._shared_pool()
        outcomes = list(
            await asyncio.gather(
                *(self._one(path, data, pool) for path, data in zip(paths, blobs, strict=True))
            )
        )
        return to_table(self.kind, self.params, paths, outcomes)

    def _shared_pool(self) -> Any:
        # Made on first use, inside the loop every call runs on: its slots belong to that loop.
        from extraction.jobs.pool import WorkerPool

        if self._pool is None:
            self._pool = WorkerPool(self.workers, timeout_seconds=self.timeout_seconds)
        return self._pool

    async def _one(self, path: str, data: bytes, pool: Any) -> dict[str, Any] | str:
        """The job's result, or the words of its failure."""
        from extraction.formats.errors import DocumentError
        from extraction.formats.sniff import sniff_format
        from extraction.jobs.pool import JobFailure, run_document
        from extraction.jobs.stages import DocumentSpec

        filename = os.path.basename(path)
        try:
            spec = DocumentSpec(
                kind=self.kind,
                params=self.params,
                filename=filename,
                format=sniff_format(data, filename),
                file_size=len(data),
                model_available=self.model is not None,
                model_factory=self.model_factory,
            )
            return await run_document(spec, data, pool=pool, model=self.model)
        except DocumentError as exc:
            return str(exc)
        except JobFailure as exc:
            return exc.message


def schema(kind: str, params: dict[str, Any]) -> pa.Schema:
    """The Arrow schema of a `kind` run's rows; fixed, so every block concatenates and writes."""
    import pyarrow as pa

    columns: list[tuple[str, pa.DataType]] = [(PATH_COLUMN, pa.string()), (ERROR_COLUMN, pa.string())]
    if kind == "extract":
        columns.append(("overall_confidence", pa.float64()))
        for name in params["json_options"]:
            columns += [
                (name, pa.string()),
                (name + CONFIDENCE_SUFFIX, pa.float64()),
                (name + CITATIONS_SUFFIX, pa.string()),
            ]
            if params.get("examples"):
                columns.append((name + EXAMPLE_SUFFIX, pa.string()))
    elif kind == "parse":
        columns += [
            ("content", pa.string()),
            ("page_count", pa.int64()),
            ("overall_confidence", pa.float64()),
        ]
    else:
        columns += [("category", pa.string()), ("confidence", pa.float64()), ("classification", pa.string())]
    return pa.schema(columns)


def to_table(
    kind: str, params: dict[str, Any], paths: list[str], outcomes: list[dict[str, Any] | str]
) -> pa.Table:
    """The rows of a batch: each outcome a job's result, or the words of the document's failure."""
    import pyarrow as pa

    rows = [row_of(kind, params, path, outcome) for path, outcome in zip(paths, outcomes, strict=True)]
    return pa.Table.from_pylist(rows, schema=schema(kind, params))


def row_of(kind: str, params: dict[str, Any], path: str, outcome: dict[str, Any] | str) -> dict[str, Any]:
    row: dict[str, Any] = {PATH_COLUMN: path, ERROR_COLUMN: outcome if isinstance(outcome, str) else None}
    result = outcome if isinstance(outcome, dict) else None
    if kind == "extract":
        fields = result["fields"] if result else {}
        row["overall_confidence"] = result["overall_confidence"] if result else None
        for name in params["json_options"]:
            found = fields.get(name) or {}
            row[name] = _text(found.get("value"))
            row[name + CONFIDENCE_SUFFIX] = found.get("confidence") if result else None
            citations = found.get("citations")
            row[name + CITATIONS_SUFFIX] = json.dumps(citations, ensure_ascii=False) if citations else None
            if params.get("examples"):
                row[name + EXAMPLE_SUFFIX] = found.get("example_id")
    elif kind == "parse":
        row["content"] = result["content"] if result else None
        row["page_count"] = len(result["pages"]) if result else None
        row["overall_confidence"] = result["overall_confidence"] if result else None
    else:
        classification = result["classification"] if result else None
        row["category"] = classification.get("category") if classification else None
        row["confidence"] = classification.get("confidence") if classification else None
        row["classification"] = json.dumps(classification, ensure_ascii=False) if classification else None
    return row


def _text(value: Any) -> str | None:
    """A field's value as one column type: text as it is, anything else as its JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
