"""Request bodies, stored records and replies of extraction jobs (pydantic at the boundaries).

They live here rather than in the HTTP layer because the agent tools submit the same bodies
(`parse_document`, `extract_document` and `classify_document` take the body of `/parse/sync`,
`/extract/sync` and `/classify/sync`) and read the same results.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from core.infra.models import Record
from core.stores.configs import ClassifyParams, ExtractParams, ParseParams
from extraction.jobs.model import TaskModel

JobKind = Literal["parse", "extract", "classify"]
JobStatus = Literal["processing", "completed", "failed"]

#: docs/spec.md, Limits: batch input, at most 50 inputs (parse/async and extract/async).
MAX_BATCH_INPUTS = 50
#: Longest single `input` accepted (a URL or a file id).
MAX_INPUT_CHARS = 4096

Input = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_INPUT_CHARS)]
BatchInput = Annotated[list[Input], Field(min_length=1, max_length=MAX_BATCH_INPUTS)]


class _JobRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    #: The body field that holds an inline config for this kind of job.
    params_field: ClassVar[str]

    input: str | list[str]
    config_id: str | None = Field(
        None,
        description="`config://<uuid>` of a saved config of this kind.",
        json_schema_extra={"pattern": r"^(config://)?[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$"},
    )

    def inline_params(self) -> ParseParams | ExtractParams | ClassifyParams | None:
        params: ParseParams | ExtractParams | ClassifyParams | None = getattr(self, self.params_field)
        return params

    def inputs(self) -> list[str]:
        return [self.input] if isinstance(self.input, str) else list(self.input)

    def is_batch(self) -> bool:
        return isinstance(self.input, list)

    def _one_config(self, inline: object, name: str) -> None:
        if self.config_id is not None and inline is not None:
            raise ValueError(f"give either config_id or {name}, not both")


class ParseRequest(_JobRequest):
    params_field = "parse_config"
    input: Input | BatchInput = Field(description="`file://<uuid>`, a public URL, or a list of at most 50.")
    parse_config: ParseParams | None = None

    @model_validator(mode="after")
    def _config(self) -> ParseRequest:
        self._one_config(self.parse_config, "parse_config")
        return self


class ExtractRequest(_JobRequest):
    params_field = "extraction_config"
    input: Input | BatchInput = Field(description="`file://<uuid>`, a public URL, or a list of at most 50.")
    extraction_config: ExtractParams | None = None

    @model_validator(mode="after")
    def _config(self) -> ExtractRequest:
        self._one_config(self.extraction_config, "extraction_config")
        if self.config_id is None and self.extraction_config is None:
            raise ValueError("give extraction_config (with json_options, the field names) or config_id")
        return self


class ClassifyRequest(_JobRequest):
    params_field = "classify_config"
    input: Input | BatchInput = Field(description="`file://<uuid>`, a public URL, or a list of at most 50.")
    classify_config: ClassifyParams | None = None

    @model_validator(mode="after")
    def _config(self) -> ClassifyRequest:
        self._one_config(self.classify_config, "classify_config")
        if self.config_id is None and self.classify_config is None:
            raise ValueError("give classify_config (with categories) or config_id")
        return self


class ParseSyncRequest(ParseRequest):
    input: Input = Field(description="`file://<uuid>` or a public URL.")


class ExtractSyncRequest(ExtractRequest):
    input: Input = Field(description="`file://<uuid>` or a public URL.")


class ClassifySyncRequest(ClassifyRequest):
    input: Input = Field(description="`file://<uuid>` or a public URL.")


JobRequest = ParseRequest | ExtractRequest | ClassifyRequest

SYNC_REQUESTS: dict[str, type[_JobRequest]] = {
    "parse": ParseSyncRequest,
    "extract": ExtractSyncRequest,
    "classify": ClassifySyncRequest,
}


class JobRecord(Record):
    """A job as stored at `ag:{ws}:job:<uuid>`; its result is kept apart (it can be large)."""

    id: str
    workspace_id: str
    kind: JobKind
    status: JobStatus
    input: str
    file_id: str
    config_id: str | None = None
    params: dict[str, Any]
    output_format: str
    filename: str
    file_size: int
    format: str
    batch_id: str | None = None
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    #: Seconds from the start of the work to its end.
    processing_time: float | None = None
    error: str | None = None
    #: The model of the task whose tool asked for the job; None for the operator's (/api/v2 routes).
    task_model: TaskModel | None = None


class V2Response(BaseModel):
    """docs/spec.md, Extraction/parse response."""

    success: bool
    message: str
    record_id: str | None = None
    file_id: str | None = None
    config_id: str | None = None
    status: JobStatus | None = None
    result: dict[str, Any] | None = None
    processing_time: float | None = None
    filename: str | None = None
    output_format: str | None = None
    file_size: int | None = None
    #: A reviewer's corrections of an extraction's fields (core.stores.corrections); absent for none.
    corrections: dict[str, Any] | None = None


class BatchItem(BaseModel):
    input: str
    record_id: str | None = None
    status: JobStatus
    error: str | None = None


class BatchRecord(Record):
    id: str
    workspace_id: str
    kind: JobKind
    created_at: str
    items: list[BatchItem]


class BatchResponse(BaseModel):
    """docs/contract.md section 7: the reply to a list `input`, and `GET /api/v2/batches/{batch_id}`."""

    success: bool
    message: str
    batch_id: str
    items: list[BatchItem]
