"""Intake-form extraction: vocabulary, names, check boxes, validators, layout pairing, dates,
calibration. Pure logic on hand-built documents."""

from __future__ import annotations

from datetime import date

import pytest

from extraction.fields import FieldResult, extract_fields, iso_dates
from extraction.fields.reading.choices import marked_option
from extraction.fields.reading.layout import cells
from extraction.fields.reading.names import split_name
from extraction.fields.reading.normalize import match_label
from extraction.fields.reading.vocabulary import (
    GENDER_OPTIONS,
    address_part,
    field_spec,
    valid_birth_date,
    valid_identifier,
    valid_phone,
    valid_state,
    valid_zip,
)
from extraction.formats.document import Box, Document, Element, Line, Word
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit


def extract(doc: Document, *names: str, order: str | None = None) -> dict[str, FieldResult]:
    return extract_fields(doc, list(names), file_name="doc.pdf", date_order=order)  # type: ignore[arg-type]


def words_line(b: DocBuilder, parts: list[tuple[str, float]], y: float, *, size: float = 10.0) -> Element:
    """One visual line whose words stand where `parts` ((text, x0)) put them."""
    words = []
    for text, x0 in parts:
        for k, word in enumerate(text.split()):
            start = x0 + k * 0.6 * size * (len(word) + 1)
            words.append(Word(word, Box(start, y, start + 0.5 * size * len(word), y + size)))
    box = Box(words[0].box.x0, y, words[-1].box.x1, y + size)
    text = " ".join(w.text for w in words)
    element = Element(id=f"e{len(b.doc.elements)}", type="text", page=1, text=text, box=box)
    element.lines = [Line(text, box, 1.0, words)]
    b.doc.elements.append(element)
    return element


# --- vocabulary ------------------------------------------------------------------------------


def test_field_names_map_to_concepts_owners_and_name_parts() -> None:
    assert field_spec("first_name").owner == "patient"
    assert field_spec("first_name").part == "first"
    provider = field_spec("provider_last_name")
    assert (provider.owner, provider.part, provider.whole_name) == ("provider", "last", "provider")
    assert field_spec("ins_name").concept == "insurer"
    assert field_spec("policy_number").concept == "policy_id"
    assert field_spec("cell_phone").concept == "mobile"
    assert field_spec("emergency_contact_phone").owner is None


@pytest.mark.parametrize(
    ("field", "label", "matches"),
    [
        ("cell_phone", "Cell #", True),
        ("cell_phone", "Mobile Phone", True),
        ("cell_phone", "Home Phone", False),
        ("cell_phone", "Phone (Work)", False),
        ("policy_number", "Member ID", True),
        ("policy_number", "Subscriber ID", True),
        ("group_number", "Grp #", True),
        ("ins_name", "Insurance Carrier", True),
        ("ins_name", "Insured's Name", False),
        ("address_1", "Home Address", True),
        ("state", "City/State/Zip", True),
        ("dob", "Birth Date", True),
        ("FAX NUMBER", "Fax", True),
        ("DATE FILED", "Date Filed", True),
    ],
)
def test_label_variants(field: str, label: str, matches: bool) -> None:
    assert (match_label(field, label) >= 0.75) is matches


def test_validators() -> None:
    assert valid_zip("80210") and valid_zip("80210-1234") and not valid_zip("8021") and not valid_zip("CODE")
    assert valid_state("CO") and valid_state("Colorado") and not valid_state("XY")
    assert valid_birth_date("2001-12-03", date(2025, 4, 29))
    assert not valid_birth_date("2025-04-29", date(2025, 4, 29))
    assert not valid_birth_date("1850-01-01", date(2025, 4, 29))
    assert (
        valid_identifier("XSD050844695")
        and valid_identifier("8KN8-WY9-MJ09")
        and not valid_identifier("Self")
    )
    assert valid_phone("(720) 668-1655") and valid_phone("1-877-380-4637") and not valid_phone("668-1655")
    assert address_part("Cambridge, MA 02139", "city") == "Cambridge"
    assert address_part("Cambridge, MA 02139", "zip") == "02139"
    assert address_part("Cambridge, ZZ 02139", "state") is None


def test_person_names_split_in_either_order_without_titles_or_credentials() -> None:
    name = split_name("Washington, Wei")
    assert name is not None and (name.first, name.last) == ("Wei", "Washington")
    name = split_name("Dr. Michael O'Neill, MD")
    assert name is not None and (name.first, name.last) == ("Michael", "O'Neill")
    name = split_name("L. Fitzgerald-Hayes, PA-C")
    assert name is not None and name.last == "Fitzgerald-Hayes"
    name = split_name("Elizabeth Louise De La Cruz")
    assert name is not None and (name.first, name.middle, name.last) == ("Elizabeth", "Louise", "De La Cruz")
    assert split_name("2159 Washington Dr") is None
    # As OCR reads them: a glued initial or title, a spaced-out credential.
    for read in ("Dr.Abernathy", "A.Abernathy", "M. Abernathy,M D"):
        name = split_name(read)
        assert name is not None and name.last == "Abernathy", read


@pytest.mark.parametrize(
    ("text", "chosen"),
    [
        ("X Male Female", "Male"),
        ("[ ] Male [X] Female", "Female"),
        ("\u2610 Male \u2612 Female \u2610 Other", "Female"),
        ("Female", "Female"),
        ("[ ] Male [ ] Female", None),
        ("Male Female", None),
        # Boxes after their options.
        ("Male \u2612 Female \u2610", "Male"),
        ("Male [ ] Female [X]", "Female"),
        ("Male Female X", None),
    ],
)
def test_check_boxes_written_as_text(text: str, chosen: str | None) -> None:
    assert marked_option(text, GENDER_OPTIONS) == chosen


# --- layout and pairing ------------------------------------------------------------------------


def test_words_far_apart_make_cells() -> None:
    words = [Word("First:", Box(50, 0, 80, 10)), Word("Anthony", Box(84, 0, 120, 10))]
    words += [Word("Middle:", Box(230, 0, 265, 10)), Word("Thomas", Box(269, 0, 300, 10))]
    assert [[w.text for w in group] for group in cells(words, 10)] == [
        ["First:", "Anthony"],
        ["Middle:", "Thomas"],
    ]


def test_labels_over_values_pair_by_column() -> None:
    b = DocBuilder(612, 792)
    words_line(b, [("FIRST NAME", 50), ("MIDDLE NAME", 240), ("PATIENT LAST NAME", 380)], 160, size=7)
    words_line(b, [("Steven", 52), ("Edward", 242), ("White", 382)], 170)
    result = extract(b.doc, "first_name", "middle_name", "last_name")
    assert [result[n].value for n in ("first_name", "middle_name", "last_name")] == [
        "Steven",
        "Edward",
        "White",
    ]


def test_empty_box_under_a_label_is_null_not_the_next_value() -> None:
    b = DocBuilder(612, 792)
    b.table(
        [["First Name", "Wei", "MI", ""], ["Family Name", "Smith", "Sex", "Male"]], Box(50, 100, 560, 140)
    )
    result = extract(b.doc, "first_name", "middle_name", "last_name", "gender")
    assert result["first_name"].value == "Wei"
    assert result["middle_name"].value is None
    assert result["last_name"].value == "Smith"
    assert result["gender"].value == "Male"


def test_values_of_other_people_are_not_the_patients() -> None:
    b = DocBuilder(612, 792)
    b.line("Phone (303) 829-7888", 200, 60)
    b.line("Date of Birth: 12/03/2001", 50, 120)
    b.line("Emergency Contact Information", 50, 160)
    b.line("Name: Zoe Harper-Nguyen", 50, 180)
    b.line("Contact Phone: (303) 328-2861", 300, 180)
    b.line("Insurance Information", 50, 220)
    b.line("Insured's Name: Christopher Harper-Nguyen", 50, 240)
    b.line("Insured's Date of Birth: April 17, 1976", 50, 260)
    b.line("PCP: Michael O'Neill, MD", 50, 280)
    result = extract(b.doc, "first_name", "last_name", "cell_phone", "dob", "provider_last_name")
    assert result["first_name"].value is None
    assert result["last_name"].value is None
    assert result["cell_phone"].value is None
    assert result["dob"].value == "2001-12-03"
    assert result["provider_last_name"].value == "O'Neill"


def test_generic_widget_names_are_known_by_their_printed_labels() -> None:
    b = DocBuilder(612, 792)
    b.line("FAMILY NAME", 50, 100, 110, 108)
    b.form_field("Text1", "Van Dyke", Box(50, 110, 250, 124))
    b.line("MOBILE", 300, 100, 340, 108)
    b.form_field("Text2", "(860) 407-1782", Box(300, 110, 500, 124))
    b.line("Male", 80, 150, 100, 160)
    b.form_field("Check Box1", "true", Box(66, 150, 76, 160))
    b.line("Female", 130, 150, 160, 160)
    b.form_field("Check Box2", "false", Box(116, 150, 126, 160))
    result = extract(b.doc, "last_name", "cell_phone", "gender")
    assert result["last_name"].value == "Van Dyke"
    assert result["cell_phone"].value == "(860) 407-1782"
    assert result["gender"].value == "Male"


def test_unknown_field_names_fall_back_to_generic_labels() -> None:
    b = DocBuilder(612, 792)
    b.line("FAX NUMBER: (303) 475-3948", 50, 100)
    b.line("DATE FILED: 03/04/2024", 50, 120)
    result = extract(b.doc, "FAX NUMBER", "DATE FILED")
    assert result["FAX NUMBER"].value == "(303) 475-3948"
    assert result["DATE FILED"].value == "2024-03-04"


# --- dates -----------------------------------------------------------------------------------


def test_date_fields_in_both_orders_come_back_as_iso() -> None:
    b = DocBuilder(612, 792)
    b.line("Date of Birth: 12/03/2001", 50, 100)
    assert extract(b.doc, "dob")["dob"].value == "2001-12-03"
    assert extract(b.doc, "dob", order="DMY")["dob"].value == "2001-03-12"
    b.form_field("pt_dob", "April 6, 1977")
    form = DocBuilder(612, 792)
    form.form_field("pt_dob", "April 6, 1977")
    found = extract(form.doc, "dob")["dob"]
    assert (found.value, found.raw) == ("1977-04-06", "April 6, 1977")


def test_a_documents_own_unambiguous_dates_set_the_order() -> None:
    b = DocBuilder(612, 792)
    b.line("Date: 25/12/2018", 50, 100)
    b.line("Due date: 03/01/2019", 50, 120)
    assert extract(b.doc, "due_date")["due_date"].value == "2019-01-03"
    # An order the request or the setting states is used as given.
    assert extract(b.doc, "due_date", order="MDY")["due_date"].value == "2019-03-01"


def test_a_documents_locale_sets_the_order_when_its_dates_do_not() -> None:
    receipt = DocBuilder(612, 792)
    receipt.line("Jalan Besar, 81300 Johor", 50, 80)
    receipt.line("Date: 09/01/2019", 50, 100)
    receipt.line("TOTAL RM 12.50", 50, 120)
    assert extract(receipt.doc, "date")["date"].value == "2019-01-09"
    assert extract(receipt.doc, "date", order="MDY")["date"].value == "2019-09-01"
    form = DocBuilder(612, 792)
    form.line("Springfield, IL 62704", 50, 80)
    form.line("Date: 09/01/2019", 50, 100)
    form.line("Copay $ 20.00", 50, 120)
    assert extract(form.doc, "date")["date"].value == "2019-09-01"


def test_model_dates_are_rewritten_as_iso_keeping_the_raw_text() -> None:
    found = {"dob": FieldResult("04/06/1977", 0.8), "name": FieldResult("April", 0.8)}
    out = iso_dates(found, "MDY")
    assert out["dob"].value == "1977-04-06" and out["dob"].raw == "04/06/1977"
    assert out["name"].value == "April"
    assert iso_dates(found, "DMY")["dob"].value == "1977-06-04"


# --- scans -----------------------------------------------------------------------------------


def test_check_boxes_are_read_from_pixels_and_join_their_line() -> None:
    from PIL import Image, ImageDraw

    from extraction.formats.checkboxes import EMPTY, TICKED, with_checkboxes
    from extraction.formats.ocr import OcrLine

    image = Image.new("RGB", (400, 60), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((100, 20, 120, 40), outline="black", width=2)
    draw.line((104, 24, 116, 36), fill="black", width=2)
    draw.line((104, 36, 116, 24), fill="black", width=2)
    draw.rectangle((200, 20, 220, 40), outline="black", width=2)
    line = OcrLine(
        "Sex: Male Female",
        ((40.0, 18.0), (300.0, 18.0), (300.0, 42.0), (40.0, 42.0)),
        0.95,
        (
            ("Sex:", Box(40, 18, 80, 42)),
            ("Male", Box(125, 18, 170, 42)),
            ("Female", Box(225, 18, 290, 42)),
        ),
    )
    (read,) = with_checkboxes(image, [line])
    assert read.text == f"Sex: {TICKED} Male {EMPTY} Female"
    assert marked_option(read.text.split(":", 1)[1], GENDER_OPTIONS) == "Male"


def test_ocr_slips_in_labels_and_emails() -> None:
    from extraction.fields.reading.value_kinds import read_value

    assert match_label("dob", "D ate of Birth") >= 0.9
    assert match_label("email", "Em ailAddress") >= 0.9
    reading = read_value("email", "washington.wei @yahoo.com")
    assert reading is not None and reading.value == "washington.wei@yahoo.com"


def test_a_clause_after_a_label_word_is_no_value() -> None:
    b = DocBuilder(612, 792)
    b.line(
        "Party: shall include both the disclosing party and the receiving party without prejudice", 50, 100
    )
    assert extract(b.doc, "party")["party"].value is None
    short = DocBuilder(612, 792)
    short.line("Party: Acme Widgets Inc.", 50, 100)
    assert extract(short.doc, "party")["party"].value == "Acme Widgets Inc"


def test_prose_is_told_from_values() -> None:
    from extraction.fields.reading.vocabulary import is_prose

    assert is_prose("This Agreement may be executed in one or more counterparts, each of which")
    assert not is_prose("No. 343, Jalan Kurau, Sungai Rengit, 81620 Pengerang, Johor.")
    assert not is_prose("two (2) years")
