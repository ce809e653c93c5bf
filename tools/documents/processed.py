"""The documents a task's tools processed, kept for its citations (docs/contract.md section 5).

Each successful document tool call records, in the task's `documents` hash, the file it read
(`doc:<uuid>` -> `{file_id, file, pages}`) and, for extractions, the values it found with their
citations (`values:<uuid>:<call id>` -> `[{value, citations}]`). Completion grounds the structured
output in exactly these documents. One field per call keeps parallel calls from overwriting each
other, and a call that runs again after a crash writes the same fields again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.infra import keys
from core.stores import files

_DOC = "doc:"
_VALUES = "values:"


@dataclass
class KnownValue:
    """A value an extraction found, with the citations it gave for it."""

    value: Any
    citations: list[dict[str, Any]]


@dataclass
class ProcessedDocument:
    file_id: str
    #: The file name, as citations record it.
    file: str
    #: `[{page, width?, height?}]` as the tool's result gave them; empty when it gave none (classify).
    pages: list[dict[str, Any]] = field(default_factory=list)
    values: list[KnownValue] = field(default_factory=list)


def known_values(result: dict[str, Any]) -> list[dict[str, Any]]:
    """`[{value, citations}]` of an extract result's fields that have a value and a citation."""
    fields = result.get("fields")
    if not isinstance(fields, dict):
        return []
    return [
        {"value": entry["value"], "citations": entry["citations"]}
        for entry in fields.values()
        if isinstance(entry, dict) and entry.get("value") is not None and entry.get("citations")
    ]


async def record_processed(
    redis: Any, workspace_id: str, task_id: str, call_id: str, file: files.FileRecord, result: dict[str, Any]
) -> None:
    """Remember that the task's call `call_id` processed `file` and what its `result` cited."""
    key = keys.task_documents(workspace_id, task_id)
    doc_field = f"{_DOC}{file.id}"
    pages = result.get("pages")
    entry = json.dumps({"file_id": file.file_id, "file": file.filename, "pages": pages or []})
    async with redis.pipeline(transaction=True) as pipe:
        if pages:
            pipe.hset(key, doc_field, entry)
        else:
            # A result without pages (classify) never hides pages another call recorded.
            pipe.hsetnx(key, doc_field, entry)
        values = known_values(result)
        if values:
            pipe.hset(key, f"{_VALUES}{file.id}:{call_id}", json.dumps(values))
        await pipe.execute()


async def processed_documents(redis: Any, workspace_id: str, task_id: str) -> list[ProcessedDocument]:
    """Every document the task's tools processed, with the values extractions cited in each."""
    raw: dict[str, str] = await redis.hgetall(keys.task_documents(workspace_id, task_id))
    documents: dict[str, ProcessedDocument] = {}
    for name, value in sorted(raw.items()):
        if name.startswith(_DOC):
            entry = json.loads(value)
            documents[name[len(_DOC) :]] = ProcessedDocument(
                file_id=entry["file_id"], file=entry["file"], pages=list(entry.get("pages") or [])
            )
    for name, value in sorted(raw.items()):
        if name.startswith(_VALUES):
            file_uuid = name[len(_VALUES) :].split(":", 1)[0]
            if file_uuid in documents:
                documents[file_uuid].values += [
                    KnownValue(v["value"], v["citations"]) for v in json.loads(value)
                ]
    return list(documents.values())
