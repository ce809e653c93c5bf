"""Where a printed question's answer ends (`extraction/fields/questions.py`), on made pages."""

from __future__ import annotations

import pytest

from extraction.fields import extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def values(builder: DocBuilder, names: list[str]) -> dict[str, object]:
    results = extract_fields(builder.doc, names, file_name="form.png")
    return {name: result.value for name, result in results.items()}


def test_known_label_before_a_date_under_an_answer_ends_it() -> None:
    page = DocBuilder(source="ocr")
    page.line("DESCRIPTION:", 50, 180, 150, 200)
    page.line("Passport Winter Program Ad", 170, 180, 400, 200)
    # The next question with its value, not the answer's second line.
    page.line("DATE 10/22/98", 172, 204, 280, 222)
    assert values(page, ["DESCRIPTION"]) == {"DESCRIPTION": "Passport Winter Program Ad"}


def test_a_line_under_an_answer_is_still_read_on() -> None:
    page = DocBuilder(source="ocr")
    page.line("DESCRIPTION:", 50, 180, 150, 200)
    page.line("Passport Winter Program Ad", 170, 180, 400, 200)
    page.line("for the DATE 10/22 issue", 172, 204, 330, 222)
    assert values(page, ["DESCRIPTION"]) == {
        "DESCRIPTION": "Passport Winter Program Ad for the DATE 10/22 issue"
    }
