"""Bodies and replies of the agents API (pydantic at the edge)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict
from pydantic.json_schema import SkipJsonSchema

from core.stores.agents import MAX_NAME_LENGTH
from core.stores.corrections import KeptCorrection
from core.tasks.state_machine import TaskStatus
from serve.openapi_params import UUID_PATTERN

#: What `core.stores.agents` accepts as a name (checked there, after stripping): declared for the document.
_NAME_SCHEMA: JsonDict = {"minLength": 1, "maxLength": MAX_NAME_LENGTH, "pattern": r"\S"}
#: A file id as `core.stores.files.parse_file_id` reads it.
_FILE_IDS_SCHEMA: JsonDict = {
    "items": {"type": "string", "pattern": f"^(file://)?{UUID_PATTERN}$"},
    "maxItems": 20,
}


class AgentCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(
        None,
        description="Default: `Untitled Agent N`, counted per workspace.",
        json_schema_extra=_NAME_SCHEMA,
    )
    config: dict[str, Any] | None = Field(None, description="Default: the default tool set, empty prompt.")
    is_active: bool = True
    is_public: bool = False


class AgentPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, json_schema_extra=_NAME_SCHEMA)
    config: dict[str, Any] | None = Field(None, description="Publishes a new version when present.")
    is_active: bool | None = None
    is_public: bool | None = None


class DeletedAgent(BaseModel):
    id: str
    deleted: bool


# Replies of the task and run routes. The routes serve the dicts that `core` builds (the same shapes
# that synchronous runs and agent tools use); these models document them, and the API fuzz test
# (tests/integration/test_api_fuzz.py) checks every answer against them.


class RunRequest(BaseModel):
    """JSON body of a run (docs/contract.md section 4); read by hand in `serve.run_body`."""

    query: str = Field("", description="Prompt text; optional when files are attached.")
    file_ids: list[str] = Field(
        default_factory=list,
        description="`file://<uuid>` ids from /api/v2/files.",
        json_schema_extra=_FILE_IDS_SCHEMA,
    )
    output_config: dict[str, Any] | None = Field(
        None, description="`output_schema` (a JSON Schema object) and `instructions`."
    )
    version: int | None = Field(None, ge=1, description="A published version number of the agent.")
    source: Literal["production", "test"] = "production"
    disable_delegation: bool = Field(False, description="True removes the `delegate_tasks` tool.")


class RunForm(BaseModel):
    """Multipart body of a run (docs/spec.md, run endpoint); a form field cannot be null, so none is."""

    query: str = Field("", description="Prompt text; optional when files are attached.")
    files: list[bytes] = Field(
        default_factory=list, description="Attachments; repeat the field per file (at most 20)."
    )
    file: bytes | SkipJsonSchema[None] = Field(None, description="Legacy name for a single attachment.")
    file_ids: list[str] = Field(
        default_factory=list,
        description="`file://<uuid>` ids from /api/v2/files.",
        json_schema_extra=_FILE_IDS_SCHEMA,
    )
    output_config: str | SkipJsonSchema[None] = Field(None, description="A JSON-encoded object.")
    version: Annotated[int, Field(ge=1)] | SkipJsonSchema[None] = None
    source: Literal["production", "test"] = "production"
    disable_delegation: bool = False


class ReplyRequest(BaseModel):
    """JSON body of a reply; multipart takes the same `message` plus `files`."""

    message: str = ""
    file_ids: list[str] = Field(default_factory=list, json_schema_extra=_FILE_IDS_SCHEMA)


class ReplyForm(BaseModel):
    message: str = ""
    files: list[bytes] = Field(default_factory=list)
    file: bytes | SkipJsonSchema[None] = None
    file_ids: list[str] = Field(default_factory=list, json_schema_extra=_FILE_IDS_SCHEMA)


class TaskFile(BaseModel):
    file: str
    file_id: str
    content_type: str
    file_size: int


class TaskUsage(BaseModel):
    input_tokens: int
    output_tokens: int
    cost_usd: float = Field(description="The cost of the calls whose model has a known price.")
    cost_known: bool = Field(description="False when a model call had no known price: the cost is unknown.")
    steps: int


class TaskListItem(BaseModel):
    task_id: str
    agent_id: str
    status: TaskStatus
    title: str | None
    agent_name: str
    created_at: str
    updated_at: str
    source: str
    parent_task_id: str | None
    parent_step_id: str | None
    spawn_depth: int


class TaskRecord(TaskListItem):
    """`GET /api/v1/tasks/{task_id}` (docs/contract.md section 3)."""

    agent_group_id: str
    version_number: int
    query: str
    files: list[TaskFile]
    item_key: str | None
    pause: dict[str, Any] | None = Field(
        description="null, or `{kind, question?, reason?, tool_name?, tool_names?, pending_tool_call?}`."
    )
    usage: TaskUsage
    error: str | None


class TaskPage(BaseModel):
    data: list[TaskListItem]
    has_more: bool
    next_cursor: str


class SummaryReply(BaseModel):
    task_id: str
    status: TaskStatus
    summary: str | None
    message: str | None = Field(None, description="Set while the task is not terminal.")
    error: str | None = Field(None, description="Set when the task ended without a summary.")


class FeedReply(BaseModel):
    task_id: str
    status: TaskStatus
    feed: list[dict[str, Any]] = Field(
        description="Items with `seq`, `type`, `created_at` (docs/contract.md 3)."
    )


class StructuredReply(BaseModel):
    task_id: str
    agent_id: str
    status: TaskStatus
    created_at: str
    updated_at: str
    title: str | None
    structured_response: Any = Field(None, description="Present once the task wrote a structured output.")
    documents: list[dict[str, Any]] | None = Field(None, description="With `include_citations=true`.")
    message: str | None = Field(None, description="Set while the task is not terminal.")
    error: str | None = Field(None, description="Set when the task ended without a structured output.")
    corrections: dict[str, KeptCorrection] | None = Field(
        None,
        description="A reviewer's corrections of the output's leaves, by path; absent while there are none.",
    )


class DeletedTasks(BaseModel):
    deleted: list[str]


class BatchRun(BaseModel):
    """A source-mode batch of a delegating task (docs/spec.md source mode rule 5): its totals and page
    progress as recorded, and `children`, the count of its children per current status."""

    batch_id: str
    task_id: str
    status: Literal["running", "enqueued", "failed"]
    source_tool: str
    total_items: int
    created_children: int
    skipped_count: int
    attached_count: int
    pages_fetched: int
    created_at: str
    finished_at: str | None
    error: str | None
    group_id: str | None
    children: dict[str, int]


class BackfillReply(BaseModel):
    updated: list[str] = Field(description="Agent group ids that got a new profile version.")
    skipped: list[str] = Field(description="Agent group ids that already had a profile.")


class RunCreated(BaseModel):
    """201 of a run (docs/contract.md section 4)."""

    task_id: str
    agent_id: str
    status: TaskStatus = Field(description="`running`, or `queued` when admission control holds it.")
    created_at: str


class SyncReply(BaseModel):
    """200 or 202 of an `async=false` run (docs/spec.md, Synchronous reply fields)."""

    task_id: str
    agent_id: str
    status: TaskStatus
    outcome: Literal["terminal", "budget_expired", "draining", "result_unavailable"]
    message: str
    created_at: str
    wait_budget_seconds: int
    result_selector: str | None = None
    result_status: (
        Literal[
            "completed",
            "not_found",
            "processing",
            "failed",
            "cancelled",
            "unreadable",
            "unavailable",
            "too_large",
        ]
        | None
    ) = None
    result: Any = None
    result_bytes: int | None = None
    result_documents: list[dict[str, Any]] | None = None
