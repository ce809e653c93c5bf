"""Reading a run's or a reply's body: JSON, or multipart with attachments (docs/spec.md, run endpoint)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from actors.submit import RunInput
from core.infra.errors import BadRequest
from core.infra.settings import Settings
from serve.body_guard import MULTIPART, media_type
from serve.input_checks import json_text_problem, text_problem
from serve.multipart_form import FormLimits, SpooledFile, read_form

#: docs/spec.md does not bound attachments per run; this keeps one request from fanning out without end.
MAX_ATTACHMENTS = 20


@dataclass
class RunBody:
    run: RunInput
    #: Files sent with the request, spooled until the `read_run_body` block ends.
    uploads: list[SpooledFile] = field(default_factory=list)
    file_ids: list[str] = field(default_factory=list)


def _object(raw: Any, name: str) -> dict[str, Any] | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        # A multipart field: not screened at the edge like a JSON body, so screened here.
        problem = json_text_problem(raw, what=name)
        if problem is not None:
            raise BadRequest(problem)
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            raise BadRequest(f"{name} must be a JSON-encoded object") from None
    if not isinstance(raw, dict):
        raise BadRequest(f"{name} must be a JSON object")
    return raw


def _version(raw: Any, *, form: bool) -> int | None:
    """A JSON body gives an integer; a multipart field, whose values are all text, its digits."""
    if raw is None or (form and raw == ""):
        return None
    if isinstance(raw, bool) or not (isinstance(raw, int) or (form and isinstance(raw, str))):
        raise BadRequest("version must be an integer")
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest("version must be an integer") from None
    if value < 1:
        raise BadRequest("version must be 1 or more")
    return value


def _text(raw: Any, name: str) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise BadRequest(f"{name} must be a string")
    problem = text_problem(raw, what=name)
    if problem is not None:
        raise BadRequest(problem)
    return raw


def _flag(raw: Any) -> bool:
    """`disable_delegation` only ever disables: true removes the tool, anything false-like leaves it."""
    if raw is None or raw is False or raw in ("", "false", "0"):
        return False
    if raw is True or raw in ("true", "1"):
        return True
    raise BadRequest("disable_delegation must be a boolean")


def _file_ids(raw: Any) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(i, str) for i in raw):
        raise BadRequest("file_ids must be a list of file ids (file://...)")
    return list(raw)


def _form_limits(settings: Settings) -> FormLimits:
    return FormLimits(
        file_fields=frozenset({"files", "file"}),
        max_file_bytes=settings.max_upload_bytes,
        max_files=MAX_ATTACHMENTS,
        max_field_bytes=settings.max_json_body_bytes,
        spool_dir=settings.data_dir / "spool",
    )


@asynccontextmanager
async def read_run_body(
    request: Request, settings: Settings, *, text_field: str = "query"
) -> AsyncIterator[RunBody]:
    """The run's (or reply's) body; files it carries stay spooled until the block ends."""
    if media_type(request.headers.get("content-type")) == MULTIPART:
        async with read_form(request, _form_limits(settings)) as form:
            run = RunInput(
                query=_text(form.get(text_field), text_field),
                output_config=_object(form.get("output_config"), "output_config"),
                version=_version(form.get("version"), form=True),
                source=_text(form.get("source"), "source") or "production",
                disable_delegation=_flag(form.get("disable_delegation")),
            )
            yield RunBody(run=run, uploads=form.files, file_ids=_file_ids(form.getlist("file_ids")))
        return
    yield _json_body(await request.body(), text_field)


def _json_body(raw: bytes, text_field: str) -> RunBody:
    if not raw.strip():
        return RunBody(run=RunInput())
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        # JSONDecodeError, UnicodeDecodeError for bytes that are not UTF-8 at all, and nesting deeper
        # than the parser's stack (`serve.body_guard` refuses both before a route reads the body).
        raise BadRequest("the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    run = RunInput(
        query=_text(body.get(text_field), text_field),
        output_config=_object(body.get("output_config"), "output_config"),
        version=_version(body.get("version"), form=False),
        source=_text(body.get("source"), "source") or "production",
        disable_delegation=_flag(body.get("disable_delegation")),
    )
    return RunBody(run=run, file_ids=_file_ids(body.get("file_ids")))
