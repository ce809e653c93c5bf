"""Matching by design and reading with examples (extraction.examples.match_design, read_with_examples)."""

from __future__ import annotations

from typing import Any

import pytest

from extraction.examples import Taught, match_design, read_with_examples, teach
from extraction.fields import extract_fields
from extraction.formats.document import Box
from extraction.jobs.results import finish
from extraction.jobs.stages import DocumentSpec
from tests.unit.extraction.doc_builders import DocBuilder
from tests.unit.extraction.example_forms import TRUTH, Person, Placement, intake, other_design

NAMES = list(TRUTH)
BOB = Person(
    first="Robert",
    last="Smithson-Lee",
    dob="12/01/1970",
    phone="(503) 987 6543",
    sex="M",
    email="bob.lee@mail.org",
    zip="97035",
    copay="$40.50",
)
BOB_VALUES = {
    "first_name": "Robert",
    "last_name": "Smithson-Lee",
    "date_of_birth": "1970-12-01",
    "phone": "503-987-6543",
    "gender": "M",
    "email": "bob.lee@mail.org",
    "zip": "97035",
    "copay_amount": "40.50",
}
OCR_SLIPS = {
    "Riverside": "Rlverside",
    "Intake": "lntake",
    "Please": "Pleasc",
    "Emergency": "Emergcncy",
    "section": "sectlon",
}


@pytest.fixture(scope="module")
def taught() -> Taught:
    return Taught.from_json(teach(intake(Person()), TRUTH).to_json())


@pytest.mark.parametrize(
    "placement",
    [
        Placement(),
        Placement(dx=25, dy=-12),
        Placement(scale=2.7, dx=40, dy=30),
        Placement(turn=1.5, dx=10),
        Placement(turn=-2.0, scale=1.4, source="ocr", confidence=0.97, slips=OCR_SLIPS),
    ],
    ids=["same", "shifted", "scaled", "turned", "scanned"],
)
def test_another_person_on_the_design_is_read_at_the_taught_places(
    taught: Taught, placement: Placement
) -> None:
    doc = intake(BOB, placement)
    match = match_design(doc, taught)
    assert match is not None and match.pages[1].score >= 0.8
    results = read_with_examples(doc, NAMES, file_name="bob.pdf", examples=[("ex-1", taught)])
    assert {n: r.value for n, r in results.items()} == BOB_VALUES
    assert all(r.example_id == "ex-1" for r in results.values())
    citation = results["date_of_birth"].citations[0]
    x0, y0 = citation["bounding_box"][:2]
    expected = match.pages[1].point(170, 120)
    assert abs(x0 - expected[0]) < 8 * placement.scale and abs(y0 - expected[1]) < 8 * placement.scale


def test_confidence_follows_the_evidence(taught: Taught) -> None:
    clean = read_with_examples(intake(BOB), NAMES, file_name="b.pdf", examples=[("ex", taught)])
    assert (
        clean["date_of_birth"].confidence >= 0.98
        and clean["first_name"].confidence < clean["date_of_birth"].confidence
    )
    murky = Placement(source="ocr", confidence=0.85, slips=OCR_SLIPS)
    scanned = read_with_examples(intake(BOB, murky), NAMES, file_name="b.pdf", examples=[("ex", taught)])
    # An OCR'd value the engine was unsure of stays below 0.9, though the design matched.
    assert all(r.confidence < 0.9 for r in scanned.values())


def test_a_document_of_another_design_is_read_exactly_as_without_examples(taught: Taught) -> None:
    doc = other_design(BOB)
    assert match_design(doc, taught) is None
    plain = extract_fields(doc, NAMES, file_name="v.pdf")
    with_examples = read_with_examples(doc, NAMES, file_name="v.pdf", examples=[("ex", taught)] * 3)
    assert repr(with_examples) == repr(plain)
    assert all(r.example_id is None for r in with_examples.values())


def test_a_design_sharing_labels_elsewhere_does_not_match(taught: Taught) -> None:
    # The same printed words, shuffled to other places: no transform lands them.
    moved = intake(BOB)
    for i, element in enumerate(moved.elements):
        box = element.box
        assert box is not None
        dx, dy = (i * 137) % 400, (i * 89) % 500
        element.box = Box(box.x0 + dx, box.y0 + dy, box.x1 + dx, box.y1 + dy)
        element.lines[0].box = element.box
    assert match_design(moved, taught) is None


def test_the_best_matching_example_wins(taught: Taught) -> None:
    other = teach(other_design(Person()), {"first_name": "Jane", "last_name": "Doe"})
    results = read_with_examples(
        intake(BOB), NAMES, file_name="b.pdf", examples=[("other", other), ("intake", taught)]
    )
    assert {r.example_id for r in results.values()} == {"intake"}


def test_last_first_names_are_read_by_their_part() -> None:
    def sheet(printed: str) -> Any:
        builder = DocBuilder()
        builder.line("Community Dental Patient Sheet", 40, 20)
        builder.line("Please complete both sides of this form", 40, 40)
        builder.line("Name (Last, First):", 40, 100, 190, 114)
        builder.line(printed, 200, 100, 200 + 8 * len(printed), 114)
        builder.line("Referred by another office or physician", 40, 160)
        builder.line("Signature and date of today", 40, 700)
        return builder.doc

    taught = teach(sheet("Doe, Jane"), {"first_name": "Jane", "last_name": "Doe"})
    results = read_with_examples(
        sheet("Okonkwo-Smith, Mary"),
        ["first_name", "last_name"],
        file_name="m.pdf",
        examples=[("ex", taught)],
    )
    assert (results["first_name"].value, results["last_name"].value) == ("Mary", "Okonkwo-Smith")


def test_a_date_in_digit_boxes_is_read_in_the_taught_order() -> None:
    def sheet(number: str) -> Any:
        builder = DocBuilder()
        builder.line("Clinic Visit Record Sheet", 40, 20)
        builder.line("Complete this section in block capitals", 40, 40)
        builder.line("Date of visit", 40, 100, 140, 114)
        for i, digit in enumerate(number):
            builder.line(digit, 160 + 20 * i, 100, 168 + 20 * i, 114)
        builder.line("Reason for the visit and symptoms", 40, 160)
        return builder.doc

    taught = teach(sheet("14031985"), {"visit_date": "1985-03-14"})
    field = taught.fields["visit_date"]
    assert field is not None and field.detail == "DMY"
    results = read_with_examples(
        sheet("02112023"), ["visit_date"], file_name="v.pdf", examples=[("ex", taught)]
    )
    assert results["visit_date"].value == "2023-11-02"


def test_a_field_the_example_cannot_settle_falls_back_to_the_rules(taught: Taught) -> None:
    blank = intake(Person(dob="", email=""))
    results = read_with_examples(
        blank, ["date_of_birth", "first_name"], file_name="b.pdf", examples=[("ex", taught)]
    )
    assert results["first_name"].example_id == "ex"
    assert results["date_of_birth"].example_id is None


def test_a_null_taught_value_settles_the_field_as_absent() -> None:
    taught = teach(intake(Person()), {**TRUTH, "middle_name": None})
    results = read_with_examples(intake(BOB), ["middle_name"], file_name="b.pdf", examples=[("ex", taught)])
    assert results["middle_name"].value is None and results["middle_name"].example_id == "ex"


def _spec(params: dict[str, Any]) -> DocumentSpec:
    return DocumentSpec(kind="extract", params=params, filename="bob.pdf", format="pdf")


def test_the_job_reads_with_the_examples_in_its_params(taught: Taught) -> None:
    params = {"json_options": NAMES, "prompt_mode": "rules"}
    examples = [{"example_id": "ex-9", "taught": taught.to_json()}]
    result = finish(_spec({**params, "examples": examples}), [intake(BOB)], None).result
    assert result is not None
    assert result["data"] == BOB_VALUES
    assert {f["example_id"] for f in result["fields"].values()} == {"ex-9"}
    other = finish(_spec({**params, "examples": examples}), [other_design(BOB)], None).result
    plain = finish(_spec(params), [other_design(BOB)], None).result
    assert other == plain and all("example_id" not in f for f in plain["fields"].values())  # type: ignore[index]


def _csz_sheet(printed: str, *, widget: bool) -> Any:
    builder = DocBuilder()
    builder.line("Harbor Family Clinic Registration", 40, 20)
    builder.line("Please complete every line of this form", 40, 40)
    builder.line("Street Address", 40, 80, 150, 94)
    builder.line("City, State, ZIP", 40, 100, 168, 114)
    if widget:
        builder.form_field("csz", printed, Box(180, 98, 440, 116))
    else:
        builder.line(printed, 184, 100, 184 + 7 * len(printed), 114)
    builder.line("Emergency contact and relationship", 40, 160)
    builder.line("Signature of the patient or guardian", 40, 700)
    return builder.doc


def test_values_taught_inside_one_widget_are_read_from_its_print() -> None:
    names = ["city", "state", "zip"]
    taught = teach(
        _csz_sheet("Portland, OR 97201", widget=True), {"city": "Portland", "state": "OR", "zip": "97201"}
    )
    for later, widget in (("Salt Lake City, UT 84101", True), ("Salt Lake City, UT 84101", False)):
        found = read_with_examples(
            _csz_sheet(later, widget=widget), names, file_name="l.pdf", examples=[("ex", taught)]
        )
        assert [found[n].value for n in names] == ["Salt Lake City", "UT", "84101"]
        assert all(found[n].example_id == "ex" for n in names)


def _text_form(name: str, dob: str, city_line: str, phone: str) -> bytes:
    return (
        "WESTSIDE PHYSICAL THERAPY - NEW PATIENT FORM\n"
        "Please answer every question below.\n"
        "\n"
        f"Patient name:   {name}\n"
        f"Date of birth:  {dob}        Phone: {phone}\n"
        f"City/State/ZIP: {city_line}\n"
        "\n"
        "Reason for referral and current symptoms\n"
        "Signature of patient or guardian\n"
    ).encode()


def test_a_plain_text_form_is_taught_and_read_by_its_lines_and_columns() -> None:
    from extraction.formats.engines import parse_bytes

    names = ["last_name", "first_name", "dob", "city", "state", "zip", "phone"]
    taught = teach(
        parse_bytes(_text_form("Doe, Jane", "03/14/1985", "Portland, OR 97201", "555-123-4567"), "a.txt"),
        {
            "last_name": "Doe",
            "first_name": "Jane",
            "dob": "1985-03-14",
            "city": "Portland",
            "state": "OR",
            "zip": "97201",
            "phone": "(555) 123-4567",
        },
    )
    later = parse_bytes(
        _text_form("Okonkwo-Smith, Mary", "11/02/1990", "Salt Lake City, UT 84101", "801-555-0199"), "b.txt"
    )
    found = read_with_examples(later, names, file_name="b.txt", examples=[("ex", taught)])
    assert {n: found[n].value for n in names} == {
        "last_name": "Okonkwo-Smith",
        "first_name": "Mary",
        "dob": "1990-11-02",
        "city": "Salt Lake City",
        "state": "UT",
        "zip": "84101",
        "phone": "(801) 555-0199",
    }
    assert all(found[n].example_id == "ex" for n in names)
    # A text file's value is cited by its line, as every text citation is.
    assert found["city"].citations == [{"file": "b.txt", "line_start": 6, "line_end": 6}]
