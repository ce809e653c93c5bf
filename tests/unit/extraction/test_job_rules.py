"""Rules of extraction jobs that need no Ray, Redis or network: requests, params, ranges, failures."""

from __future__ import annotations

import resource
import uuid

import pytest
from pydantic import ValidationError
from ray.exceptions import RayTaskError, WorkerCrashedError

from core.infra.errors import BadRequest
from core.stores.configs import ClassifyParams, ExtractParams, ParseParams, parse_config_id
from extraction.formats.errors import DocumentTooLarge
from extraction.jobs.memory import memory_cap
from extraction.jobs.model import ModelReplyError
from extraction.jobs.pool import (
    CRASHED_MESSAGE,
    INTERNAL_MESSAGE,
    OUT_OF_MEMORY_MESSAGE,
    failure_of,
    page_ranges,
    range_size,
    timeout_message,
)
from extraction.jobs.schemas import (
    MAX_BATCH_INPUTS,
    ClassifyRequest,
    ExtractRequest,
    ExtractSyncRequest,
    ParseRequest,
    ParseSyncRequest,
)

pytestmark = pytest.mark.unit

FILE = f"file://{uuid.uuid4()}"


@pytest.mark.parametrize(
    ("pages", "ranges"),
    [
        (1, [(1, None)]),
        (20, [(1, None)]),
        (21, [(1, 20), (21, 21)]),
        (47, [(1, 20), (21, 40), (41, 47)]),
        (60, [(1, 20), (21, 40), (41, 60)]),
    ],
)
def test_page_ranges_cover_the_document_in_order(pages: int, ranges: list) -> None:
    assert page_ranges(pages, 20) == ranges


@pytest.mark.parametrize(
    ("pages", "scanned", "workers", "size"),
    [
        (19, False, 2, 20),  # a text layer parses in milliseconds a page: one range
        (2, True, 2, 1),  # a two-page scan: one page on each worker
        (5, True, 2, 3),
        (100, True, 2, 4),  # a long scan in short ranges, which interleave with other documents
        (3, True, 8, 1),
        (1, True, 1, 1),
    ],
)
def test_a_scan_is_split_to_spread_its_ocr_over_the_workers(
    pages: int, scanned: bool, workers: int, size: int
) -> None:
    assert range_size(pages, scanned, workers) == size


def _task_error(cause: BaseException) -> RayTaskError:
    return RayTaskError("parse_range", "Traceback (most recent call last): ...", cause)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (_task_error(DocumentTooLarge("The image is too big.")), "The image is too big."),
        (_task_error(ModelReplyError("the model said nothing useful")), "the model said nothing useful"),
        (_task_error(MemoryError()), OUT_OF_MEMORY_MESSAGE),
        (_task_error(KeyError("secret document text")), INTERNAL_MESSAGE),
        (WorkerCrashedError(), CRASHED_MESSAGE),
        (RuntimeError("anything else"), INTERNAL_MESSAGE),
    ],
)
def test_task_failures_become_messages_that_never_quote_internals(error: BaseException, message: str) -> None:
    failure = failure_of(error)
    assert failure.message == message
    assert "Traceback" not in failure.message and "secret" not in failure.message


def test_timeout_message() -> None:
    assert timeout_message(120) == "the document took longer than 120 s to process"


def test_single_and_batch_inputs() -> None:
    assert ParseRequest(input=FILE).inputs() == [FILE] and not ParseRequest(input=FILE).is_batch()
    batch = ParseRequest(input=[FILE, FILE])
    assert batch.is_batch() and batch.inputs() == [FILE, FILE]
    ParseRequest(input=[FILE] * MAX_BATCH_INPUTS)
    with pytest.raises(ValidationError):
        ParseRequest(input=[FILE] * (MAX_BATCH_INPUTS + 1))
    with pytest.raises(ValidationError):
        ParseRequest(input=[])
    with pytest.raises(ValidationError):
        ParseSyncRequest(input=[FILE])
    with pytest.raises(ValidationError):
        ParseRequest(input=FILE, unknown=1)


def test_config_rules_of_requests() -> None:
    assert ParseRequest(input=FILE).inline_params() is None
    assert ExtractSyncRequest(
        input=FILE, extraction_config={"json_options": ["a"]}
    ).inline_params() == ExtractParams(json_options=["a"])
    assert ExtractRequest(input=FILE, config_id="config://x").inline_params() is None
    with pytest.raises(ValidationError, match="extraction_config"):
        ExtractRequest(input=FILE)
    with pytest.raises(ValidationError, match="classify_config"):
        ClassifyRequest(input=FILE)
    with pytest.raises(ValidationError, match="not both"):
        ParseRequest(input=FILE, config_id="config://x", parse_config={})


def test_params_are_strict() -> None:
    assert ParseParams().output_format == "markdown" and ParseParams().markdown_options.page_markers
    with pytest.raises(ValidationError):
        ExtractParams(json_options=["Total", "total"])
    with pytest.raises(ValidationError):
        ExtractParams(json_options=["line\nbreak"])
    with pytest.raises(ValidationError):
        ExtractParams(json_options=["a"], csv_options={"delimiter": ";"})
    with pytest.raises(ValidationError):
        ClassifyParams(categories=["Invoice", {"name": "invoice"}])
    params = ClassifyParams(categories=["invoice", {"name": "receipt", "description": "till slip"}])
    assert [(c.name, c.description) for c in params.category_list()] == [
        ("invoice", ""),
        ("receipt", "till slip"),
    ]


def test_config_ids() -> None:
    config = str(uuid.uuid4())
    assert parse_config_id(f"config://{config}") == parse_config_id(config) == config
    assert parse_config_id(f"config%3A%2F%2F{config}") == config
    with pytest.raises(BadRequest):
        parse_config_id(f"file://{config}")


def test_memory_cap_stops_a_runaway_allocation_and_is_lifted_afterwards() -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    with pytest.raises(MemoryError), memory_cap(64 * 1024 * 1024):
        bytearray(512 * 1024 * 1024)
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert len(bytearray(128 * 1024 * 1024)) == 128 * 1024 * 1024
