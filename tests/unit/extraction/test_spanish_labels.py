"""A US clinic's form in Spanish: its labels name the fields the English ones do."""

from __future__ import annotations

import pytest

from extraction.fields.reading.normalize import SYNONYM_SCORE, concept_of, label_tokens, match_label
from extraction.fields.reading.vocabulary import is_other_party, read_gender
from extraction.fields.strategies.structure.whose import other_provider
from tests.unit.extraction.doc_builders import DocBuilder, values

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("label", "concept"),
    [
        ("Apellido(s)", "last_name"),
        ("Segundo nombre", "middle_name"),
        ("Fecha de nacimiento (mm/dd/aaaa)", "date_of_birth"),
        ("Teléfono celular", "mobile"),
        ("Teléfono de casa", "home_phone"),
        ("Correo electrónico", "email"),
        ("Código postal", "zip"),
        ("Estado", "state"),
        ("Estado civil", "marital_status"),
        ("Compañía de seguro", "insurer"),
        ("Número de póliza", "policy_id"),
        ("Médico de cabecera", "provider"),
    ],
)
def test_spanish_labels_name_their_fields(label: str, concept: str) -> None:
    assert concept_of(label) == concept


def test_words_that_name_nothing_leave_a_synonym_a_synonym() -> None:
    assert match_label("last_name", "Apellido(s)") == SYNONYM_SCORE
    assert match_label("dob", "Fecha de nacimiento") >= SYNONYM_SCORE


def test_a_surname_a_letter_or_two_longer_than_a_short_label_word_is_no_label() -> None:
    assert label_tokens("Ibáñez") == ("ibanez",)
    assert label_tokens("TOTAI") == ("total",)


def test_whose_value_it_is_in_spanish() -> None:
    assert is_other_party("Contacto de emergencia") and is_other_party("Titular de la póliza")
    assert other_provider("Médico que lo refirió")
    assert read_gender("Femenino") == "Female" and read_gender("masculino") == "Male"


def test_a_spanish_form_reads_as_an_english_one() -> None:
    b = DocBuilder(612, 792)
    b.line("Apellido(s): Ibáñez", 50, 80, 250, 90)
    b.line("Nombre: Araceli", 300, 80, 450, 90)
    b.line("Fecha de nacimiento: 04/04/2004", 50, 100, 300, 110)
    b.line("Teléfono celular: (402) 555-0187", 50, 120, 300, 130)
    b.line("Médico que lo refirió: Dr. Ana Rosenthal", 50, 140, 350, 150)
    b.line("Médico de cabecera: Dr. Luis Drummond", 50, 160, 350, 170)
    b.line("Contacto de emergencia: Rosa Ibáñez (402) 555-0999", 50, 180, 400, 190)
    assert values(b, ["last_name", "first_name", "dob", "cell_phone", "provider_last_name"]) == {
        "last_name": "Ibáñez",
        "first_name": "Araceli",
        "dob": "2004-04-04",
        "cell_phone": "(402) 555-0187",
        "provider_last_name": "Drummond",
    }
