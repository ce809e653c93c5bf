"""/api/v2/files: upload, describe, download (with a key or a signed link), delete."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response, StreamingResponse

from core.infra.errors import NotFound, Unauthorized, UnsupportedMediaType
from core.stores import files
from core.stores.file_filter import check_tag
from extraction.formats.page_images import DEFAULT_WIDTH, MAX_WIDTH, MIN_WIDTH, RENDERABLE_FORMATS
from extraction.jobs.edge import page_image, sniff_upload
from serve.deps import AuthorizationDep, EdgeDep, RedisDep, SettingsDep, agents_principal
from serve.extraction_deps import BlobsDep, ExtractionPrincipalDep
from serve.extraction_schemas import DeletedFile, UploadedFile
from serve.openapi_params import FileIdPath, PagePath
from serve.openapi_responses import v2_errors
from serve.uploads import file_field

router = APIRouter(prefix="/api/v2/files", tags=["files"])

#: A rendered page only changes with the file's bytes, which never change under one id; it is still
#: kept out of shared caches (it shows a patient's document).
PAGE_CACHE_CONTROL = "private, max-age=3600"

#: A malformed file id in the path is a 400 (403 and 404 come with every path that names a resource).
_ONE_FILE = v2_errors(400)
#: Read by hand in `serve.uploads` (streamed, so the size cap holds before the body is spooled).
_UPLOAD_BODY = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {"file": {"type": "string", "format": "binary"}},
            }
        }
    },
}


def _uploaded(record: files.FileRecord, message: str) -> UploadedFile:
    return UploadedFile(success=True, message=message, **record.resource())  # type: ignore[arg-type]


@router.post(
    "",
    response_model=UploadedFile,
    response_model_exclude_none=True,
    responses=v2_errors(400, 413, 415),
    openapi_extra={"requestBody": _UPLOAD_BODY},
)
async def upload_file(
    request: Request,
    principal: ExtractionPrincipalDep,
    redis: RedisDep,
    settings: SettingsDep,
    blobs: BlobsDep,
    tag: Annotated[
        str | None, Query(description="A tag to select this file by later, e.g. in a source batch.")
    ] = None,
) -> UploadedFile:
    """Upload a document (multipart field `file`); its format is judged from its bytes."""
    if tag is not None:
        check_tag(tag)
    part = await file_field(request, max_bytes=settings.max_upload_bytes)
    record = await files.save_upload(
        redis,
        blobs,
        principal.workspace_id,
        part.chunks,
        filename=part.filename,
        max_bytes=settings.max_upload_bytes,
        sniff=sniff_upload,
        spool_dir=settings.data_dir / "spool",
        tag=tag,
    )
    return _uploaded(record, "file uploaded")


@router.get(
    "/{file_id:path}/content",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "The file's bytes, with the content type judged at upload",
            "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
        },
        **_ONE_FILE,
    },
    # An API key, or none at all with a signed link (`expires` and `signature`): an empty requirement.
    openapi_extra={"security": [{}]},
)
async def file_content(
    file_id: FileIdPath,
    redis: RedisDep,
    settings: SettingsDep,
    blobs: BlobsDep,
    authorization: AuthorizationDep,
    edge: EdgeDep,
    expires: str | None = None,
    signature: str | None = None,
) -> StreamingResponse:
    """The file's bytes, with an API key or through a signed, time-limited link."""
    if authorization:
        # With a key, the read draws on the key's rate limit like every other /api/v2 call.
        principal = await agents_principal(edge, authorization)
        record = await files.get_file(redis, principal.workspace_id, file_id)
    elif expires is not None or signature is not None:
        files.verify_link(file_id, expires or "", signature or "", secret=settings.resolved_secret())
        record = await files.get_file_by_link(redis, file_id)
    else:
        raise Unauthorized("missing API key")
    if not await blobs.exists(record.blob_key):
        raise NotFound(f"the content of file {record.file_id} is no longer available")
    return StreamingResponse(
        blobs.chunks(record.blob_key),
        media_type=record.content_type,
        headers={
            "Content-Length": str(record.file_size),
            "Content-Disposition": _disposition(record.filename),
            # Only document and image formats are stored; nosniff keeps browsers to the stated type.
            "X-Content-Type-Options": "nosniff",
        },
    )


@router.get(
    "/{file_id:path}/pages/{page}",
    response_class=Response,
    responses={
        200: {"content": {"image/png": {}}, "description": "The page as a PNG image."},
        # A malformed id or a page out of range; a file with no pages (text, spreadsheet...).
        **v2_errors(400, 415),
    },
)
async def page_png(
    file_id: FileIdPath,
    page: PagePath,
    principal: ExtractionPrincipalDep,
    redis: RedisDep,
    blobs: BlobsDep,
    width: Annotated[int, Query(ge=MIN_WIDTH, le=MAX_WIDTH)] = DEFAULT_WIDTH,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """Page `page` (1-based, as in citations) of a PDF or image file as a PNG `width` pixels wide."""
    record = await files.get_file(redis, principal.workspace_id, file_id)
    if record.format not in RENDERABLE_FORMATS:
        raise UnsupportedMediaType(
            f"a {record.format} file has no pages to draw; only PDF and image pages are"
        )
    etag = f'"{record.sha256[:32]}-p{page}-w{width}"'
    headers = {"ETag": etag, "Cache-Control": PAGE_CACHE_CONTROL}
    if if_none_match is not None and etag in (tag.strip() for tag in if_none_match.split(",")):
        return Response(status_code=304, headers=headers)
    rendered = await page_image(await files.read_bytes(blobs, record), record.format, page, width)
    headers["X-Page-Count"] = str(rendered.page_count)
    return Response(rendered.png, media_type="image/png", headers=headers)


def _disposition(filename: str) -> str:
    fallback = filename.encode("ascii", "replace").decode().replace('"', "_").replace("?", "_")
    return f"inline; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


@router.get(
    "/{file_id:path}", response_model=UploadedFile, response_model_exclude_none=True, responses=_ONE_FILE
)
async def get_file(
    file_id: FileIdPath,
    request: Request,
    principal: ExtractionPrincipalDep,
    redis: RedisDep,
    settings: SettingsDep,
) -> UploadedFile:
    """An uploaded file's metadata, with `url`: a signed link to its bytes that needs no key."""
    record = await files.get_file(redis, principal.workspace_id, file_id)
    reply = _uploaded(record, "file found")
    reply.url = files.signed_url(str(request.base_url), record.id, secret=settings.resolved_secret())
    return reply


@router.delete("/{file_id:path}", response_model=DeletedFile, responses=_ONE_FILE)
async def delete_file(
    file_id: FileIdPath, principal: ExtractionPrincipalDep, redis: RedisDep, blobs: BlobsDep
) -> DeletedFile:
    """Delete an uploaded file and its bytes."""
    record = await files.delete_file(redis, blobs, principal.workspace_id, file_id)
    return DeletedFile(success=True, file_id=record.file_id, message="file deleted")
