from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from extraction.jobs.output import fields_to_csv, fields_to_json_content

pytestmark = pytest.mark.unit


def test_csv_has_one_header_row_and_one_row_per_document() -> None:
    rows: list[dict[str, Any]] = [
        {"company": "ACME, Inc.", "total": "9.00", "paid": True, "party": ["A", "B"]},
        {"company": 'Say "hi"\nLtd', "total": None, "extra": "ignored"},
    ]
    text = fields_to_csv(rows, ["company", "total", "paid", "party"])
    parsed = list(csv.reader(io.StringIO(text)))
    assert parsed == [
        ["company", "total", "paid", "party"],
        ["ACME, Inc.", "9.00", "true", '["A", "B"]'],
        ['Say "hi"\nLtd', "", "", ""],
    ]


def test_csv_of_no_documents_is_the_header() -> None:
    assert fields_to_csv([], ["a", "b"]) == "a,b\n"


def test_json_content_keeps_characters() -> None:
    text = fields_to_json_content({"name": "Café ⚽", "total": None})
    assert "Café ⚽" in text
    assert json.loads(text) == {"name": "Café ⚽", "total": None}
