from __future__ import annotations

from typing import Any

import pytest

from extraction.fields.documents.grounding import (
    GROUNDED_EXACT_CONFIDENCE,
    UNGROUNDED_CONFIDENCE,
    build_model_prompt,
    find_citations,
    ground_model_values,
    parse_model_json,
)
from extraction.formats.document import Box
from tests.unit.extraction.doc_builders import DocBuilder, sheet_document, text_document

pytestmark = pytest.mark.unit


def invoice() -> DocBuilder:
    b = DocBuilder(width=612, height=792)
    b.line("Azure Interior", 50, 100, 150, 112)
    b.line("4557 De Silva St", 50, 114, 150, 126)
    b.line("Fremont CA 94538", 50, 128, 150, 140)
    b.line("Invoice Date: 03/20/2023", 350, 100, 520, 112)
    b.line("Total $ 1,279.84", 350, 700, 520, 712, confidence=0.8)
    b.form_field("Approved", "true", Box(10, 10, 20, 20))
    return b


def boxes(citations: list[dict[str, Any]]) -> list[list[float]]:
    return [c["bounding_box"] for c in citations]


def test_exact_value_is_cited_with_its_line_box_and_page() -> None:
    citations = find_citations(invoice().doc, "Azure Interior", file_name="inv.pdf")
    assert citations == [
        {
            "file": "inv.pdf",
            "page": 1,
            "bounding_box": [50, 100, 150, 112],
            "normalized_bounding_box": [
                {"x": round(50 / 612, 6), "y": round(100 / 792, 6)},
                {"x": round(150 / 612, 6), "y": round(100 / 792, 6)},
                {"x": round(150 / 612, 6), "y": round(112 / 792, 6)},
                {"x": round(50 / 612, 6), "y": round(112 / 792, 6)},
            ],
        }
    ]


def test_values_are_found_after_normalisation() -> None:
    doc = invoice().doc
    assert boxes(find_citations(doc, "AZURE  interior", file_name="f")) == [[50, 100, 150, 112]]
    # Dates and amounts by meaning, whatever their written form.
    assert boxes(find_citations(doc, "2023-03-20", file_name="f")) == [[350, 100, 520, 112]]
    assert boxes(find_citations(doc, 1279.84, file_name="f")) == [[350, 700, 520, 712]]
    assert boxes(find_citations(doc, "1279.84", file_name="f")) == [[350, 700, 520, 712]]


def test_a_value_over_several_lines_is_cited_as_one_region() -> None:
    citations = find_citations(invoice().doc, "4557 De Silva St, Fremont CA 94538", file_name="f")
    assert boxes(citations) == [[50, 114, 150, 140]]


def test_a_value_is_not_found_inside_longer_words_or_numbers() -> None:
    doc = invoice().doc
    assert find_citations(doc, "Silva Street", file_name="f") == []
    assert find_citations(doc, "455", file_name="f") == []
    assert find_citations(doc, "", file_name="f") == []


def test_every_occurrence_is_cited() -> None:
    b = DocBuilder(pages=2)
    b.line("ACME Ltd", 10, 10, page=1)
    b.line("Thank you for choosing ACME Ltd", 10, 10, page=2)
    pages = [c["page"] for c in find_citations(b.doc, "ACME Ltd", file_name="f")]
    assert pages == [1, 2]


def test_sheet_cells_and_text_lines_are_cited_in_their_own_terms() -> None:
    sheet = sheet_document({"A1": "Patient", "B1": "Jane Roe"})
    assert find_citations(sheet, "Jane Roe", file_name="b.xlsx") == [
        {"file": "b.xlsx", "sheet": "Sheet1", "cell": "B1"}
    ]
    text = text_document("first\nsecond line\nthird")
    assert find_citations(text, "second line", file_name="n.txt") == [
        {"file": "n.txt", "line_start": 2, "line_end": 2}
    ]


def test_form_field_values_are_cited() -> None:
    b = DocBuilder()
    b.form_field("City", "Timbuktu", Box(339, 420, 456, 439))
    assert boxes(find_citations(b.doc, "Timbuktu", file_name="f")) == [[339, 420, 456, 439]]


def test_ground_model_values() -> None:
    doc = invoice().doc
    results = ground_model_values(
        doc,
        {
            "issuer": "Azure Interior",
            "total": "1279.84",
            "iban": "US1234567890",
            "note": None,
            "approved": True,
            "lines": ["Azure Interior", "nowhere"],
        },
        file_name="inv.pdf",
    )
    assert results["issuer"].confidence == GROUNDED_EXACT_CONFIDENCE
    assert results["issuer"].source == "model"
    assert boxes(results["issuer"].citations) == [[50, 100, 150, 112]]
    # Found by meaning, on a line the OCR was less sure of: lower, still well above ungrounded.
    assert UNGROUNDED_CONFIDENCE < results["total"].confidence < GROUNDED_EXACT_CONFIDENCE
    assert results["iban"].value == "US1234567890"
    assert results["iban"].citations == []
    assert results["iban"].confidence == UNGROUNDED_CONFIDENCE
    assert results["note"].value is None and results["note"].confidence == 0.0
    assert results["approved"].citations and results["approved"].confidence > UNGROUNDED_CONFIDENCE
    assert results["lines"].value == ["Azure Interior", "nowhere"]
    assert results["lines"].confidence == pytest.approx(
        (GROUNDED_EXACT_CONFIDENCE + UNGROUNDED_CONFIDENCE) / 2
    )


def test_a_check_box_answer_that_disagrees_with_the_form_is_ungrounded() -> None:
    results = ground_model_values(invoice().doc, {"approved": False}, file_name="f")
    assert results["approved"].citations == []
    assert results["approved"].confidence == UNGROUNDED_CONFIDENCE


def test_model_prompt_asks_for_exactly_the_keys() -> None:
    messages = build_model_prompt(
        "Invoice 42\nTotal 9.00", ["invoice_number", "total"], "Totals include tax."
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert '["invoice_number", "total"]' in user
    assert "Totals include tax." in user
    assert "Invoice 42\nTotal 9.00" in user
    assert "null" in messages[0]["content"]
    assert "Additional instructions" not in build_model_prompt("x", ["a"], None)[1]["content"]


def test_model_prompt_truncates_huge_documents() -> None:
    user = build_model_prompt("x" * 200_000, ["a"], None)[1]["content"]
    assert len(user) < 110_000
    assert "truncated" in user


@pytest.mark.parametrize(
    "reply",
    [
        '{"invoice_number": "42", "total": 9.0}',
        '```json\n{"invoice_number": "42", "total": 9.0}\n```',
        'Here you are:\n```\n{"invoice_number": "42", "total": 9.0, "extra": 1}\n```\nAnything else?',
        'Sure! {"Invoice Number": "42", "TOTAL": 9.0}',
    ],
)
def test_parse_model_json_is_tolerant(reply: str) -> None:
    assert parse_model_json(reply, ["invoice_number", "total"]) == {"invoice_number": "42", "total": 9.0}


def test_parse_model_json_fills_missing_keys_with_null_and_rejects_non_json() -> None:
    assert parse_model_json('{"total": "1"}', ["total", "date"]) == {"total": "1", "date": None}
    with pytest.raises(ValueError):
        parse_model_json("I could not find anything.", ["total"])


def test_table_cells_without_boxes_are_cited_by_cell_or_whole_table() -> None:
    b = DocBuilder()
    table = b.table([["Name", "Jane Roe"]], Box(10, 10, 200, 30))
    assert boxes(find_citations(b.doc, "Jane Roe", file_name="f")) == [table.box.as_list()]  # type: ignore[union-attr]
