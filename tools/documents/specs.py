"""`parse_document`, `extract_document` and `classify_document`: extraction jobs run for an agent.

Each tool takes the body of its extraction endpoint (`/api/v2/parse/sync`, `/extract/sync`,
`/classify/sync`), where `input` may also be the file name of one of the task's attachments, and
returns what that endpoint's `result` would be: extract's values come with their confidences and
citations. The work runs as an extraction job on the worker pool (`extraction.jobs.service.run_job`), never
in the task's own process, and asks the task's own model (`ToolContext.task_model`) where it asks
one: the document goes where the agent's steps go, never to the operator's extraction model.

Failures the model can act on (a bad body, an unknown or unsupported file, a document that cannot
be processed) are tool errors it sees; a pool that does not answer in time is a retryable failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from core.infra.errors import AgentryError
from core.stores import files
from core.stores.configs import MAX_CATEGORIES, MAX_FIELDS
from extraction.jobs.model import ModelFactory, TaskModel
from tools.context import ToolContext
from tools.documents.attachments import resolve_input, task_attachments
from tools.documents.processed import record_processed
from tools.errors import ToolError
from tools.registry import ToolSpec

if TYPE_CHECKING:
    from extraction.jobs.schemas import JobKind

#: How long a document tool waits for its job; past it the call fails as retryable (the job goes on).
#: Generous: a job is a chain of worker tasks, each bounded by the `AGENTRY_DOCUMENT_TIMEOUT_SECONDS` setting.
TOOL_JOB_TIMEOUT_SECONDS = 600.0

_INPUT = {
    "type": "string",
    "minLength": 1,
    "description": (
        "The document: the file name of one of the task's attachments (as listed with the user's "
        "message), or the file:// id of an uploaded file."
    ),
}
_CONFIG_ID = {
    "type": "string",
    "description": "config://<uuid> of a saved config of this kind, instead of an inline config.",
}
_PROMPT_MODE = {
    "type": "string",
    "enum": ["auto", "rules", "model"],
    "description": "auto (default): rules, then the model for what they leave empty; rules: no model; model: model only.",
}
_INSTRUCTIONS = {"type": "string", "description": "Extra guidance for the model."}


def _body(params_field: str, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"input": _INPUT, "config_id": _CONFIG_ID, params_field: params},
        "required": ["input"],
        "additionalProperties": False,
    }


PARSE_PARAMETERS = _body(
    "parse_config",
    {
        "type": "object",
        "description": "How to render the document.",
        "properties": {
            "output_format": {"type": "string", "enum": ["markdown", "text", "json"]},
            "custom_instructions": _INSTRUCTIONS,
            "prompt_mode": _PROMPT_MODE,
            "markdown_options": {"type": "object", "properties": {"page_markers": {"type": "boolean"}}},
            "include_metadata": {"type": "boolean"},
        },
    },
)

EXTRACT_PARAMETERS = _body(
    "extraction_config",
    {
        "type": "object",
        "description": "What to extract. json_options names the fields.",
        "properties": {
            "json_options": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
                "maxItems": MAX_FIELDS,
                "description": 'The names of the fields to extract, e.g. ["invoice_number", "total_amount"].',
            },
            "output_format": {"type": "string", "enum": ["json", "csv"]},
            "csv_options": {"type": "object", "properties": {"include_header": {"type": "boolean"}}},
            "custom_instructions": _INSTRUCTIONS,
            "prompt_mode": _PROMPT_MODE,
            "include_metadata": {"type": "boolean"},
        },
        "required": ["json_options"],
    },
)

CLASSIFY_PARAMETERS = _body(
    "classify_config",
    {
        "type": "object",
        "description": "The categories to choose from, and whether to classify the whole document or split it.",
        "properties": {
            "categories": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_CATEGORIES,
                "items": {
                    "anyOf": [
                        {"type": "string", "minLength": 1},
                        {
                            "type": "object",
                            "properties": {"name": {"type": "string"}, "description": {"type": "string"}},
                            "required": ["name"],
                        },
                    ]
                },
            },
            "mode": {
                "type": "string",
                "enum": ["document", "split"],
                "description": "document: one category for the whole file; split: page ranges by category.",
            },
            "prompt_mode": _PROMPT_MODE,
        },
        "required": ["categories"],
    },
)


def job_tool_error(exc: AgentryError) -> ToolError:
    """The tool error an extraction error means: the caller's or the document's problem is final,
    an unavailable service (5xx, 429) may succeed when the call is retried."""
    # The job service (and field reading under it) loads on a document tool's first call, not with
    # the registry every task actor builds (issue 29: a task actor starts like a bare one).
    from extraction.jobs.service import JobFailed

    if isinstance(exc, JobFailed):
        return ToolError(exc.message)
    return ToolError(exc.message, retryable=exc.status_code >= 500 or exc.status_code == 429)


async def run_document_tool(
    kind: JobKind, arguments: dict[str, Any], ctx: ToolContext, *, model_factory: ModelFactory
) -> dict[str, Any]:
    """Resolve the input, run the job on the pool, record the document for citations, return its
    `result`."""
    from extraction.jobs.service import run_job

    attachments = await task_attachments(ctx.redis, ctx.workspace_id, ctx.task_id)
    file_id = resolve_input(str(arguments["input"]), attachments)
    try:
        file = await files.get_file(ctx.redis, ctx.workspace_id, file_id)
        result = await run_job(
            ctx.redis,
            ctx.settings,
            ctx.workspace_id,
            kind,
            dict(arguments, input=file.file_id),
            model_factory=model_factory,
            task_model=_charged_as(kind, ctx.task_model),
            timeout_seconds=TOOL_JOB_TIMEOUT_SECONDS,
        )
    except AgentryError as exc:
        raise job_tool_error(exc) from None
    await record_processed(ctx.redis, ctx.workspace_id, ctx.task_id, ctx.call_id, file, result)
    return result


def _charged_as(kind: JobKind, task_model: TaskModel | None) -> TaskModel | None:
    """The task's model with the purpose its calls are charged under (`usage.by_purpose`)."""
    if task_model is None or kind != "classify":
        return task_model
    return task_model.model_copy(update={"purpose": "classification"})


def _handler(
    kind: JobKind, model_factory: ModelFactory
) -> Callable[[dict[str, Any], ToolContext], Awaitable[dict[str, Any]]]:
    async def handle(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return await run_document_tool(kind, arguments, ctx, model_factory=model_factory)

    return handle


def document_tools(model_factory: ModelFactory) -> list[ToolSpec]:
    """The three document tools; `model_factory` builds the extraction model on the worker pool
    (`actors.models.extraction.extraction_model`)."""
    return [
        ToolSpec(
            name="parse_document",
            description=(
                "Read a document (PDF, image, Word, Excel, PowerPoint, text) and return its content as "
                "markdown, text or JSON, with its elements, their positions on the page and the page sizes."
            ),
            parameters=PARSE_PARAMETERS,
            handler=_handler("parse", model_factory),
        ),
        ToolSpec(
            name="extract_document",
            description=(
                "Extract named fields from a document. Returns data {field: value} (null when the "
                "document does not state it), and per field its confidence and citations: where on "
                "which page the value was read."
            ),
            parameters=EXTRACT_PARAMETERS,
            handler=_handler("extract", model_factory),
        ),
        ToolSpec(
            name="classify_document",
            description=(
                "Classify a document into one of the given categories (mode document), or split it "
                "into page ranges by category (mode split)."
            ),
            parameters=CLASSIFY_PARAMETERS,
            handler=_handler("classify", model_factory),
        ),
    ]
