"""The patient's own doctor as forms present it (sections, tables, part captions, credentials),
and the other presentations issue 26's dev designs brought up (claim-form date parts, choices in
cells of their own, caption alternatives). Every input is made here for the rule it tests."""

from __future__ import annotations

import pytest

from extraction.fields.extract import extract_fields
from extraction.fields.reading.layout import cell_units, provider_sections
from extraction.fields.reading.names import doctor_titled, split_name
from extraction.fields.reading.normalize import caption_core, concept_of, is_label_like, label_tokens
from extraction.fields.reading.value_kinds import read_value
from extraction.fields.reading.vocabulary import field_spec
from extraction.fields.strategies.label_pairs import past_alternative
from extraction.fields.strategies.structure.combined import caption_order, split_by_caption
from extraction.fields.strategies.structure.date_parts import full_year, read_parts
from extraction.fields.strategies.structure.whose import other_provider
from extraction.formats.document import Box, Document
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit

FIELDS = ["first_name", "last_name", "provider_last_name"]


def values(doc: Document, fields: list[str] = FIELDS) -> dict[str, object]:
    return {name: r.value for name, r in extract_fields(doc, fields, file_name="t.pdf").items()}


def lines(rows: list[tuple[str, float, float, float]]) -> Document:
    """One line per row: text, x0, y0, x1 (14 pt tall)."""
    b = DocBuilder()
    for text, x0, y0, x1 in rows:
        b.line(text, x0, y0, x1, y0 + 14)
    return b.doc


# --- a doctor's section -------------------------------------------------------------------------


def test_plain_part_labels_in_a_doctors_section_are_the_doctors() -> None:
    doc = lines(
        [
            ("Patient Information", 40, 20, 200),
            ("Last Name: Ravensworth", 40, 50, 220),
            ("First Name: Cosima", 300, 50, 440),
            ("Primary Care Physician", 40, 90, 220),
            ("First Name: Cormac", 40, 120, 200),
            ("Last Name: Gallagher", 300, 120, 460),
        ]
    )
    assert values(doc) == {
        "first_name": "Cosima",
        "last_name": "Ravensworth",
        "provider_last_name": "Gallagher",
    }


def test_a_referring_doctors_section_yields_to_the_primary_ones() -> None:
    doc = lines(
        [
            ("Referring Physician", 40, 20, 200),
            ("Last Name: Fairweather", 40, 50, 220),
            ("Primary Care Physician", 40, 90, 220),
            ("Last Name: Gallagher", 40, 120, 220),
        ]
    )
    assert values(doc, ["provider_last_name"]) == {"provider_last_name": "Gallagher"}


def test_name_and_primary_labels_in_a_doctors_section() -> None:
    named = lines([("Physician Information", 40, 20, 220), ("Name: Dr. Cormac Gallagher", 40, 50, 260)])
    assert values(named, ["provider_last_name"]) == {"provider_last_name": "Gallagher"}
    primary = lines(
        [
            ("Your Doctors", 40, 20, 160),
            ("Primary: Cormac Gallagher, PA-C", 40, 50, 260),
            ("Referring: Ann Fairweather, MD", 300, 50, 520),
        ]
    )
    assert values(primary, ["provider_last_name"]) == {"provider_last_name": "Gallagher"}


def test_a_doctor_caption_beside_another_cell_opens_no_section() -> None:
    doc = lines([("PATIENT E-MAIL", 40, 20, 160), ("PRIMARY CARE PROVIDER", 300, 20, 480)])
    units = cell_units(doc)
    assert provider_sections(units) == {}
    alone = cell_units(lines([("PRIMARY CARE PROVIDER", 40, 20, 220), ("Name: X", 40, 50, 100)]))
    assert provider_sections(alone) == {1: "PRIMARY CARE PROVIDER"}


# --- labels naming a part of the doctor's name -------------------------------------------------


def test_a_doctors_part_label_is_never_the_patients() -> None:
    doc = lines(
        [("Physician Last Name: Gallagher", 40, 20, 260), ("Physician First Name: Cormac", 40, 50, 260)]
    )
    assert values(doc) == {"first_name": None, "last_name": None, "provider_last_name": "Gallagher"}


def test_a_caption_naming_the_doctor_gives_the_patient_nothing() -> None:
    doc = lines([("PCP (LAST FIRST): GALLAGHER CORMAC", 40, 20, 320)])
    assert values(doc) == {"first_name": None, "last_name": None, "provider_last_name": "GALLAGHER"}


def test_a_one_part_caption_holds_that_part_only() -> None:
    assert split_by_caption("Physician First Name", "Cormac").last is None
    assert split_by_caption("Physician First Name", "Cormac").first == "Cormac"
    assert split_by_caption("Last", "Van Dyke").last == "Van Dyke"


def test_family_names_a_part_only_as_family_name() -> None:
    assert field_spec("Family doctor").part is None
    assert caption_order("Family Doctor") == []
    assert caption_order("Family name, given name") == ["last", "first"]


# --- doctors' names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "last", "first"),
    [
        ("Cormac Gallagher, M.D.", "Gallagher", "Cormac"),
        ("Cormac Gallagher M.D", "Gallagher", "Cormac"),
        ("Cormac Gallagher (MD)", "Gallagher", "Cormac"),
        ("Gallagher, Cormac D.O.", "Gallagher", "Cormac"),
        ("Dr. Cormac Gallagher, Riverbend Family Medicine", "Gallagher", "Cormac"),
        ("Dr. Cormac Gallagher (208) 555-0134", "Gallagher", "Cormac"),
        ("Van Dyke, Anna Maria MD", "Van Dyke", "Anna"),
        ("J.R. Smith", "Smith", "J."),
    ],
)
def test_doctors_names_with_credentials_practices_and_phones(text: str, last: str, first: str) -> None:
    name = split_name(text)
    assert name is not None and (name.last, name.first) == (last, first)


def test_no_name_holds_a_colon() -> None:
    assert split_name("Primary: Cormac Gallagher") is None


def test_a_doctors_title_marks_a_doctors_name() -> None:
    assert doctor_titled("Dr. Cormac Gallagher") and doctor_titled("DR GALLAGHER")
    assert not doctor_titled("Drew Gallagher")


def test_a_text_value_keeps_its_own_brackets() -> None:
    reading = read_value("text", "Leander Ravensworth (MD)")
    assert reading is not None and reading.value == "Leander Ravensworth (MD)"
    assert read_value("text", "Ravensworth (MD") is None


def test_doctors_row_headings_and_one_word_kinds_are_no_names() -> None:
    doc = lines(
        [
            ("Doctor", 40, 20, 120),
            ("Name", 200, 20, 260),
            ("Dentist", 40, 40, 120),
            ("Ann Fairweather (DDS)", 200, 40, 380),
            ("Primary care", 40, 60, 140),
            ("Leander Ravensworth (MD)", 200, 60, 380),
        ]
    )
    assert values(doc, ["provider_last_name"]) == {"provider_last_name": "Ravensworth"}


def test_names_of_the_patients_own_doctor_and_of_others() -> None:
    for label in ("General Practitioner", "GP", "Family Physician", "Primary Care Doctor", "Pediatrician"):
        assert concept_of(label) == "provider"
    for label in ("Dentist", "Specialist physician", "Previous doctor", "Referring Dr."):
        assert other_provider(label)
    assert not other_provider("Primary Care Physician")


def test_a_doctors_titled_name_is_not_the_patients() -> None:
    doc = lines([("Name", 40, 20, 100), ("Dr. Cormac Gallagher", 40, 40, 200)])
    assert values(doc, ["first_name", "last_name"]) == {"first_name": None, "last_name": None}


# --- other presentations -----------------------------------------------------------------------


def test_a_name_part_holds_no_digits_beside_other_words() -> None:
    doc = lines([("Middle Name", 40, 20, 140), ("Work Phone 775.488.3343", 200, 20, 380)])
    assert values(doc, ["middle_name"]) == {"middle_name": None}


def test_choice_options_in_cells_after_the_label() -> None:
    doc = lines([("Sex at birth: ☐", 40, 20, 150), ("Male", 155, 20, 185), ("X Female", 195, 20, 250)])
    assert values(doc, ["gender"]) == {"gender": "Female"}


def test_a_claim_forms_birth_date_in_parts_and_its_sex_mid_cell() -> None:
    doc = lines([("3. PATIENT'S BIRTH DATE  MM  DD  YY    SEX 08  20  1960 ☐ M ☒ F", 40, 20, 400)])
    assert values(doc, ["dob", "gender"]) == {"dob": "1960-08-20", "gender": "Female"}


def test_date_parts_in_the_captions_order() -> None:
    assert read_parts(["DD", "MM", "YYYY"], ("20", "08", "1960")) == "1960-08-20"
    assert read_parts(["MM", "DD", "YY"], ("13", "20", "60")) is None
    assert full_year(60) == 1960 and full_year(5) == 2005 and full_year(1999) == 1999


def test_a_captions_alternative_is_skipped() -> None:
    assert past_alternative("OR PROGRAM NAME CASCADE MUTUAL") == "CASCADE MUTUAL"
    # "OR" alone is Oregon, and an alternative without a label word leaves the text as it is.
    assert past_alternative("OR") == "OR"
    assert past_alternative("OR OTHER SOURCE X") == "OR OTHER SOURCE X"


def test_labels_possessives_and_phrases() -> None:
    assert label_tokens("INSURED'S I.D. NUMBER") == ("insured", "s", "id", "number")
    assert label_tokens("S T A T E") == ("state",)
    assert concept_of("INSURED'S POLICY GROUP OR FECA NUMBER") == "group_number"
    assert concept_of("Insurance Company Name") == "insurer"


def test_a_numbered_caption_cell_is_no_value_of_the_cell_before() -> None:
    b = DocBuilder()
    b.table([["11. INSURED'S POLICY NUMBER", "11c. INSURANCE PLAN NAME"]], Box(40, 20, 500, 60))
    assert values(b.doc, ["policy_number"]) == {"policy_number": None}


def test_a_bracketed_hint_is_part_of_its_label() -> None:
    doc = lines(
        [
            ("Date of birth (mm/dd/yyyy)", 40, 20, 200),
            ("03/20/1991", 260, 20, 330),
            ("Sex (M/F)", 40, 40, 110),
        ]
    )
    assert values(doc, ["dob"]) == {"dob": "1991-03-20"}


def test_the_next_caption_along_a_row_of_captions_is_no_value() -> None:
    doc = lines(
        [
            ("Ravensworth, Cosima", 42, 20, 180),
            ("03/20/1991", 302, 20, 372),
            ("Name (Last, First)", 40, 36, 170),
            ("Date of Birth (MM/DD/YYYY)", 300, 36, 480),
        ]
    )
    assert values(doc, ["last_name", "first_name", "dob"]) == {
        "last_name": "Ravensworth",
        "first_name": "Cosima",
        "dob": "1991-03-20",
    }


def test_an_option_word_under_a_value_captions_nothing() -> None:
    doc = lines(
        [
            ("First name", 40, 20, 120),
            ("Cosima", 250, 20, 300),
            ("Date of birth", 40, 60, 140),
            ("August 18, 1984", 250, 60, 340),
            ("Sex", 40, 78, 70),
            ("Female", 250, 78, 300),
        ]
    )
    assert values(doc, ["dob"]) == {"dob": "1984-08-18"}


def test_a_combined_caption_and_an_options_caption_under_their_values() -> None:
    doc = lines(
        [
            ("SZYMANSKI, FENWICK", 42, 20, 200),
            ("M", 380, 20, 390),
            ("Name (Last, First)", 40, 36, 160),
            ("Sex (M/F)", 378, 36, 420),
        ]
    )
    assert values(doc, ["last_name", "first_name", "gender"]) == {
        "last_name": "SZYMANSKI",
        "first_name": "FENWICK",
        "gender": "Male",
    }


def test_a_closing_hint_leaves_a_label_a_label() -> None:
    assert is_label_like("Sex (M/F)") and is_label_like("Date of birth (mm/dd/yyyy)")
    assert not is_label_like("Humana Gold Plus (HMO)")


def test_a_label_and_its_value_beside_another_is_no_section_heading() -> None:
    doc = lines(
        [
            ("PATIENT INFORMATION", 40, 10, 200),
            ("State NV", 140, 40, 200),
            ("Subscriber Marisol Trevelyan", 360, 40, 560),
            ("Zip Code 89501", 120, 70, 220),
        ]
    )
    assert values(doc, ["zip"]) == {"zip": "89501"}


def test_the_word_before_a_label_says_whose_value_it_is() -> None:
    doc = lines([("Birthdate: 12/24/1989", 40, 20, 200), ("Subscriber DOB Jan 7, 1983", 40, 50, 260)])
    assert values(doc, ["dob"]) == {"dob": "1989-12-24"}
    alone = lines([("Subscriber DOB Jan 7, 1983", 40, 50, 260)])
    assert values(alone, ["dob"]) == {"dob": None}


def test_a_caption_hugging_its_value_in_tightly_packed_rows() -> None:
    doc = lines(
        [
            ("NY", 400, 148, 414),
            ("State", 398, 161, 420),
            ("518.927.1438", 392, 174, 442),
            ("Cell Phone", 390, 187, 420),
        ]
    )
    # 4 pt up to the caption above, 1 pt down to its own: the phone is the caption's under it.
    doc.elements[1].box = doc.elements[1].lines[0].box = Box(398, 161, 420, 170)
    doc.elements[2].box = doc.elements[2].lines[0].box = Box(392, 174, 442, 186)
    doc.elements[3].box = doc.elements[3].lines[0].box = Box(390, 187, 420, 196)
    assert values(doc, ["cell_phone"]) == {"cell_phone": "518.927.1438"}


def test_digits_read_for_letters_inside_a_label_word() -> None:
    assert label_tokens("Phone (Cel1)") == ("phone", "cell")
    assert concept_of("Zip C0de") == "zip"


def test_the_word_before_a_doctors_label_says_which_doctor() -> None:
    doc = lines(
        [
            ("Primary Care Provider: O'DOWD, CALLUM MD", 40, 20, 300),
            ("Referring Provider: ABERNATHY, RAFFERTY MD", 40, 40, 300),
        ]
    )
    assert values(doc, ["provider_last_name"]) == {"provider_last_name": "O'DOWD"}


def test_coverage_after_insurance_ends_a_heading() -> None:
    doc = lines([("Insurance Coverage", 40, 20, 200), ("Insurance Company: Cascade Mutual", 40, 50, 300)])
    assert values(doc, ["ins_name"]) == {"ins_name": "Cascade Mutual"}


def test_the_next_numbered_caption_along_a_row_is_no_value() -> None:
    doc = lines(
        [
            ("2. PATIENT'S NAME (Last Name, First Name)", 50, 100, 260),
            ("4. INSURED'S NAME (Last Name, First Name)", 300, 100, 520),
            ("QUILLFEATHER, WILHELMINA", 60, 114, 220),
            ("PEMBERTON, VESNA", 310, 114, 420),
        ]
    )
    assert values(doc, ["last_name", "first_name"]) == {
        "last_name": "QUILLFEATHER",
        "first_name": "WILHELMINA",
    }


def test_date_parts_on_the_line_under_their_caption() -> None:
    doc = lines([("3. PATIENT'S BIRTH DATE MM DD YY", 50, 130, 180), ("05 15 2001", 60, 144, 110)])
    assert values(doc, ["dob"]) == {"dob": "2001-05-15"}


def test_a_numbered_caption_with_an_alternative_over_its_value() -> None:
    assert caption_core("11c. INSURANCE PLAN NAME OR PROGRAM NAME") == "INSURANCE PLAN NAME"
    assert is_label_like("1a. INSURED'S I.D. NUMBER")
    doc = lines(
        [
            ("1. MEDICARE MEDICAID GROUP HEALTH PLAN", 50, 80, 200),
            ("1a. INSURED'S I.D. NUMBER", 306, 80, 392),
            ("11c. INSURANCE PLAN NAME OR PROGRAM NAME", 306, 237, 468),
            ("HARBORVIEW HEALTH", 311, 251, 425),
        ]
    )
    assert values(doc, ["ins_name"]) == {"ins_name": "HARBORVIEW HEALTH"}


def test_the_rest_of_a_forms_title_is_no_value() -> None:
    doc = lines([("HEALTH INSURANCE CLAIM FORM", 50, 40, 300)])
    assert values(doc, ["ins_name"]) == {"ins_name": None}


def test_ocr_repair_never_lengthens_a_word_by_two_letters() -> None:
    assert label_tokens("Reno") == ("reno",)
    assert label_tokens("TOTAI") == ("total",)


def test_a_state_code_that_is_a_label_word_is_the_state() -> None:
    doc = lines([("City: Boise", 40, 20, 140), ("State: ID", 200, 20, 280), ("City: Reno", 40, 60, 140)])
    assert values(doc, ["state"]) == {"state": "ID"}
    assert values(lines([("City: Reno", 40, 60, 140)]), ["city"]) == {"city": "Reno"}


def test_an_alternatives_shared_last_word_stays_with_the_caption() -> None:
    assert caption_core("11. INSURED'S POLICY GROUP OR FECA NUMBER") == "INSURED'S POLICY GROUP NUMBER"
    assert caption_core("Phone or Email") == "Phone"
    assert caption_core("State OR") == "State OR"


def test_a_numbered_captions_number_is_no_value_of_the_caption_before() -> None:
    doc = lines(
        [
            ("1a. INSURED'S I.D. NUMBER", 306, 80, 392),
            ("AEN3090769093", 315, 96, 384),
            ("11. INSURED'S POLICY GROUP OR FECA NUMBER", 50, 240, 210),
            ("11c. INSURANCE PLAN NAME OR PROGRAM NAME CASCADE MUTUAL", 306, 240, 520),
        ]
    )
    assert values(doc, ["policy_number", "group_number"]) == {
        "policy_number": "AEN3090769093",
        "group_number": None,
    }
