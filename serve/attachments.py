"""Files that come with a run or a reply: new uploads, or ids of files uploaded to /api/v2/files."""

from __future__ import annotations

from typing import Any

from core.infra.errors import BadRequest
from core.stores import files
from extraction.jobs.edge import sniff_upload
from serve.multipart_form import SpooledFile, file_chunks
from serve.run_body import MAX_ATTACHMENTS
from serve.state import EdgeState

#: Bytes read from a spooled upload per chunk while streaming it to the blob store.
CHUNK_BYTES = 256 * 1024


def task_file(record: files.FileRecord) -> dict[str, Any]:
    """How a task lists an attachment (docs/contract.md section 3, `files`)."""
    return {
        "file": record.filename,
        "file_id": record.file_id,
        "content_type": record.content_type,
        "file_size": record.file_size,
    }


async def attach_files(
    edge: EdgeState, workspace_id: str, uploads: list[SpooledFile], file_ids: list[str]
) -> list[dict[str, Any]]:
    if len(uploads) + len(file_ids) > MAX_ATTACHMENTS:
        raise BadRequest(f"at most {MAX_ATTACHMENTS} files per request")
    # Named files are checked first, so a bad id refuses the request before any upload is stored.
    named = [await files.get_file(edge.redis, workspace_id, file_id) for file_id in file_ids]
    stored = [
        await files.save_upload(
            edge.redis,
            edge.blobs,
            workspace_id,
            file_chunks(upload, CHUNK_BYTES),
            filename=upload.filename,
            max_bytes=edge.settings.max_upload_bytes,
            sniff=sniff_upload,
            spool_dir=edge.settings.data_dir / "spool",
        )
        for upload in uploads
    ]
    return [task_file(r) for r in named + stored]
