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
    # A design taught and matched well is not marked for review.
    assert all(r.confidence >= 0.9 for r in clean.values())
    murky = Placement(source="ocr", confidence=0.6, slips=OCR_SLIPS)
    scanned = read_with_examples(intake(BOB, murky), NAMES, file_name="b.pdf", examples=[("ex", taught)])
    # An OCR'd value the engine was unsure of stays below 0.9, though the design matched.
    assert all(r.confidence < 0.9 for r in scanned.values())
    assert all(s.confidence < c.confidence for s, c in zip(scanned.values(), clean.values(), strict=True))


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


def _claim(rows: list[tuple[str, float]], *, widgets: list[tuple[str, str, Box]] | None = None) -> Any:
    """A claim sheet of a fixed design: its printed lines, and `rows` of (text, x) on line 100."""
    builder = DocBuilder()
    builder.line("Pinecrest Animal Insurance Claim Form", 40, 20)
    builder.line("Complete all parts and sign at the bottom", 40, 40)
    builder.line("Owner and pet details below", 40, 60)
    for text, x in rows:
        builder.line(text, x, 100, x + 8 * len(text), 114)
    for name, value, box in widgets or []:
        builder.form_field(name, value, box)
    builder.line("Veterinarian statement and clinic stamp", 40, 200)
    builder.line("Signature of the policy holder and date", 40, 700)
    return builder.doc


def _read(taught: Taught, doc: Any, names: list[str]) -> dict[str, Any]:
    found = read_with_examples(doc, names, file_name="c.pdf", examples=[("ex", taught)])
    assert all(found[n].example_id == "ex" for n in names)
    return {n: found[n].value for n in names}


def test_a_code_is_read_as_its_token_of_digits_beside_a_stray_word() -> None:
    taught = teach(_claim([("Policy", 40), ("4770610", 200), ("Pet", 400)]), {"policy_number": "4770610"})
    assert taught.fields["policy_number"].kind == "code"  # type: ignore[union-attr]
    later = _claim([("Policy", 40), ("Max", 200), ("4564141", 240), ("Pet", 400)])
    assert _read(taught, later, ["policy_number"]) == {"policy_number": "4564141"}


def test_a_label_ocr_glued_to_the_value_is_left_out() -> None:
    taught = teach(_claim([("Addr:", 40), ("12", 90), ("Elm", 110), ("St", 140)]), {"address": "12 Elm St"})
    later = _claim([("Addr:1037755", 40), ("W", 150), ("Oak", 165)])
    assert _read(taught, later, ["address"]) == {"address": "1037755 W Oak"}


def test_a_flattened_check_box_tick_is_read() -> None:
    boxes = [Box(110, 100, 124, 114), Box(210, 100, 224, 114)]
    sheet = _claim(
        [("Sex", 40), ("Male", 130), ("Female", 230)],
        widgets=[("male", "true", boxes[0]), ("female", "false", boxes[1])],
    )
    taught = teach(sheet, {"sex": "Male"})
    # Flattened: the widgets are gone, ZapfDingbats' check prints as the letter `4`.
    flat = _claim([("Sex", 40), ("4", 212), ("Male", 130), ("Female", 230)])
    assert _read(taught, flat, ["sex"]) == {"sex": "Female"}


def test_a_middle_name_taught_empty_is_read_from_the_whole_name() -> None:
    names = ["first_name", "middle_name", "last_name"]
    taught = teach(
        _claim([("Owner", 40), ("Jane", 200), ("Doe", 240)]),
        {"first_name": "Jane", "middle_name": None, "last_name": "Doe"},
    )
    later = _claim([("Owner", 40), ("Mary", 200), ("E.", 240), ("Smith", 260)])
    assert _read(taught, later, names) == {"first_name": "Mary", "middle_name": "E", "last_name": "Smith"}
    plain = _claim([("Owner", 40), ("Ann", 200), ("Lee", 240)])
    assert _read(taught, plain, names) == {"first_name": "Ann", "middle_name": None, "last_name": "Lee"}


def test_a_doctors_degree_is_no_part_of_the_name() -> None:
    taught = teach(
        _claim([("Veterinarian", 40), ("Dr.", 200), ("Ferreira", 230)]), {"vet_last_name": "Ferreira"}
    )
    later = _claim([("Veterinarian", 40), ("Sarah", 200), ("Ashworth,", 250), ("DVM", 330)])
    assert _read(taught, later, ["vet_last_name"]) == {"vet_last_name": "Ashworth"}


def test_a_slot_is_mapped_by_the_anchors_around_it() -> None:
    from extraction.examples.match import PageMatch

    # A bent page: the top half sits where the example had it, the bottom half 20 lower.
    source = [complex(x, y) for x in (50, 300, 550) for y in (50, 150, 650, 750)]
    target = [z + (20j if z.imag > 400 else 0) for z in source]
    bent = PageMatch(1, [1, 0, 0, 0, 1, 10], 1.0, {}, source, target, reach=120.0)
    low, high = bent.box([280, 690, 320, 710]), bent.box([280, 90, 320, 110])
    assert abs(low.y0 - 710) < 3 and abs(high.y0 - 90) < 3
    assert PageMatch(1, [1, 0, 0, 0, 1, 10], 1.0).box([280, 690, 320, 710]).y0 == 700


def test_digits_ocr_glued_to_a_printed_label_are_read() -> None:
    def sheet(label: str, *digits: tuple[str, float]) -> Any:
        return _claim([("Birth", 40), ("date", 85), (label, 125), *digits, ("Sex", 420)])

    taught = teach(
        sheet("(MMDDYYYY)", *((d, 215 + 20 * i) for i, d in enumerate("03141985"))), {"dob": "1985-03-14"}
    )
    # OCR read the label and the first two boxes as one word, and a 0 as the letter O.
    later = sheet("(MMDDYYYY)12", *((d, 255 + 20 * i) for i, d in enumerate("O11990")))
    assert _read(taught, later, ["dob"]) == {"dob": "1990-12-01"}


def test_a_printed_words_last_mark_ocr_misread_as_a_digit_is_no_part_of_the_value() -> None:
    def sheet(label: tuple[str, float], *digits: tuple[str, float]) -> Any:
        return _claim([("Birth", 40), ("date", 85), label, *digits, ("Sex", 420)])

    taught = teach(
        sheet(("(MMDDYYYY)", 125), *((d, 215 + 20 * i) for i, d in enumerate("03141985"))),
        {"dob": "1985-03-14"},
    )
    # OCR read the label's closing bracket as `2` (its box a little wider, the `2` over the
    # slot's edge): with it the boxes hold nine digits, no date.
    later = sheet(("(MMDDYYYY2", 131), *((d, 215 + 20 * i) for i, d in enumerate("08271947")))
    assert _read(taught, later, ["dob"]) == {"dob": "1947-08-27"}


def test_a_tick_ocr_glued_to_its_option_word_is_read_as_the_tick() -> None:
    boxes = [Box(110, 100, 124, 114), Box(210, 100, 224, 114)]
    sheet = _claim(
        [("Sex", 40), ("Male", 130), ("Female", 230)],
        widgets=[("male", "true", boxes[0]), ("female", "false", boxes[1])],
    )
    taught = teach(sheet, {"sex": "Male"})
    # A photo of the printed form: the box drew no outline, OCR read its tick into the word.
    photo = _claim([("Sex", 40), ("Male", 130), ("\u2713Female", 212)])
    assert _read(taught, photo, ["sex"]) == {"sex": "Female"}
    boxed = _claim([("Sex", 40), ("\u2612Male", 112), ("\u2610Female", 212)])
    assert _read(taught, boxed, ["sex"]) == {"sex": "Male"}


def test_a_value_the_rules_read_from_the_designs_printed_words_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from extraction.examples import read
    from extraction.fields.model.result import FieldResult

    taught = teach(_claim([("Pet", 40), ("Rex", 200), ("Breed", 400)]), {"pet_name": "Rex"})
    # The pet's name left unread on a later sheet: the general rules read what they find.
    later = _claim([("Pet", 40), ("Breed", 400)])
    for ruled, kept in (("Veterinarian statement", None), ("Breed Max", "Breed Max")):
        monkeypatch.setattr(
            read, "extract_fields", lambda *_, value=ruled, **__: {"pet_name": FieldResult(value, 0.5)}
        )
        found = read_with_examples(later, ["pet_name"], file_name="c.pdf", examples=[("ex", taught)])
        # Words all printed by the design are its labels, not an answer; one word of its own is.
        assert found["pet_name"].value == kept
        assert found["pet_name"].example_id == (None if kept else "ex")
