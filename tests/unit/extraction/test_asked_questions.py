"""Labels printed as whole questions (a patient portal's print-out) read as the labels they ask for."""

from __future__ import annotations

import pytest

from extraction.fields.reading.asked_questions import asked_as_label
from extraction.fields.reading.normalize import concept_of
from extraction.fields.reading.vocabulary import is_other_party
from tests.unit.extraction.doc_builders import DocBuilder, values

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("printed", "read"),
    [
        ("What is your legal first name?", "legal first name:"),
        ("When were you born? 3/14/1979", "born: 3/14/1979"),
        ("Do you have a middle name? If so, what is it? Wren", "middle name: Wren"),
        ("In which city do you live?", "city:"),
        ("What is the best mobile number to reach you?", "mobile number:"),
        ("What e-mail address should we use to contact you?", "e-mail address:"),
        ("Who is your usual doctor?", "doctor:"),
        ("What city, state and ZIP code do you live in?", "city / state/ZIP code:"),
    ],
)
def test_a_question_reads_as_the_label_it_asks_for(printed: str, read: str) -> None:
    assert asked_as_label(printed) == read


@pytest.mark.parametrize(
    "printed",
    ["Is this a reformulation?", "Why?", "Who referred you to our clinic?", "Name of Sponsor", "Dose (mg)"],
)
def test_other_lines_stay_as_printed(printed: str) -> None:
    assert asked_as_label(printed) == printed


def test_a_portal_print_out_reads_its_answers_beside_and_under_the_questions() -> None:
    b = DocBuilder(612, 792)
    b.line("About You", 50, 60, 120, 72)
    b.line("What is your first name?", 50, 90, 190, 100)
    b.line("Tamsin", 60, 103, 100, 113)
    b.line("What is your date of birth? 07/02/1991", 50, 125, 280, 135)
    b.line("Contact Information", 50, 160, 170, 172)
    b.line("What is your cell phone number?", 50, 190, 230, 200)
    b.line("(503) 555-0143", 60, 203, 140, 213)
    b.line("What e-mail address should we use to contact you?", 50, 225, 330, 235)
    b.line("tamsin.q@example.org", 60, 238, 180, 248)
    assert values(b, ["first_name", "dob", "cell_phone", "email"]) == {
        "first_name": "Tamsin",
        "dob": "1991-07-02",
        "cell_phone": "(503) 555-0143",
        "email": "tamsin.q@example.org",
    }


def test_contact_information_heads_the_patients_own_details() -> None:
    assert not is_other_party("Contact Information")
    assert not is_other_party("CONTACT DETAILS")
    assert is_other_party("Emergency Contact")
    assert is_other_party("Emergency Contact Information")
    assert is_other_party("Contact Person")


def test_a_cell_phone_number_is_a_mobile_not_any_phone() -> None:
    assert concept_of("Cell Phone Number") == "mobile"
    assert concept_of("Mobile Phone Number") == "mobile"
    assert concept_of("Phone Number") == "phone"
