"""Typed views of what the service answers (docs/contract.md sections 1, 3, 4 and 7).

Every model accepts fields it does not know (`extra="allow"`), so a service that gains a field
never breaks an older client; a new member of an enum stays a plain string for the same reason,
and the helpers below say how an unknown value is treated (docs/spec.md, Versioning, rule 4).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

#: docs/spec.md, Task status values: the three terminal ones, and the two that wait on a person.
TERMINAL_STATUSES = frozenset({"completed", "failed", "stopped"})
PAUSED_STATUSES = frozenset({"waiting_for_input", "awaiting_review"})
#: docs/spec.md, run endpoint: the known `outcome` and `result_status` values.
OUTCOMES = frozenset({"terminal", "budget_expired", "draining", "result_unavailable"})
RESULT_STATUSES = frozenset(
    {"completed", "not_found", "processing", "failed", "cancelled", "unreadable", "unavailable", "too_large"}
)
#: docs/contract.md section 7: extraction job statuses that end a job.
JOB_END_STATUSES = frozenset({"completed", "failed"})


class Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class Agent(Model):
    id: str
    agent_group_id: str
    version_number: int
    status: str
    name: str
    config: dict[str, Any] = Field(default_factory=dict)
    is_active: bool = True
    is_public: bool = False
    created_at: str
    updated_at: str


class DataField(Model):
    id: str | None = None
    logical_field_id: str | None = None
    key: str
    value: Any = None
    key_type: str = "string"
    description: str = ""


class TaskSummary(Model):
    """A task as the list endpoints give it."""

    task_id: str
    agent_id: str
    status: str
    title: str | None = None
    agent_name: str | None = None
    created_at: str
    updated_at: str | None = None
    source: str | None = None
    parent_task_id: str | None = None
    parent_step_id: str | None = None
    spawn_depth: int = 0
    #: Only with `include_data_fields=true`.
    data_fields: list[DataField] | None = None
    #: Only on the children list.
    item_key: str | None = None

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def is_paused(self) -> bool:
        return self.status in PAUSED_STATUSES


class Pause(Model):
    kind: str
    question: str | None = None
    reason: str | None = None
    tool_name: str | None = None
    tool_names: list[str] | None = None
    pending_tool_call: dict[str, Any] | None = None


class Usage(Model):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    steps: int = 0


class TaskFile(Model):
    file: str
    file_id: str | None = None
    content_type: str | None = None
    file_size: int | None = None


class Task(TaskSummary):
    """The full record of `GET /api/v1/tasks/{task_id}`."""

    agent_group_id: str | None = None
    version_number: int | None = None
    query: str | None = None
    files: list[TaskFile] = Field(default_factory=list)
    pause: Pause | None = None
    usage: Usage | None = None
    error: str | None = None


class TaskCreated(Model):
    """The 201 answer of a run: the task as it was admitted (`running` or `queued`)."""

    task_id: str
    agent_id: str
    status: str
    created_at: str


class SyncReply(Model):
    """The 200 or 202 answer of a run with `async=false`."""

    task_id: str
    agent_id: str
    status: str
    outcome: str
    message: str = ""
    created_at: str
    wait_budget_seconds: int = 0
    result_selector: str | None = None
    result_status: str | None = None
    result: Any = None
    result_bytes: int | None = None
    result_metadata: Any = None
    result_documents: list[dict[str, Any]] | None = None
    output_files: list[Any] | None = None

    @property
    def known_outcome(self) -> str:
        """docs/spec.md: an unrecognised outcome is treated as `budget_expired` (collect by task id)."""
        return self.outcome if self.outcome in OUTCOMES else "budget_expired"

    @property
    def known_result_status(self) -> str | None:
        """docs/spec.md: an unrecognised result status is treated as `unavailable`."""
        if self.result_status is None:
            return None
        return self.result_status if self.result_status in RESULT_STATUSES else "unavailable"


class RunResult(Model):
    """What `run_and_wait` ends with, whichever path (held request or polling) got there."""

    task: Task
    #: `terminal`, or `result_unavailable` when the wait stopped at a pause (a question, a review).
    outcome: str
    #: The payload that was selected (`structured`, `summary`, `feed`, `tool:<name>`).
    result_selector: str | None = None
    result_status: str | None = None
    #: The selected payload in its own shape; None when `result_status` is not `completed`.
    result: Any = None
    result_documents: list[dict[str, Any]] | None = None
    #: True when the run was finished by polling (the service answered 201 or 202).
    polled: bool = False

    @property
    def status(self) -> str:
        return self.task.status

    @property
    def task_id(self) -> str:
        return self.task.task_id


class Summary(Model):
    task_id: str
    status: str
    summary: str | None = None
    message: str | None = None
    error: str | None = None


class StructuredResponse(Model):
    task_id: str
    agent_id: str
    status: str
    created_at: str
    updated_at: str | None = None
    title: str | None = None
    structured_response: Any = None
    documents: list[dict[str, Any]] | None = None
    message: str | None = None
    error: str | None = None

    @property
    def has_output(self) -> bool:
        """True when the service set `structured_response` (which may itself be null)."""
        return "structured_response" in self.model_fields_set


class FeedItem(Model):
    seq: int
    type: str
    created_at: str | None = None


class Feed(Model):
    task_id: str
    status: str
    feed: list[FeedItem]


ItemT = TypeVar("ItemT")


class Page(Model, Generic[ItemT]):
    """One page of a list endpoint; `next_cursor` is empty at the end."""

    data: list[ItemT]
    has_more: bool = False
    next_cursor: str | None = None

    @property
    def cursor_for_next(self) -> str | None:
        return self.next_cursor if self.has_more and self.next_cursor else None


class DeletedAgent(Model):
    id: str
    deleted: bool


class FileInfo(Model):
    """An uploaded file (docs/spec.md, Uploaded file); `url` is a signed link, set on `get_file`."""

    success: bool = True
    file_id: str
    filename: str
    content_type: str
    file_size: int
    message: str = ""
    format: str | None = None
    sha256: str | None = None
    created_at: str | None = None
    url: str | None = None


class Job(Model):
    """A parse, extract or classify job (docs/spec.md, V2Response)."""

    success: bool
    message: str = ""
    record_id: str | None = None
    file_id: str | None = None
    config_id: str | None = None
    status: str | None = None
    result: dict[str, Any] | None = None
    processing_time: float | None = None
    filename: str | None = None
    output_format: str | None = None
    file_size: int | None = None

    @property
    def is_done(self) -> bool:
        return self.status in JOB_END_STATUSES

    @property
    def data(self) -> dict[str, Any] | None:
        """An extraction's `{field: value}`, when this is a completed extract job."""
        value = (self.result or {}).get("data")
        return value if isinstance(value, dict) else None


class BatchItem(Model):
    input: str
    record_id: str | None = None
    status: str
    error: str | None = None


class Batch(Model):
    success: bool
    message: str = ""
    batch_id: str
    items: list[BatchItem]

    @property
    def is_done(self) -> bool:
        return all(item.status in JOB_END_STATUSES for item in self.items)


class SavedConfig(Model):
    success: bool = True
    config_id: str
    name: str
    type: str
    params: dict[str, Any] = Field(default_factory=dict)
    created_at: str | None = None
    updated_at: str | None = None


class Event(Model):
    """One live event of a task: `type` is `status`, `feed`, `child` or `end` (the last one)."""

    id: str | None = None
    type: str
    #: The event's JSON data, decoded (the raw text when it is not JSON).
    data: Any = None
