"""Dependencies of the extraction API (`/api/v2`): the caller, the job context and the blob store."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from actors.models.extraction import extraction_model
from core.infra.blobs import BlobStore
from core.stores.apikeys import Principal
from extraction.jobs.service import ExtractionContext
from serve.deps import EdgeDep, RedisDep, SettingsDep, agents_principal

#: docs/contract.md section 7: /api/v2 answers 429 under the same per-key limit as /api/v1. The one
#: dependency authenticates and charges the key, so both APIs draw on a single budget per key.
ExtractionPrincipalDep = Annotated[Principal, Depends(agents_principal)]


async def get_blobs(edge: EdgeDep) -> BlobStore:
    return edge.blobs


BlobsDep = Annotated[BlobStore, Depends(get_blobs)]


async def get_extraction(redis: RedisDep, settings: SettingsDep, blobs: BlobsDep) -> ExtractionContext:
    return ExtractionContext(redis=redis, settings=settings, blobs=blobs, model_factory=extraction_model)


ExtractionDep = Annotated[ExtractionContext, Depends(get_extraction)]
