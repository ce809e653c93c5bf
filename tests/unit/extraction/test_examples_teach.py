"""Teaching an example: each value is found on the document by meaning (extraction.examples.teach)."""

from __future__ import annotations

import pytest

from extraction.examples import Taught, ValuesNotFound, teach
from extraction.formats.document import Box
from tests.unit.extraction.doc_builders import DocBuilder
from tests.unit.extraction.example_forms import TRUTH, FormCanvas, Person, Placement, intake


def _one_line(*words: tuple[str, float]) -> DocBuilder:
    builder = DocBuilder()
    builder.line("Patient Registration Sheet", 40, 20)
    for text, x in words:
        builder.line(text, x, 100, x + 8 * len(text), 114)
    return builder


def test_every_kind_is_found_where_it_is_printed() -> None:
    taught = teach(intake(Person()), TRUTH)
    fields = {name: f for name, f in taught.fields.items() if f is not None}
    assert set(fields) == set(TRUTH)
    assert fields["date_of_birth"].kind == "date" and fields["date_of_birth"].detail == "MDY"
    assert fields["phone"].kind == "phone"
    assert fields["gender"].kind == "choice"
    assert [o.label for o in fields["gender"].options] == ["Male", "Female"]
    # The date "03/14/1985" sits at x 170 on the design's row 120.
    assert fields["date_of_birth"].bounding_box[:2] == [170.0, 120.0]
    assert fields["last_name"].bounding_box[:2] == [150.0, 80.0]


@pytest.mark.parametrize(
    ("printed", "given"),
    [
        ("March 14, 1985", "1985-03-14"),
        ("14.03.1985", "1985-03-14"),
        ("1985-03-14", "03/14/1985"),
        ("14 Mar 1985", "1985-03-14"),
    ],
)
def test_a_date_in_any_printed_form(printed: str, given: str) -> None:
    builder = _one_line(("Date of Birth:", 40), (printed, 200))
    field = teach(builder.doc, {"date_of_birth": given}).fields["date_of_birth"]
    assert field is not None and field.bounding_box[0] == 200.0


def test_a_date_in_digit_boxes_and_in_three_cells() -> None:
    boxes = _one_line(("DOB", 40), *((d, 120 + 20 * i) for i, d in enumerate("03141985")))
    field = teach(boxes.doc, {"dob": "1985-03-14"}).fields["dob"]
    assert field is not None and field.bounding_box[0] == 120.0 and field.bounding_box[2] == 268.0
    cells = _one_line(("Birth date", 40), ("03", 150), ("/", 175), ("14", 190), ("/", 215), ("1985", 230))
    field = teach(cells.doc, {"birth_date": "1985-03-14"}).fields["birth_date"]
    assert field is not None and field.bounding_box[0] == 150.0


def test_a_phone_by_its_digits() -> None:
    builder = _one_line(("Cell Phone", 40), ("(555)", 150), ("123", 200), ("4567", 235))
    field = teach(builder.doc, {"cell_phone": "+1 555-123-4567"}).fields["cell_phone"]
    assert field is not None and field.bounding_box[0] == 150.0


def test_a_choice_by_its_ticked_option_m_for_male() -> None:
    builder = _one_line(("Sex", 40), ("\u2612", 100), ("Male", 115), ("\u2610", 170), ("Female", 185))
    field = teach(builder.doc, {"sex": "M"}).fields["sex"]
    assert field is not None and field.kind == "choice" and field.bounding_box[0] == 100.0
    # The empty box beside "Female" is no answer.
    with pytest.raises(ValuesNotFound):
        teach(builder.doc, {"sex": "Female"})


def test_a_choice_from_a_check_box_widget() -> None:
    builder = _one_line(("Gender", 40), ("Male", 130), ("Female", 230))
    builder.form_field("gender_male", "false", Box(110, 100, 124, 114))
    builder.form_field("gender_female", "true", Box(210, 100, 224, 114))
    field = teach(builder.doc, {"gender": "Female"}).fields["gender"]
    assert field is not None and field.bounding_box[0] == 210.0
    assert [o.label for o in field.options] == ["Male", "Female"]


def test_a_name_split_over_cells_and_printed_last_first() -> None:
    cells = _one_line(("Patient", 40), ("Doe", 150), ("Jane", 260))
    field = teach(cells.doc, {"patient_name": "Jane Doe"}).fields["patient_name"]
    assert field is not None and field.bounding_box == [150.0, 100.0, 292.0, 114.0]
    comma = _one_line(("Name:", 40), ("Doe,", 150), ("Jane", 190))
    taught = teach(comma.doc, {"first_name": "Jane", "last_name": "Doe", "patient_name": "Jane Doe"})
    first, last = taught.fields["first_name"], taught.fields["last_name"]
    assert first is not None and first.bounding_box[0] == 190.0 and first.detail == "first"
    assert last is not None and last.bounding_box[0] == 150.0 and last.detail == "last"


def test_an_amount_an_email_and_a_zip() -> None:
    builder = _one_line(("Total", 40), ("$1,250.00", 100), ("jane.doe@example.com", 200), ("97201-1234", 420))
    taught = teach(
        builder.doc, {"total_amount": "1250", "email": "Jane.Doe@example.com", "zip_code": "97201"}
    )
    assert [taught.fields[n].bounding_box[0] for n in ("total_amount", "email", "zip_code")] == [
        100.0,
        200.0,
        420.0,
    ]  # type: ignore[union-attr]


def test_a_value_held_by_a_form_widget() -> None:
    builder = _one_line(("Date of Birth", 40))
    builder.form_field("dob", "3/14/85", Box(150, 98, 260, 116))
    field = teach(builder.doc, {"date_of_birth": "1985-03-14"}).fields["date_of_birth"]
    assert field is not None and field.slot == [150.0, 98.0, 260.0, 116.0]


def test_values_not_found_names_every_missing_field() -> None:
    with pytest.raises(ValuesNotFound) as raised:
        teach(intake(Person()), {**TRUTH, "first_name": "Janet", "phone": "555-000-0000", "zip": "97201"})
    assert raised.value.fields == ["first_name", "phone"]


def test_a_null_value_is_kept_as_absent() -> None:
    taught = teach(intake(Person()), {"first_name": "Jane", "middle_name": None})
    assert taught.fields["middle_name"] is None


def test_the_example_survives_json_without_its_document() -> None:
    taught = teach(intake(Person()), TRUTH)
    data = taught.to_json()
    assert data["version"] == 1
    again = Taught.from_json(data)
    assert again.to_json() == data
    # The design's printed words are kept, the values are not among them.
    anchors = {a.text for a in again.pages[0].anchors}
    assert {"Riverside", "Birth:", "Phone:"} <= anchors and not {"Jane", "Doe", "97201"} & anchors
    with pytest.raises(ValueError, match="version"):
        Taught.from_json({**data, "version": 99})


def test_a_crowded_page_is_taught_with_every_value_found_among_its_printed_words() -> None:
    # Teaching's time is measured in bench/examples.py, never asserted here: this checks that 65
    # lines of printed questions neither hide a value nor become one.
    canvas = FormCanvas(Placement())
    for row in range(60):
        canvas.words(f"Question {row} about the patient history and care", 40, 10 + 12 * row)
    doc = intake(Person(extra=[(f"Note line {i} about history", 40, 720 + i) for i in range(5)]))
    doc.elements.extend(canvas.doc.elements)
    taught = teach(doc, TRUTH)
    assert all(taught.fields[name] is not None for name in TRUTH)
    anchors = {a.text for a in taught.pages[0].anchors}
    assert "Question" in anchors and not {"Jane", "Doe"} & anchors


def test_values_inside_one_widget_keep_their_place_in_its_text() -> None:
    builder = _one_line(("City, State, ZIP", 40))
    builder.form_field("csz", "Portland, OR 97201", Box(170, 98, 400, 116))
    taught = teach(builder.doc, {"city": "Portland", "state": "OR", "zip": "97201"})
    city, state, zip_code = (taught.fields[n] for n in ("city", "state", "zip"))
    assert city is not None and city.part == [0, 2, 0, 0, 1, 2] and city.slot == [170.0, 98.0, 400.0, 116.0]
    assert state is not None and state.part == [1, 2, 0, 1, 1, 1]
    assert zip_code is not None and zip_code.part == [1, 2, 1, 0, 1, 0]
    assert Taught.from_json(taught.to_json()).fields["state"].part == [1, 2, 0, 1, 1, 1]  # type: ignore[union-attr]


def test_a_whole_widget_value_wins_over_a_part_of_another() -> None:
    builder = _one_line(("City", 40))
    builder.form_field("notes", "moved from Portland, OR last year", Box(100, 200, 400, 216))
    builder.form_field("city", "Portland", Box(100, 98, 300, 116))
    field = teach(builder.doc, {"city": "Portland"}).fields["city"]
    assert field is not None and field.part is None and field.bounding_box[1] == 98.0


def test_values_joined_on_one_printed_line_keep_their_place() -> None:
    builder = _one_line(("City/State/ZIP:", 40), ("Portland,", 170), ("OR", 250), ("97201", 272))
    taught = teach(builder.doc, {"city": "Portland", "state": "OR", "zip": "97201"})
    city = taught.fields["city"]
    assert city is not None and city.part == [0, 2, 0, 0, 1, 2]
