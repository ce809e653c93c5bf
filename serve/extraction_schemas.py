"""Bodies and replies of the extraction API that only the HTTP edge uses.

Job bodies and `V2Response` live in `extraction.jobs.schemas` (agent tools submit the same bodies);
config params in `core.configs`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from core.configs import MAX_CONFIG_NAME_CHARS, ClassifyParams, ExtractParams, ParseParams

ConfigName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CONFIG_NAME_CHARS)
]


class UploadedFile(BaseModel):
    """docs/spec.md, Uploaded file (plus `format`, `sha256` and `created_at`)."""

    success: bool
    file_id: str
    filename: str
    content_type: str
    file_size: int
    message: str
    format: str
    sha256: str
    created_at: str
    #: A signed link to the bytes, valid for `core.files.DEFAULT_LINK_TTL_SECONDS` (GET only).
    url: str | None = None
    #: The tag given at upload (`?tag=`), which a source batch can select files by.
    tag: str | None = None


class DeletedFile(BaseModel):
    success: bool
    file_id: str
    message: str


class _ConfigCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: ConfigName


class ParseConfigCreate(_ConfigCreate):
    type: Literal["parse"]
    params: ParseParams = Field(default_factory=ParseParams)


class ExtractConfigCreate(_ConfigCreate):
    type: Literal["extract"]
    params: ExtractParams


class ClassifyConfigCreate(_ConfigCreate):
    type: Literal["classify"]
    params: ClassifyParams


ConfigCreate = Annotated[
    ParseConfigCreate | ExtractConfigCreate | ClassifyConfigCreate, Field(discriminator="type")
]


class SavedConfig(BaseModel):
    """docs/spec.md, Saved config."""

    success: bool
    config_id: str
    name: str
    type: Literal["parse", "extract", "classify"]
    params: dict[str, Any]
    created_at: str
    updated_at: str


class DeletedConfig(BaseModel):
    success: bool
    config_id: str
    message: str


class ExampleCreate(BaseModel):
    """A corrected document to teach a saved extract config (docs/contract.md section 7, Examples)."""

    model_config = ConfigDict(extra="forbid")

    #: The document: `file://<uuid>` of this workspace.
    input: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    #: `{field: value | null}`: the document's right values, fields among the config's `json_options`;
    #: null says the document leaves the field empty.
    values: dict[str, str | int | float | bool | None]


class TaughtFieldView(BaseModel):
    """Where the example found a value: its page (1-based) and box `[x0, y0, x1, y1]`."""

    value: Any
    page: int
    bounding_box: list[float]


class SavedExample(BaseModel):
    success: bool
    example_id: str
    config_id: str
    file_id: str
    fields: dict[str, TaughtFieldView | None]
    created_at: str


class DeletedExample(BaseModel):
    success: bool
    example_id: str
    config_id: str
    message: str
