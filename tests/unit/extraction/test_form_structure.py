"""Form structure before fields: combs, leaders, captions under a line, drawn choice marks,
combined names split by their caption, a print-out's banner, and whose value a label names.
Every input is made here for the rule it tests."""

from __future__ import annotations

import pytest

from extraction.fields.extract import extract_fields
from extraction.fields.reading.captions import CaptionIndex
from extraction.fields.reading.choices import marked_initial
from extraction.fields.reading.combs import joined_combs
from extraction.fields.reading.layout import cell_units, leaders_as_colons
from extraction.fields.reading.text_lines import text_units
from extraction.fields.strategies.structure.banner import banner_names
from extraction.fields.strategies.structure.combined import caption_order, names_parts, split_by_caption
from extraction.fields.strategies.structure.whose import later_coverage, other_provider, row_heading
from extraction.formats.document import Box, Document, Word
from extraction.formats.pdf_marks import EMPTY, MARKED, drawn_marks, place_marks
from tests.unit.extraction.doc_builders import DocBuilder, word_line

pytestmark = pytest.mark.unit

FIELDS = ["first_name", "last_name", "middle_name", "dob", "zip", "provider_last_name", "policy_number"]


def values(doc: Document, fields: list[str] = FIELDS) -> dict[str, object]:
    return {name: r.value for name, r in extract_fields(doc, fields, file_name="t.pdf").items()}


# -- combs ---------------------------------------------------------------------------------------


def _words(pieces: list[str], pitch: float = 14.0) -> list[Word]:
    return [Word(t, Box(i * pitch, 0, i * pitch + 6, 10)) for i, t in enumerate(pieces)]


def test_a_comb_of_digits_and_separators_is_one_value() -> None:
    joined = joined_combs(_words(["0", "3", "/", "2", "4", "/", "1", "9", "8", "8"]))
    assert [w.text for w in joined] == ["03/24/1988"]
    assert joined[0].box.x0 == 0 and joined[0].box.x1 == 9 * 14 + 6


def test_two_options_and_a_trailing_separator_stay_apart() -> None:
    assert [w.text for w in joined_combs(_words(["M", "F"], pitch=25))] == ["M", "F"]
    assert [w.text for w in joined_combs(_words(["Zip", "7", "2", "0", "1", "-"]))] == ["Zip", "7201", "-"]
    assert [w.text for w in joined_combs(_words(["/", "a", "b"]))] == ["/", "a", "b"]


def test_comb_cells_read_as_values() -> None:
    b = DocBuilder()
    word_line(b, 100, [("ZIP", 50), *((d, 150 + 14 * i) for i, d in enumerate("58102"))])
    units = cell_units(b.doc)
    assert [u.text for u in units] == ["ZIP", "58102"]
    assert values(b.doc, ["zip"]) == {"zip": "58102"}


def test_dot_leaders_read_as_a_colon() -> None:
    assert leaders_as_colons("Surname ........ Ravensworth") == "Surname: Ravensworth"
    assert leaders_as_colons("Given name(s) ___ Cosima") == "Given name(s): Cosima"
    assert leaders_as_colons("Total 1.5") == "Total 1.5"


# -- captions under the typed line ---------------------------------------------------------------


def _caption_form() -> DocBuilder:
    b = DocBuilder()
    word_line(b, 60, [("Tel", 50), ("(208)", 80), ("555-0199", 120)], height=8)
    word_line(b, 100, [("Ravensworth", 50), ("Cosima", 250), ("J", 450)])
    word_line(b, 113, [("Last", 50), ("First", 250), ("MI", 450)], height=6)
    word_line(b, 150, [("04/17/1962", 50), ("58102", 250)])
    word_line(b, 163, [("Date", 50), ("of", 75), ("Birth", 90), ("ZIP", 250)], height=6)
    return b


def test_a_caption_under_its_value_names_it() -> None:
    b = _caption_form()
    index = CaptionIndex(cell_units(b.doc))
    units = {u.text: u for u in cell_units(b.doc)}
    assert [u.text for u in index.above(units["Last"])] == ["Ravensworth"]
    assert [u.text for u in index.above(units["MI"])] == ["J"]
    assert index.captioned(units["04/17/1962"])
    assert not index.captioned(units["Last"])
    got = values(b.doc, ["first_name", "last_name", "middle_name", "dob", "zip"])
    assert got == {
        "first_name": "Cosima",
        "last_name": "Ravensworth",
        "middle_name": "J",
        "dob": "1962-04-17",
        "zip": "58102",
    }


def test_labels_above_values_keep_their_values() -> None:
    # Labels set above values, each nearer its own value than the value of the row before.
    b = DocBuilder()
    word_line(b, 100, [("Last", 50), ("Name", 80), ("First", 250), ("Name", 285)], height=8)
    word_line(b, 110, [("Ravensworth", 50), ("Cosima", 250)])
    word_line(b, 135, [("ZIP", 50)], height=8)
    word_line(b, 145, [("58102", 50)])
    units = cell_units(b.doc)
    index = CaptionIndex(units)
    assert not any(index.above(u) for u in units)
    assert values(b.doc, ["first_name", "last_name", "zip"]) == {
        "first_name": "Cosima",
        "last_name": "Ravensworth",
        "zip": "58102",
    }


# -- choices drawn as paths ----------------------------------------------------------------------


def _path(kind: str, rect: tuple[float, float, float, float], **extra: object) -> dict[str, object]:
    items = {"re": [("re", rect)], "l": [("l", (0, 0), (1, 1))], "c": [("c",)] * 4}[kind]
    return {"rect": rect, "items": items, "type": extra.get("type", "s"), "fill": extra.get("fill")}


def test_drawn_boxes_ticked_crossed_filled_and_empty() -> None:
    words = [Word("Male", Box(112, 100, 136, 110)), Word("Female", Box(162, 100, 198, 110))]
    drawings = [
        _path("re", (100, 100, 109, 109)),
        _path("l", (101, 98, 112, 108)),  # a tick reaching out of its box
        _path("re", (150, 100, 159, 109)),
    ]
    marks = drawn_marks(drawings, words)
    assert [(m.text, m.box.x0) for m in marks] == [(MARKED, 100), (EMPTY, 150)]
    filled = drawn_marks([_path("re", (150, 100, 159, 109), type="fs", fill=(0, 0, 0))], words)
    assert [m.text for m in filled] == [MARKED]


def test_a_circled_option_and_comb_boxes() -> None:
    words = [Word("M", Box(100, 100, 108, 110)), Word("F", Box(130, 100, 137, 110))]
    marks = drawn_marks([_path("c", (126, 97, 141, 113))], words)
    assert [m.text for m in marks] == [MARKED] and marks[0].box.x1 < 130
    comb = [_path("re", (200 + 11 * i, 100, 210 + 11 * i, 110)) for i in range(5)]
    assert drawn_marks(comb, words) == []
    with_text = [Word("X", Box(301, 101, 307, 109))]
    assert drawn_marks([_path("re", (300, 100, 309, 109))], with_text) == []


def test_marks_join_the_row_beside_them() -> None:
    rows = [Box(50, 100, 140, 110), Box(50, 130, 140, 140)]
    marks = [Word(MARKED, Box(143, 101, 151, 109)), Word(EMPTY, Box(400, 300, 408, 308))]
    assert place_marks(rows, marks) == [[marks[0]], []]


def test_a_marked_initial_names_its_option() -> None:
    options = ("Male", "Female", "Other")
    assert marked_initial(f"{EMPTY} M {MARKED} F", options) == "Female"
    assert marked_initial("M F", options) is None
    assert marked_initial(f"{MARKED} M", ("Male", "Mixed")) is None


def test_gender_from_a_circled_initial_in_a_text_layer() -> None:
    b = DocBuilder()
    b.line(f"Sex: M {MARKED} F", 50, 100)
    assert values(b.doc, ["gender"]) == {"gender": "Female"}


def test_a_mark_right_after_a_caption_belongs_to_the_option() -> None:
    b = DocBuilder()
    # A ruled cell read as one line: caption, then the circled initial's mark, no colon.
    b.line(f"Sex {MARKED} M F", 50, 100)
    assert values(b.doc, ["gender"]) == {"gender": "Male"}


# -- combined fields -----------------------------------------------------------------------------


def test_a_caption_lists_the_parts_of_a_name_in_order() -> None:
    assert caption_order("Name (Last, First MI)") == ["last", "first", "middle"]
    assert names_parts("Patient Name (Last, First, Middle Initial)")
    assert not names_parts("First Name")


def test_a_combined_name_splits_by_its_caption() -> None:
    person = split_by_caption("Name (Last First MI)", "RAVENSWORTH COSIMA J")
    assert person is not None and (person.first, person.middle, person.last) == ("COSIMA", "J", "RAVENSWORTH")
    natural = split_by_caption("Name (First MI Last)", "Cosima J Ravensworth")
    assert natural is not None and natural.last == "Ravensworth"
    comma = split_by_caption("Name", "Ravensworth, Cosima J")
    assert comma is not None and comma.first == "Cosima"


def test_combined_name_and_city_fields_read_by_part() -> None:
    b = DocBuilder()
    b.line("Name (Last, First MI): Ravensworth, Cosima J", 50, 100)
    b.line("City, State ZIP: Fargo, ND 58102", 50, 130)
    got = values(b.doc, ["first_name", "last_name", "middle_name", "city", "state", "zip"])
    assert got == {
        "first_name": "Cosima",
        "last_name": "Ravensworth",
        "middle_name": "J",
        "city": "Fargo",
        "state": "ND",
        "zip": "58102",
    }


# -- a print-out's banner ------------------------------------------------------------------------


def test_a_banner_name_over_a_birth_date_is_the_patient() -> None:
    b = DocBuilder()
    b.line("RAVENSWORTH, COSIMA J", 50, 80)
    b.line("DOB: 04/17/1962   Sex: F   MRN: 448812", 50, 100)
    b.line("FAIRWEATHER, TAMSIN", 50, 300)
    b.line("Notes: none", 50, 320)
    assert [u.text for u in banner_names(text_units(b.doc))] == ["RAVENSWORTH, COSIMA J"]
    assert values(b.doc, ["first_name", "last_name"]) == {"first_name": "COSIMA", "last_name": "RAVENSWORTH"}


def test_a_banner_name_read_without_the_space_after_its_comma() -> None:
    b = DocBuilder()
    b.line("HOLLINGSBY,FENWICK", 50, 80)
    b.line("DOB:12/04/1975   Sex: M", 50, 100)
    assert values(b.doc, ["first_name", "last_name"]) == {"first_name": "FENWICK", "last_name": "HOLLINGSBY"}


# -- whose value ---------------------------------------------------------------------------------


def test_a_referring_doctor_is_not_the_patients_provider() -> None:
    assert other_provider("Referring Physician") and other_provider("Referred by")
    assert not other_provider("Primary Care Physician")
    b = DocBuilder()
    b.line("Referring Physician: Dr. Minerva Hollingsby", 50, 100)
    b.line("Primary Care Physician: Dr. Tamsin Fairweather", 50, 130)
    assert values(b.doc, ["provider_last_name"]) == {"provider_last_name": "Fairweather"}


def test_a_secondary_coverage_row_ranks_below_the_primary() -> None:
    assert later_coverage("Secondary") and not later_coverage("Primary")
    b = DocBuilder()
    b.table(
        [
            ["Coverage", "Insurance Company", "Policy #"],
            ["Secondary", "Harborview Health", "XPP460027161"],
            ["Primary", "Prairie Shield", "NWS73967177"],
        ],
        Box(50, 100, 550, 160),
    )
    assert values(b.doc, ["ins_name", "policy_number"]) == {
        "ins_name": "Prairie Shield",
        "policy_number": "NWS73967177",
    }


def _boxed(pieces: list[str], pitch: float = 30.0, width: float = 20.0) -> list[Word]:
    """Characters read from boxes at `pitch`; a piece of several characters spans as many boxes."""
    out, x = [], 0.0
    for t in pieces:
        out.append(Word(t, Box(x, 0, x + (len(t) - 1) * pitch + width, 20)))
        x += len(t) * pitch
    return out


def test_a_word_read_across_several_boxes_joins_its_comb() -> None:
    assert [w.text for w in joined_combs(_boxed(["R", "A", "FFER", "T", "Y"]))] == ["RAFFERTY"]
    assert [w.text for w in joined_combs(_boxed(["W", "OR", "T", "H"]))] == ["WORTH"]
    # No two boxed characters read alone side by side: the pitch is read from a character and
    # the word after it.
    assert [w.text for w in joined_combs(_boxed(["E", "LL", "INGSWORT", "H"]))] == ["ELLINGSWORTH"]
    # A house number before a typed initial is no comb.
    typed_number = [
        Word("98", Box(0, 0, 10, 11)),
        Word("S", Box(13, 0, 18, 11)),
        Word("Forest", Box(22, 0, 46, 11)),
    ]
    assert [w.text for w in joined_combs(typed_number)] == ["98", "S", "Forest"]
    # A typed word after spaced initials is far narrower than boxes would be.
    typed = [Word("J", Box(0, 0, 6, 10)), Word("R", Box(9, 0, 15, 10)), Word("SMITH", Box(18, 0, 48, 10))]
    assert [w.text for w in joined_combs(typed)] == ["J", "R", "SMITH"]


def test_a_scanned_date_comb_with_uneven_gaps_is_one_value() -> None:
    pieces = [("0", 0), ("4", 29), ("/", 63), ("2", 86), ("5", 114), ("/", 149), ("1", 171), ("9", 206)]
    pieces += [("8", 234), ("5", 268)]
    words = [Word(t, Box(x, 0, x + 24, 30)) for t, x in pieces]
    assert [w.text for w in joined_combs(words)] == ["04/25/19" + "85"]


def test_row_heading_is_the_leftmost_unit_of_the_row() -> None:
    b = DocBuilder()
    word_line(b, 100, [("Secondary", 50), ("Harborview", 200), ("XPP460027161", 350)])
    units = cell_units(b.doc)
    heading = row_heading(units[2], units)
    assert heading is not None and heading.text == "Secondary"


def test_letter_spaced_words_read_as_words() -> None:
    spaced = [Word(ch, Box(x, 0, x + 6, 10)) for ch, x in zip("PATIENT", range(0, 70, 10), strict=True)]
    spaced += [Word(ch, Box(x, 0, x + 6, 10)) for ch, x in zip("INFO", range(90, 130, 10), strict=True)]
    assert [w.text for w in joined_combs(spaced)] == ["PATIENT", "INFO"]


def test_a_referring_doctor_alone_is_the_provider() -> None:
    b = DocBuilder()
    b.line("Referring Physician: Dr. Minerva Hollingsby", 50, 100)
    assert values(b.doc, ["provider_last_name"]) == {"provider_last_name": "Hollingsby"}


def test_tight_rows_of_labels_over_values_are_no_captions() -> None:
    # Labels over values with rows packed tight: the gaps tell nothing, so labels stay above.
    b = DocBuilder()
    word_line(b, 100, [("Address", 50)], height=10)
    word_line(b, 111, [("2159", 50), ("Larkspur", 80), ("Drive", 135)], height=13)
    word_line(b, 124, [("City", 50)], height=10)
    word_line(b, 135, [("Fargo", 50)], height=13)
    assert values(b.doc, ["address_1", "city"]) == {"address_1": "2159 Larkspur Drive", "city": "Fargo"}


def test_a_label_with_a_colon_captions_nothing_above_it() -> None:
    b = DocBuilder()
    word_line(b, 100, [("First", 50), ("Name:", 80), ("Cosima", 120)])
    word_line(b, 113, [("Middle", 50), ("Initial:", 90)], height=6)
    units = cell_units(b.doc)
    assert not any(CaptionIndex(units).above(u) for u in units)
    assert values(b.doc, ["middle_name"]) == {"middle_name": None}


def test_a_value_row_with_a_label_word_still_has_captions() -> None:
    # "ID" is a state typed over its caption, not a label: it neither blocks the row nor labels.
    b = DocBuilder()
    word_line(
        b, 100, [("353", 50), ("Larkspur", 75), ("Way", 128), ("Boise", 250), ("ID", 400), ("83702", 450)]
    )
    word_line(
        b, 113, [("Street", 50), ("Address", 80), ("City", 250), ("State", 400), ("ZIP", 450)], height=6
    )
    word_line(b, 150, [("Policy", 50), ("Number:", 90)])
    got = values(b.doc, ["address_1", "city", "zip", "policy_number"])
    assert got == {
        "address_1": "353 Larkspur Way",
        "city": "Boise",
        "zip": "83702",
        "policy_number": None,
    }


def test_a_grid_cell_holds_its_caption_and_its_value() -> None:
    b = DocBuilder()
    b.table(
        [
            ["2. PATIENT'S NAME (Last Name, First Name, Middle Initial) RAVENSWORTH, COSIMA, J", ""],
            ["5. PATIENT'S ADDRESS (No., Street) 353 LARKSPUR WAY", "ZIP CODE 58102"],
        ],
        Box(50, 100, 550, 160),
    )
    got = values(b.doc, ["first_name", "last_name", "address_1", "zip"])
    assert got == {
        "first_name": "COSIMA",
        "last_name": "RAVENSWORTH",
        "address_1": "353 LARKSPUR WAY",
        "zip": "58102",
    }


def test_a_doctors_combined_caption_is_the_doctors_not_the_patients() -> None:
    b = DocBuilder()
    b.line("PCP (Last, First): Fairweather, Tamsin", 50, 100)
    b.line("Name (Last, First MI): Ravensworth, Cosima J", 50, 130)
    got = values(b.doc, ["provider_last_name", "first_name"])
    assert got == {"provider_last_name": "Fairweather", "first_name": "Cosima"}


def test_a_title_is_no_label_with_its_value() -> None:
    b = DocBuilder()
    title = b.line("HEALTH INSURANCE CLAIM FORM", 50, 60)
    title.type = "title"
    assert values(b.doc, ["ins_name"]) == {"ins_name": None}


def test_another_fields_label_and_value_is_no_value_under_an_empty_label() -> None:
    b = DocBuilder()
    b.line("Middle:", 50, 100)
    b.line("DOB: 02/19/1964", 50, 116)
    assert values(b.doc, ["middle_name"]) == {"middle_name": None}


def test_the_line_under_a_street_is_its_city_line() -> None:
    b = DocBuilder()
    word_line(b, 100, [("Address:", 50), ("18", 140), ("Larkspur", 160), ("Way", 215)])
    word_line(b, 114, [("Fargo,", 140), ("ND", 180), ("58102", 200)])
    b.line("Phone: 701-555-0199", 50, 300)
    got = values(b.doc, ["address_1", "city", "state", "zip"])
    assert got == {"address_1": "18 Larkspur Way", "city": "Fargo", "state": "ND", "zip": "58102"}
    # Not a line elsewhere on the page.
    other = DocBuilder()
    other.line("Fargo, ND 58102", 300, 400)
    assert values(other.doc, ["city"]) == {"city": None}


def test_two_capitals_in_boxes_are_one_code_but_typed_initials_are_not() -> None:
    boxed = [Word("N", Box(0, 0, 7, 10)), Word("Y", Box(15, 0, 22, 10))]
    assert [w.text for w in joined_combs(boxed)] == ["NY"]
    typed = [Word("J", Box(0, 0, 6, 10)), Word("R", Box(9, 0, 15, 10))]
    assert [w.text for w in joined_combs(typed)] == ["J", "R"]
    apart = [Word("M", Box(0, 0, 7, 10)), Word("F", Box(40, 0, 47, 10))]
    assert [w.text for w in joined_combs(apart)] == ["M", "F"]


def test_boxes_side_by_side_in_a_scan_are_a_comb_not_check_boxes() -> None:
    from PIL import Image, ImageDraw

    from extraction.formats.checkboxes import with_checkboxes
    from extraction.formats.ocr import OcrLine

    image = Image.new("RGB", (400, 60), "white")
    draw = ImageDraw.Draw(image)
    for k, ch in enumerate("5810"):
        x = 100 + 23 * k
        draw.rectangle((x, 20, x + 20, 40), outline="black", width=2)
        draw.text((x + 7, 24), ch, fill="black")
    line = OcrLine(
        "ZIP 5810",
        ((40.0, 18.0), (200.0, 18.0), (200.0, 42.0), (40.0, 42.0)),
        0.95,
        (("ZIP", Box(40, 18, 80, 42)), ("5810", Box(100, 18, 190, 42))),
    )
    (read,) = with_checkboxes(image, [line])
    assert read.text == "ZIP 5810"


def test_a_grid_cells_text_reads_line_by_line_with_its_drawn_marks() -> None:
    from extraction.formats.document import Box
    from extraction.formats.pdf_tables import _text_inside

    cell = Box(0, 0, 200, 30)
    spans = [
        ("Phone", Box(2, 1, 30, 8)),
        # The value in an italic face sits a little lower than the options in the regular one.
        ("Work", Box(150, 15, 175, 26)),
        ("(608) 618-2150", Box(6, 17, 90, 28)),
        ("\u2612", Box(118, 15, 122, 26)),
        ("Cell", Box(124, 15, 145, 26)),
        ("Home", Box(94, 15, 116, 26)),
    ]
    assert _text_inside(spans, cell) == "Phone (608) 618-2150 Home \u2612 Cell Work"


def test_the_longer_label_from_one_word_wins_at_an_equal_score() -> None:
    b = DocBuilder()
    b.line("Member ID CD7488370243", 40, 40)
    assert (
        extract_fields(b.doc, ["policy_number"], file_name="t.pdf")["policy_number"].value == "CD7488370243"
    )


def test_a_phone_is_told_by_the_kind_marked_beside_it() -> None:
    b = DocBuilder()
    b.line("Phone (608) 618-2150 Home \u2612 Cell Work", 40, 40)
    # On a scan each option may be a line of its own on the number's row.
    b.line("Other phone", 320, 26)
    b.line("608-387-1726", 320, 40, 400, 54)
    b.line("\u2612 Home", 410, 40, 450, 54)
    b.line("Cell", 460, 40, 490, 54)
    got = extract_fields(b.doc, ["cell_phone", "home_phone", "work_phone"], file_name="t.pdf")
    assert got["cell_phone"].value is not None and "618-2150" in got["cell_phone"].value
    assert got["home_phone"].value is not None and "387-1726" in got["home_phone"].value
    assert got["work_phone"].value is None


def test_a_heading_word_in_a_row_of_cells_opens_no_section() -> None:
    b = DocBuilder()
    # "Subscriber Self" in the right column is a label and its value, not a section's heading.
    word_line(b, 100, [("State", 50), ("AZ", 100), ("Subscriber", 400), ("Self", 470)])
    word_line(b, 130, [("Zip", 50), ("Code", 75), ("85719", 110), ("Relationship", 400), ("Self", 480)])
    assert values(b.doc, ["zip"]) == {"zip": "85719"}
    # A heading alone on its row still holds everything under it.
    alone = DocBuilder()
    word_line(alone, 100, [("Subscriber", 200)])
    word_line(alone, 130, [("Zip", 50), ("Code", 75), ("85719", 110)])
    assert values(alone.doc, ["zip"]) == {"zip": None}


def test_an_empty_label_takes_no_other_labels_value_beside_it() -> None:
    b = DocBuilder()
    word_line(b, 100, [("Middle", 50), ("Name", 92), ("Work", 400), ("Phone", 430), ("541-920-0361", 470)])
    word_line(b, 130, [("Last", 50), ("Name", 80), ("Quillon", 130)])
    assert values(b.doc, ["middle_name"]) == {"middle_name": None}


def test_beside_a_caption_stands_the_next_caption_not_a_value() -> None:
    b = DocBuilder()
    word_line(b, 100, [("PEMBERTON", 50), ("ROSALIND", 300), ("K", 550)])
    word_line(b, 113, [("Last", 50), ("First", 300), ("XQ", 550)])
    b.line("Sex: F", 50, 200)
    got = values(b.doc, ["first_name", "last_name"])
    assert got == {"first_name": "ROSALIND", "last_name": "PEMBERTON"}


def test_a_state_code_that_is_also_a_label_word_is_the_state() -> None:
    b = DocBuilder()
    word_line(
        b, 100, [("City", 50), ("BOISE", 100), ("State", 300), ("ID", 340), ("ZIP", 420), ("83702", 450)]
    )
    assert values(b.doc, ["state", "zip"]) == {"state": "ID", "zip": "83702"}
