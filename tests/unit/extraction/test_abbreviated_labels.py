"""Labels a form shortens to fit (a fax cover's or a registration print-out's): "PRIMARY INS",
"REF PHYSICIAN", "EMERG CONTACT"."""

from __future__ import annotations

import pytest

from extraction.fields.reading.normalize import concept_of
from extraction.fields.reading.vocabulary import is_other_party
from extraction.fields.strategies.structure.whose import other_provider
from tests.unit.extraction.doc_builders import DocBuilder, values

pytestmark = pytest.mark.unit


def test_shortened_labels_name_what_their_long_forms_do() -> None:
    assert concept_of("PRIMARY INS") == "insurer"
    assert concept_of("Ins Carrier") == "insurer"
    assert concept_of("EMERG CONTACT") == "emergency_contact"
    assert is_other_party("EMERG CONTACT")
    assert other_provider("REF PHYSICIAN") and other_provider("Ref. MD")
    assert not other_provider("PRIMARY CARE") and not other_provider("Preferred Physician")


def test_a_shortened_insurer_label_ends_where_its_value_begins() -> None:
    b = DocBuilder(612, 792)
    b.line("INSURANCE", 50, 60, 150, 72)
    b.line("PRIMARY INS: PRAIRIE SHIELD", 50, 90, 250, 100)
    b.line("ID #: FA751795005", 50, 110, 300, 120)
    assert values(b, ["ins_name", "policy_number"]) == {
        "ins_name": "PRAIRIE SHIELD",
        "policy_number": "FA751795005",
    }
