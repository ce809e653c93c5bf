from __future__ import annotations

import pytest

from extraction.fields.documents.classify import RULES_CONFIDENT, Category, classify_document
from extraction.formats.document import Document
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit

CATEGORIES: list[Category] = [
    {"name": "invoice", "description": "A bill for goods or services with amounts due and tax"},
    {"name": "nda", "description": "Non-disclosure agreement about confidential information"},
    "receipt",
]


def pages(*texts: str) -> Document:
    b = DocBuilder(pages=len(texts))
    for number, text in enumerate(texts, start=1):
        b.line(text, 10, 10, page=number)
    return b.doc


def test_document_mode_by_name_and_description() -> None:
    doc = pages("INVOICE No 42. Amount due: 9.00 including tax. Please pay this invoice.")
    result = classify_document(doc, CATEGORIES, "document")
    assert result["category"] == "invoice"
    assert RULES_CONFIDENT <= result["confidence"] <= 1


def test_descriptions_alone_can_decide() -> None:
    doc = pages("The recipient shall keep all Confidential Information secret and make no disclosure.")
    assert classify_document(doc, CATEGORIES)["category"] == "nda"


def test_matching_tolerates_plurals_and_ocr_slips() -> None:
    assert classify_document(pages("RECEIPTS of the day"), ["receipt", "contract"])["category"] == "receipt"
    assert classify_document(pages("TAX INV0ICE"), ["invoice", "contract"])["category"] == "invoice"


def test_no_evidence_is_no_category() -> None:
    assert classify_document(pages("lorem ipsum dolor"), CATEGORIES) == {"category": None, "confidence": 0.0}


def test_split_mode_merges_consecutive_pages() -> None:
    doc = pages(
        "INVOICE 1 amount due 10.00 tax",
        "invoice continued, amount due",
        "terms and conditions apply",
        "RECEIPT thank you, receipt no 7",
        "Mutual non-disclosure agreement: confidential information",
    )
    segments = classify_document(doc, CATEGORIES, "split")["segments"]
    assert [(s["category"], s["start_page"], s["end_page"]) for s in segments] == [
        ("invoice", 1, 3),
        ("receipt", 4, 4),
        ("nda", 5, 5),
    ]
    assert all(0 <= s["confidence"] <= 1 for s in segments)


def test_the_model_decides_when_rules_are_not_confident() -> None:
    calls: list[list[dict[str, str]]] = []

    def model(messages: list[dict[str, str]]) -> str:
        calls.append(messages)
        return '```json\n{"category": "NDA", "confidence": 0.92}\n```'

    result = classify_document(pages("Signed by both sides on the date below"), CATEGORIES, model=model)
    assert result == {"category": "nda", "confidence": 0.92}
    assert len(calls) == 1
    assert "nda: Non-disclosure agreement" in calls[0][1]["content"]
    assert "Signed by both sides on the date below" in calls[0][1]["content"]


def test_the_model_is_not_asked_when_rules_are_confident() -> None:
    def model(messages: list[dict[str, str]]) -> str:
        raise AssertionError("the model must not be called")

    doc = pages("INVOICE invoice number 7, amount due, tax, invoice total")
    assert classify_document(doc, CATEGORIES, model=model)["category"] == "invoice"


def test_an_unusable_model_reply_keeps_the_rules_answer() -> None:
    doc = pages("lorem ipsum")
    for reply in ("no idea", '{"category": "poem"}'):

        def model(messages: list[dict[str, str]], answer: str = reply) -> str:
            return answer

        assert classify_document(doc, CATEGORIES, model=model) == {"category": None, "confidence": 0.0}


def test_split_mode_asks_the_model_per_unclear_page() -> None:
    asked: list[str] = []

    def model(messages: list[dict[str, str]]) -> str:
        asked.append(messages[1]["content"])
        return '{"category": "receipt"}'

    doc = pages("INVOICE amount due tax invoice number", "cash paid, thanks")
    segments = classify_document(doc, CATEGORIES, "split", model=model)["segments"]
    assert [(s["category"], s["start_page"], s["end_page"]) for s in segments] == [
        ("invoice", 1, 1),
        ("receipt", 2, 2),
    ]
    assert len(asked) == 1 and "cash paid" in asked[0]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        classify_document(pages("x"), [])
    with pytest.raises(ValueError):
        classify_document(pages("x"), ["a"], "pages")  # type: ignore[arg-type]
