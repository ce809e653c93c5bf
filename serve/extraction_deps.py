"""Dependencies of the extraction API (`/api/v2`): the job context and the blob store."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from actors.models.extraction import extraction_model
from core.blobs import BlobStore
from extraction.jobs import ExtractionContext
from serve.deps import EdgeDep, RedisDep, SettingsDep


async def get_blobs(edge: EdgeDep) -> BlobStore:
    return edge.blobs


BlobsDep = Annotated[BlobStore, Depends(get_blobs)]


async def get_extraction(redis: RedisDep, settings: SettingsDep, blobs: BlobsDep) -> ExtractionContext:
    return ExtractionContext(redis=redis, settings=settings, blobs=blobs, model_factory=extraction_model)


ExtractionDep = Annotated[ExtractionContext, Depends(get_extraction)]
