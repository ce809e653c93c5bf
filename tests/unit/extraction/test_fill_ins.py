"""Fill-in rules: a value typed between two runs of underscores, or laid over a run as text of its
own. Every input is made here for the rule it tests."""

from __future__ import annotations

import pytest

from extraction.fields.extract import extract_fields
from extraction.fields.reading.fill_ins import closing_cuts, enclosed_cells
from extraction.fields.reading.layout import cell_units, leaders_as_colons
from extraction.formats.document import Box, Document, Word
from tests.unit.extraction.doc_builders import DocBuilder, word_line

pytestmark = pytest.mark.unit


def values(doc: Document, fields: list[str]) -> dict[str, object]:
    return {name: r.value for name, r in extract_fields(doc, fields, file_name="t.pdf").items()}


def test_the_run_after_a_typed_value_closes_it() -> None:
    assert leaders_as_colons("Surname ___Quillby___") == "Surname: Quillby"
    # A blank rule after a label is still the colon it stands for.
    assert leaders_as_colons("Surname ______") == "Surname:"
    assert closing_cuts("A ___b___ C ___d___") == [9, 19]
    assert closing_cuts("A ___ b") == []


def test_a_cut_inside_a_word_splits_it() -> None:
    words = [
        Word(t, Box(i * 60, 0, i * 60 + 6 * len(t), 10)) for i, t in enumerate(["Kin", "__Mia", "Lund__Tel"])
    ]
    assert [[w.text for w in g] for g in enclosed_cells(words)] == [["Kin", "__Mia", "Lund__"], ["Tel"]]


def test_values_typed_between_runs_read_cell_by_cell() -> None:
    b = DocBuilder()
    # Close together: no gap parts the cells, only the runs closing each value do.
    word_line(b, 100, [("First", 40), ("Name", 76), ("___Odile___", 104), ("Middle", 176), ("Name", 218),
                       ("___Brann___", 246), ("Last", 318), ("Name", 346), ("___Vexley___", 374)])  # fmt: skip
    assert [u.text for u in cell_units(b.doc)] == [
        "First Name: Odile",
        "Middle Name: Brann",
        "Last Name: Vexley",
    ]
    assert values(b.doc, ["first_name", "middle_name", "last_name"]) == {
        "first_name": "Odile",
        "middle_name": "Brann",
        "last_name": "Vexley",
    }


def test_a_value_laid_over_a_rule_reads_after_its_label() -> None:
    b = DocBuilder()
    word_line(b, 100, [("Last", 40), ("Name", 70), ("__________________", 100), ("City", 220),
                       ("________________", 250)])  # fmt: skip
    # The values as an engine reads a flattened form: one line of their own, a little higher.
    word_line(b, 98.5, [("Vexley", 106), ("Harlow", 256)])
    assert [u.text for u in cell_units(b.doc)] == ["Last Name: Vexley", "City: Harlow"]
    assert values(b.doc, ["last_name", "city"]) == {"last_name": "Vexley", "city": "Harlow"}


def test_a_line_only_partly_over_a_rule_stays_apart() -> None:
    b = DocBuilder()
    word_line(b, 100, [("Last", 40), ("Name", 70), ("__________", 100)])
    word_line(b, 98.5, [("Vexley", 106), ("Harlow", 300)])
    assert [u.text for u in cell_units(b.doc)] == ["Last Name:", "Vexley", "Harlow"]


def test_underscores_ocr_left_at_a_values_ends_are_dropped() -> None:
    assert leaders_as_colons("_Odile_") == "Odile"
    assert leaders_as_colons("odile_vexley@post.example") == "odile_vexley@post.example"
    b = DocBuilder()
    b.line("First Name", 40, 100, 100, 112)
    b.line("_Odile", 130, 100, 170, 112)
    assert values(b.doc, ["first_name"]) == {"first_name": "Odile"}
