"""A receipt's company and address read by the structure of its header, in layouts of many countries."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from extraction.fields import FieldResult, extract_fields
from tests.unit.extraction.doc_builders import DocBuilder

pytestmark = pytest.mark.unit

BODY = 18.0


def _receipt(header: Sequence[str | tuple[str, float]]) -> DocBuilder:
    """A scanned receipt: the header lines (text, or text and glyph height), then a body."""
    b = DocBuilder(width=480, height=1000, source="ocr")
    y = 30.0
    for row in header:
        text, height = (row, BODY) if isinstance(row, str) else row
        b.line(text, 40, y, 40 + 0.5 * height * len(text), y + height, confidence=0.9)
        y += height + 10
    y += 30
    for text in ["RECEIPT", "Date: 14/03/2019 12:01", "Coffee 1 3.50", "Bread 1 2.20", "TOTAL 5.70"]:
        b.line(text, 40, y, 40 + 9 * len(text), y + BODY, confidence=0.9)
        y += BODY + 10
    return b


def _read(header: Sequence[str | tuple[str, float]]) -> dict[str, FieldResult]:
    return extract_fields(_receipt(header).doc, ["company", "address"], file_name="r.png")


@pytest.mark.parametrize(
    "contact",
    [
        "(217) 555-0142",
        "Telefon 030 1234567",
        "USt-IdNr. DE123456789",
        "info@maple.example",
        "ABN 12 345 678 901",
    ],
)
def test_the_address_ends_at_a_contact_line_of_any_language(contact: str) -> None:
    result = _read(["MAPLE HARDWARE LLC", "1234 Station Ave", "Springfield, IL 62704", contact])
    assert result["address"].value == "1234 Station Ave Springfield, IL 62704"


def test_a_four_digit_postcode_makes_an_address_line() -> None:
    result = _read(["HARBOUR BOOKS", "SYDNEY NSW 2000", "Ph 02 9876 5432"])
    assert result["company"].value == "HARBOUR BOOKS"
    assert result["address"].value == "SYDNEY NSW 2000"


def test_a_street_then_its_house_number_starts_an_address() -> None:
    result = _read(["MAPLE HARDWARE", "Kerkstraat 45", "1017 GC Utrecht", "Tel: 030-1234567"])
    assert result["company"].value == "MAPLE HARDWARE"
    assert result["address"].value == "Kerkstraat 45 1017 GC Utrecht"


@pytest.mark.parametrize("form", ["Private Limited", "SDN. BHD.", "GmbH"])
def test_any_legal_form_alone_on_a_line_ends_the_name_above(form: str) -> None:
    result = _read(["Northgate Deli", form, "Plot No. 45, Station Road", "Bengaluru - 560001"])
    assert result["company"].value == f"Northgate Deli {form}"


def test_a_legal_form_alone_on_a_line_ends_the_name_above() -> None:
    result = _read(
        [
            "JADE HARDWARE",
            "PVT. LTD.",
            "Plot No. 45, Station Road",
            "Bengaluru - 560001",
            "Ph: +91 80 1234 5678",
        ]
    )
    assert result["company"].value == "JADE HARDWARE PVT. LTD."
    assert result["address"].value == "Plot No. 45, Station Road Bengaluru - 560001"


def test_a_name_in_one_large_face_over_two_lines_is_one_name() -> None:
    header: list[str | tuple[str, float]] = [
        ("BLUE COFFEE", 36.0),
        ("HOUSE INC.", 36.0),
        "981 KING ST W",
        "TORONTO, ON M5V 1H9",
    ]
    assert _read(header)["company"].value == "BLUE COFFEE HOUSE INC."
    # Two words in the body's face are one name only when the lower line is one word and a legal form.
    assert (
        _read(["BLUE COFFEE", "TEA HOUSE INC.", "981 KING ST W", "TORONTO, ON M5V 1H9"])["company"].value
        == "TEA HOUSE INC."
    )
    # A smaller line above is a slogan, no part of the name.
    small: list[str | tuple[str, float]] = [("WELCOME", 12.0), "HOUSE INC.", "981 KING ST W", "TORONTO"]
    assert _read(small)["company"].value == "HOUSE INC."


def test_a_handwritten_note_over_a_large_name_is_not_joined_to_it() -> None:
    header: list[str | tuple[str, float]] = [
        ("tan chay yee", 36.0),
        ("KEDAI MAJU SDN BHD", 36.0),
        "12, JALAN BESAR,",
        "45600 BATANG",
    ]
    assert _read(header)["company"].value == "KEDAI MAJU SDN BHD"


def test_the_address_starts_under_a_name_known_by_its_legal_form() -> None:
    header = [
        "JADE GROCERS PTE LTD",
        "UEN 201912345K",
        "#02-15 CEDAR POINT",
        "376 ORCHARD ROAD",
        "SINGAPORE 288909",
        "Tel: 6310 0251",
    ]
    result = _read(header)
    assert result["company"].value == "JADE GROCERS PTE LTD"
    assert result["address"].value == "#02-15 CEDAR POINT 376 ORCHARD ROAD SINGAPORE 288909"


def test_words_between_a_name_and_its_address_are_not_the_address() -> None:
    header = [
        "GERBANG ALAF RESTAURANTS SDN BHD",
        "(65351-M)",
        "formerly known as",
        "Level 6, Bangunan TH, Damansara Uptown3",
        "No.3, Jalan SS21/39,47400 Petaling Jaya",
        "Tel No. 03-4162-2318",
    ]
    result = _read(header)
    assert (
        result["address"].value
        == "Level 6, Bangunan TH, Damansara Uptown3 No.3, Jalan SS21/39,47400 Petaling Jaya"
    )


def test_a_shop_number_opening_an_address_is_no_shop_label() -> None:
    result = _read(
        ["SILVER NOODLE BAR PTY LTD", "SHOP 6, 196 ORCHARD ST", "PERTH WA 6000", "Ph: (08) 7224 7045"]
    )
    assert result["company"].value == "SILVER NOODLE BAR PTY LTD"
    assert result["address"].value == "SHOP 6, 196 ORCHARD ST PERTH WA 6000"


def test_without_an_address_the_name_is_the_tallest_printed_line_not_a_handwritten_note() -> None:
    header: list[str | tuple[str, float]] = [("tan woon yann", 40.0), ("GOLDEN BAKERY", 28.0), "Welcome back"]
    assert _read(header)["company"].value == "GOLDEN BAKERY"


def test_a_store_number_is_no_company_name_and_a_state_before_a_postcode_no_legal_form() -> None:
    result = _read(["PIONEER KITCHEN", "STORE #464", "3617 N HILL BLVD", "DENVER CO 80205", "303.555.0142"])
    assert result["company"].value == "PIONEER KITCHEN"
    assert result["address"].value == "STORE #464 3617 N HILL BLVD DENVER CO 80205"


def test_block_numbers_shaped_like_a_date_open_an_address_when_more_of_it_follows() -> None:
    header = ["CEDAR BOOKS K.K.", "4-17-12 Kamiyama", "Meguro-ku, Tokyo 153-0043", "TEL 03-5555-0142"]
    result = _read(header)
    assert result["company"].value == "CEDAR BOOKS K.K."
    assert result["address"].value == "4-17-12 Kamiyama Meguro-ku, Tokyo 153-0043"


def test_a_date_line_with_a_weekday_under_the_name_is_no_address() -> None:
    # The date's words are a weekday, and a telephone line follows it: no address goes on below.
    result = _read(["CEDAR BOOKS", "25-01-18 Saturday", "TEL 03-5555-0142"])
    assert result["company"].value == "CEDAR BOOKS"
    assert result["address"].value is None


def test_a_line_ending_in_a_comma_starts_an_address_without_a_street_word() -> None:
    # No number opens it and no word names a street: the comma says the address runs on.
    header = ["RIVERTON BOOKS", "S117, Crescent Mall,", "Kingsport Gardens,", "Fairview 81100", "0123456789"]
    result = _read(header)
    assert result["company"].value == "RIVERTON BOOKS"
    assert result["address"].value == "S117, Crescent Mall, Kingsport Gardens, Fairview 81100"


def test_a_place_alone_over_the_postcode_line_is_the_address_first_line() -> None:
    header = [
        "WILLOW MART LTD",
        "(519537-X)",
        "KINGSPORT GARDENS",
        "41150 OAKDALE, RIVERTON",
        "GST ID: 000181747712",
    ]
    result = _read(header)
    assert result["company"].value == "WILLOW MART LTD"
    assert result["address"].value == "KINGSPORT GARDENS 41150 OAKDALE, RIVERTON"


def test_a_phrase_alone_over_the_postcode_line_is_the_name_story_not_the_address() -> None:
    header = ["WILLOW MART LTD", "Licensee of Cedar Foods", "41150 Oakdale", "Tel 03-5555 0142"]
    assert _read(header)["address"].value == "41150 Oakdale"


def test_one_word_and_a_legal_form_ends_the_name_begun_above_in_the_same_face() -> None:
    header = ["Cedar Noodle", "Bar S.p.A.", "Via Church 116", "73068 Roma (RM)", "Tel. 06 98575311"]
    result = _read(header)
    assert result["company"].value == "Cedar Noodle Bar S.p.A."
    assert result["address"].value == "Via Church 116 73068 Roma (RM)"
    # A line in another case above is no part of the name: a brand or a note.
    assert _read(["BREWERY TAP", "Owner Castle S/B", "Via Church 116", "73068 Roma"])["company"].value == (
        "Owner Castle S/B"
    )


def test_a_place_over_the_last_postcode_line_is_the_address_under_a_name_without_legal_form() -> None:
    result = _read(["WILLOW MART", "(519537-X)", "KINGSPORT GARDENS", "41150 OAKDALE", "TEL: 03-5555 0142"])
    assert result["company"].value == "WILLOW MART"
    assert result["address"].value == "KINGSPORT GARDENS 41150 OAKDALE"
    # A postcode-shaped house number with more of the address under it starts the address itself.
    result = _read(["BLUE COFFEE", "HOUSE", "1234 Station Ave", "Springfield, IL 62704", "(217) 555-0142"])
    assert result["address"].value == "1234 Station Ave Springfield, IL 62704"


def test_two_letters_of_a_postcode_are_no_hand_phone_label() -> None:
    result = _read(["CEDAR BOOKS B.V.", "Hillstraat 120", "7417 HP Utrecht", "HP: 012-345 6789"])
    assert result["address"].value == "Hillstraat 120 7417 HP Utrecht"


def test_the_address_ends_before_a_telephone_set_after_its_postcode_on_one_line() -> None:
    header = ["HARBOUR BOOKS LTD", "12 Mill Lane,", "47400 Oakdale TEL: 03-7731 8169", "GST ID: 000181747712"]
    assert _read(header)["address"].value == "12 Mill Lane, 47400 Oakdale"
    # A telephone line of its own still ends the address above it.
    header = ["HARBOUR BOOKS LTD", "12 Mill Lane,", "47400 Oakdale", "TEL: 03-7731 8169"]
    assert _read(header)["address"].value == "12 Mill Lane, 47400 Oakdale"


def test_without_legal_form_the_name_is_the_line_right_above_the_address_not_a_larger_note() -> None:
    # A note written over the printed header in capitals, larger than the print, is no name.
    header: list[str | tuple[str, float]] = [
        ("ANNE LEE", 36.0),
        "INDAH GIFT & HOME DECO",
        "27,MILL LANE 13,",
        "81100 OAKDALE.",
        "TEL:07-3507405",
    ]
    assert _read(header)["company"].value == "INDAH GIFT & HOME DECO"


def test_a_colon_at_the_end_of_an_address_line_is_no_part_of_the_address() -> None:
    result = _read(
        ["MAPLE HARDWARE LLC", "12 Station Ave, Old Town:", "Springfield IL 62704", "Tel 217 555 0142"]
    )
    assert result["address"].value == "12 Station Ave, Old Town Springfield IL 62704"


def test_a_period_after_a_word_that_the_address_runs_on_past_is_a_comma() -> None:
    result = _read(
        ["MAPLE HARDWARE LLC", "12 Station Ave.", "Old Orchard.", "Springfield IL 62704.", "Tel 217 555 0142"]
    )
    assert result["address"].value == "12 Station Ave. Old Orchard, Springfield IL 62704."
