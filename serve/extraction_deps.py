"""Dependencies of the extraction API (`/api/v2`): the job context and the blob store."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from fastapi import Depends

from actors.models.extraction import extraction_model
from core.blobs import BlobStore
from extraction.jobs import ExtractionContext
from serve.deps import RedisDep, SettingsDep


@lru_cache(maxsize=4)
def _blob_store(url: str) -> BlobStore:
    return BlobStore(url)


def get_blobs(settings: SettingsDep) -> BlobStore:
    return _blob_store(settings.resolved_blob_url)


BlobsDep = Annotated[BlobStore, Depends(get_blobs)]


def get_extraction(redis: RedisDep, settings: SettingsDep, blobs: BlobsDep) -> ExtractionContext:
    return ExtractionContext(redis=redis, settings=settings, blobs=blobs, model_factory=extraction_model)


ExtractionDep = Annotated[ExtractionContext, Depends(get_extraction)]
