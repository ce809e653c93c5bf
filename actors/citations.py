"""Citations of a structured output (docs/contract.md section 5; docs/spec.md, Citation leaf and Document).

When an agent keeps citations, every string or number leaf of its structured output is grounded
when the task completes, in the documents its tools processed: a value an extraction already cited
keeps the extraction's citations; any other value is looked for in each document on the extraction
worker pool (in the document's cached parse), and every place it occurs is recorded. Leaves found
nowhere stay plain.

The result is stored on the task as `citations`:
`{"leaves": {path: [citation item]}, "documents": [{file, file_id, pages}]}`, where a path is how
`core.tasks.results` walks the output (`name`, `a.b`, `items[0].x`) and each citation item is a citation
dict with a `citation_id` unique in the task. `file_id` is internal: the edge turns it into a fresh
signed `url` whenever the citations are read (`core.tasks.document_links`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tools.documents.processed import ProcessedDocument, processed_documents

if TYPE_CHECKING:
    from core.infra.settings import Settings
    from extraction.jobs.model import ModelFactory

log = logging.getLogger(__name__)

#: How long completion waits for the values to be looked for in one document; a document that
#: takes longer contributes no citations (the task completes regardless).
LOCATE_TIMEOUT_SECONDS = 120.0

Leaf = str | int | float
#: A value as matched against other values: numbers by magnitude, strings as written but trimmed.
ValueKey = tuple[str, str | float]


def value_key(value: Any) -> ValueKey | None:
    """What two equal leaves share; None for what is never grounded (booleans, null, blank text)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return ("number", float(value))
    if isinstance(value, str) and value.strip():
        return ("text", value.strip())
    return None


def structured_leaves(value: Any, path: str = "") -> Iterator[tuple[str, Leaf]]:
    """Every groundable leaf `(path, value)` in document order, paths as `core.tasks.results` names them.

    Internal keys (two leading underscores) are skipped: they are dropped whenever citations are read.
    """
    if isinstance(value, dict):
        for key, child in value.items():
            if str(key).startswith("__"):
                continue
            yield from structured_leaves(child, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from structured_leaves(child, f"{path}[{index}]")
    elif value_key(value) is not None:
        yield path, value


def known_citations(documents: list[ProcessedDocument]) -> dict[ValueKey, list[dict[str, Any]]]:
    """The citations extractions gave, by value; a value several extractions found gets them all."""
    # Field reading is loaded on first grounding, not with the task actor (issue 29: its start-up).
    from extraction.fields.documents.grounding import MAX_CITATIONS
    from extraction.fields.model.citations import dedupe

    known: dict[ValueKey, list[dict[str, Any]]] = {}
    for document in documents:
        for found in document.values:
            key = value_key(found.value)
            if key is not None:
                known[key] = dedupe([*known.get(key, []), *found.citations])[:MAX_CITATIONS]
    return known


@dataclass
class Located:
    """What the search of one document found: its pages, and the citations of each searched value."""

    document: ProcessedDocument
    pages: list[dict[str, Any]]
    citations: dict[ValueKey, list[dict[str, Any]]]


def assemble(
    leaves: Sequence[tuple[str, Leaf]],
    known: dict[ValueKey, list[dict[str, Any]]],
    located: list[Located],
    documents: list[ProcessedDocument],
) -> dict[str, Any] | None:
    """The task's `citations`, or None when no leaf has provenance.

    A leaf takes the extraction's citations of its value when there are any, else every place the
    search found it, document by document (at most `MAX_CITATIONS`). Citation ids count from 1 in
    leaf order. `documents` lists each cited file once, in the order it is first cited, with the
    pages of its parse (or of the tool result when it was not searched).
    """
    from extraction.fields.documents.grounding import MAX_CITATIONS
    from extraction.fields.model.citations import dedupe

    found: dict[ValueKey, list[dict[str, Any]]] = {}
    for search in located:
        for searched, citations in search.citations.items():
            found[searched] = [*found.get(searched, []), *citations]
    leaves_out: dict[str, list[dict[str, Any]]] = {}
    next_id = 1
    for path, value in leaves:
        key = value_key(value)
        if key is None:
            continue
        citations = known.get(key) or dedupe(found.get(key, []))[:MAX_CITATIONS]
        if not citations:
            continue
        leaves_out[path] = [{"citation_id": next_id + i, **c} for i, c in enumerate(citations)]
        next_id += len(citations)
    if not leaves_out:
        return None
    pages = {search.document.file: search.pages for search in located}
    by_name: dict[str, ProcessedDocument] = {}
    for document in documents:
        by_name.setdefault(document.file, document)
    cited: dict[str, dict[str, Any]] = {}
    for items in leaves_out.values():
        for item in items:
            name = str(item.get("file") or "")
            if name in cited:
                continue
            source = by_name.get(name)
            entry: dict[str, Any] = {
                "file": name,
                "pages": pages.get(name) or (source.pages if source else []),
            }
            if source is not None:
                entry["file_id"] = source.file_id
            cited[name] = entry
    return {"leaves": leaves_out, "documents": list(cited.values())}


async def _locate(
    settings: Settings,
    workspace_id: str,
    document: ProcessedDocument,
    values: dict[ValueKey, Leaf],
    model_factory: ModelFactory,
) -> Located | None:
    from extraction.jobs.service import locate_in_file

    keys = list(values)
    try:
        answer = await locate_in_file(
            settings,
            workspace_id,
            document.file_id,
            [values[key] for key in keys],
            model_factory=model_factory,
            timeout_seconds=LOCATE_TIMEOUT_SECONDS,
        )
    except Exception as exc:
        # Citations are best effort: a deleted file or a busy pool leaves these values plain.
        log.warning("values could not be looked for in a document: %s", type(exc).__name__)
        return None
    citations = answer.get("citations") or []
    return Located(
        document=document,
        pages=list(answer.get("pages") or []),
        citations={key: list(c) for key, c in zip(keys, citations, strict=False) if c},
    )


async def ground_structured(
    redis: Any,
    settings: Settings,
    workspace_id: str,
    task_id: str,
    structured: Any,
    *,
    model_factory: ModelFactory,
) -> dict[str, Any] | None:
    """The `citations` of the task's structured output, or None when nothing in it has provenance."""
    leaves = list(structured_leaves(structured))
    if not leaves:
        return None
    documents = await processed_documents(redis, workspace_id, task_id)
    if not documents:
        return None
    known = known_citations(documents)
    pending: dict[ValueKey, Leaf] = {}
    for _, value in leaves:
        key = value_key(value)
        if key is not None and key not in known:
            pending.setdefault(key, value)
    located: list[Located] = []
    if pending:
        searches = await asyncio.gather(
            *(_locate(settings, workspace_id, document, pending, model_factory) for document in documents)
        )
        located = [search for search in searches if search is not None]
    return assemble(leaves, known, located, documents)
