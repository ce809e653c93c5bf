"""What the OpenAPI document says about errors, paging and hand-read bodies, shared by every router.

FastAPI documents only what it can see: the success model, and a 422 for every route with
parameters. Our edge answers more (401, 403, 404, 409, 429, 503 through `serve.errors`, a clean 500
through `serve.middleware`) and on /api/v1 a validation failure is a 400 `{error}`, not a 422.

`openapi_document` adds what every operation of an API can answer (`V1_ALWAYS`, `V2_ALWAYS`, and
403/404 wherever the path names a resource, since another workspace's id is a 403 and an unknown
one a 404) and drops the 422 FastAPI adds to /api/v1 operations, which never answer it. Routers
declare only what is theirs with `v1_errors(...)` / `v2_errors(...)` (a 409, a 413, a v2 400...).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field

from core.infra.pagination import MAX_PAGE_SIZE
from serve.edge_answers import MAX_HEADER_BYTES, MAX_HEADER_FIELDS, MAX_QUERY_PARAMS, MAX_URL_BYTES
from serve.errors import AGENTS_PREFIX
from serve.openapi_links import add_links

EXTRACTION_PREFIX = "/api/v2"


class ApiError(BaseModel):
    """The /api/v1 error envelope."""

    error: str = Field(description="What went wrong and, where it helps, what to do next.")


class ExtractionError(BaseModel):
    """The /api/v2 error envelope (FastAPI's `{detail}` with a string)."""

    detail: str


class ValidationIssue(BaseModel):
    loc: list[str]
    msg: str
    type: str


class ExtractionValidationError(BaseModel):
    """/api/v2 422: FastAPI's list of issues, or a string for a job body judged after parsing."""

    detail: list[ValidationIssue] | str


_WHY: dict[int, str] = {
    400: "Malformed request: a parameter or body field is missing or invalid",
    401: "Missing, malformed, unknown or revoked API key",
    403: "The resource belongs to another workspace, or is not usable (an inactive agent, a bad link)",
    404: "No such resource (or it was deleted)",
    409: "The resource's current state does not allow this action",
    413: "The body (a JSON body: `AGENTRY_MAX_JSON_BODY_BYTES`), the upload or the fetched document is larger than its cap",
    414: f"The URL is longer than {MAX_URL_BYTES} bytes, or its query has more than {MAX_QUERY_PARAMS} "
    "parameters (answered by the edge)",
    415: "The body's media type is not one the operation takes, or the document's format is not supported",
    422: "The body does not validate",
    431: f"More than {MAX_HEADER_FIELDS} header fields, or more than {MAX_HEADER_BYTES} bytes of them "
    "(answered by the edge)",
    429: "Rate limit of this API key exceeded; retry after `Retry-After` seconds",
    500: "Internal error; safe to retry with backoff",
    502: "A remote server the request reached answered more, or otherwise, than the service takes",
    503: "A dependency (the state store, the extraction pool) is unavailable right now; retry shortly",
}

_RETRY_AFTER = {"Retry-After": {"description": "Whole seconds to wait", "schema": {"type": "integer"}}}

#: Every /api/v1 operation: validation (400), authentication (401), the edge's limits of the URL
#: (414) and the header fields (431), the key's rate limit (429), a crash (500) and an unreachable
#: store (503).
V1_ALWAYS = (400, 401, 414, 429, 431, 500, 503)
#: Every /api/v2 operation (all authenticate; a NUL in the URL is a 400 anywhere); no rate limit there.
V2_ALWAYS = (400, 401, 414, 431, 500, 503)
#: Every operation that takes a body (`serve.body_guard`: too large, or of a media type it does not take).
WITH_BODY = (413, 415)
#: Every operation whose path names a resource (docs/spec.md: 403 for another workspace's id).
NAMED_RESOURCE = (403, 404)


def _response(status: int, model: type[BaseModel]) -> dict[str, Any]:
    response: dict[str, Any] = {"model": model, "description": _WHY[status]}
    if status in (429, 503):
        response["headers"] = _RETRY_AFTER
    return response


def v1_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for an /api/v1 route: its own error statuses, `{error}`."""
    return {status: _response(status, ApiError) for status in sorted(statuses)}


def v2_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for an /api/v2 route: its own error statuses, `{detail}` (the validation body for 422)."""
    return {
        status: _response(status, ExtractionValidationError if status == 422 else ExtractionError)
        for status in sorted(statuses)
    }


#: `limit` of every list endpoint; out of range is refused by `core.infra.pagination.check_limit`.
LimitQuery = Annotated[
    int | None,
    Query(
        description=f"Page size, 1 to {MAX_PAGE_SIZE}; default 20.",
        json_schema_extra={"minimum": 1, "maximum": MAX_PAGE_SIZE},
    ),
]
#: `position.tag` (`core.infra.cursors`); one the service did not issue for this list is refused all the same.
CursorQuery = Annotated[
    str | None,
    Query(
        description="`next_cursor` of the previous page; absent for the first page.",
        json_schema_extra={"pattern": r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$"},
    ),
]


def bool_query(name: str, description: str, *, default: bool) -> dict[str, Any]:
    """A boolean query parameter read by `serve.params.strict_bool` (so absent from the signature)."""
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description + " `true`/`false` (or 1/0); anything else is a 400.",
        "schema": {"type": "boolean", "default": default},
    }


def inline_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A flat model's JSON schema, for a request body declared through `openapi_extra`."""
    schema = model.model_json_schema()
    if "$defs" in schema:
        raise ValueError(f"{model.__name__} nests models; it cannot be inlined")
    return schema


def _error_object(status: int, model: type[BaseModel]) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": _WHY[status],
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
    }
    if status in (429, 503):
        response["headers"] = _RETRY_AFTER
    return response


def _add_common_errors(document: dict[str, Any]) -> None:
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for envelope in (ApiError, ExtractionError):
        schemas.setdefault(envelope.__name__, envelope.model_json_schema())
    for path, operations in document.get("paths", {}).items():
        model: type[BaseModel]
        statuses: tuple[int, ...]
        if path.startswith(AGENTS_PREFIX):
            model, statuses = ApiError, V1_ALWAYS
        elif path.startswith(EXTRACTION_PREFIX):
            model, statuses = ExtractionError, V2_ALWAYS
        else:
            continue
        if "{" in path:
            statuses = (*statuses, *NAMED_RESOURCE)
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            if model is ApiError:
                responses.pop("422", None)
            own = (*statuses, *WITH_BODY) if "requestBody" in operation else statuses
            for status in own:
                responses.setdefault(str(status), _error_object(status, model))


def _plain_parameters(document: dict[str, Any]) -> None:
    """`str | None` parameters as plain strings: a URL cannot carry a null, only leave it out."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", ()):
                schema = parameter.get("schema", {})
                options = schema.get("anyOf")
                if options and {"type": "null"} in options and len(options) == 2:
                    (kept,) = [o for o in options if o != {"type": "null"}]
                    del schema["anyOf"]
                    parameter["schema"] = kept | schema


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document with the errors every operation of each API can answer."""
    if app.openapi_schema is None:
        document = get_openapi(
            title=app.title,
            version=app.version,
            openapi_version=app.openapi_version,
            description=app.description,
            routes=app.routes,
        )
        _add_common_errors(document)
        _plain_parameters(document)
        add_links(document)
        app.openapi_schema = document
    return app.openapi_schema
