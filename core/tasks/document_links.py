"""The `documents` block of cited output, with links to the files signed when it is read.

A task's stored citations name each cited file by its id (`actors.citations`); the link in the
block a caller reads is signed at that moment, so it is valid for its whole lifetime whenever the
task is read, and it is left out once the file is gone (docs/spec.md, Document: `url` is absent when the
file cannot be resolved; the citation stays valid).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import redis.asyncio as aioredis

from core.infra.errors import Forbidden, NotFound
from core.infra.settings import Settings
from core.stores import files
from core.tasks.records import Task

#: Lifetime of the file links in a `documents` block.
DOCUMENT_LINK_TTL_SECONDS = files.DEFAULT_LINK_TTL_SECONDS


async def linked_documents(
    redis: aioredis.Redis, settings: Settings, workspace_id: str, stored: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """docs/spec.md Document items `{file, url?, pages}` for the stored `[{file, file_id?, pages}]`.

    The link is relative (`/api/v2/files/<uuid>/content?expires=..&signature=..`): the service
    knows no public address of its own, and the caller reached it at one.
    """
    documents = []
    for entry in stored:
        item: dict[str, Any] = {"file": entry.get("file")}
        file_id = entry.get("file_id")
        if file_id:
            try:
                record = await files.get_file(redis, workspace_id, file_id)
            except (NotFound, Forbidden):
                record = None
            if record is not None:
                item["url"] = files.signed_url(
                    "", record.file_id, DOCUMENT_LINK_TTL_SECONDS, secret=settings.resolved_secret()
                )
        item["pages"] = list(entry.get("pages") or [])
        documents.append(item)
    return documents


async def with_document_links(redis: aioredis.Redis, settings: Settings, task: Task) -> Task:
    """The task with its citations' `documents` made readable: signed links, no internal ids."""
    if not task.citations:
        return task
    stored = task.citations.get("documents") or []
    documents = await linked_documents(redis, settings, task.workspace_id, stored)
    return dataclasses.replace(task, citations=task.citations | {"documents": documents})
