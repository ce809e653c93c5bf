"""Header lines told by their shape: telephone, identifier, web and postcode lines of many countries."""

from __future__ import annotations

import pytest

from extraction.fields.documents.header_lines import (
    has_postcode,
    is_contact_line,
    is_identifier_line,
    is_phone_line,
    is_web_or_email,
    opens_with_block_number,
)


@pytest.mark.parametrize(
    "text",
    [
        "(217) 555-0142",
        "Telefon 030 1234567",
        "Tél. 04 72 10 20 30",
        "Ph: +61 2 9876 5432",
        "TEL: 012 - 6651783 FAX: 03 - 33623608",
        "03-3279 1851,",
        "TEL 03-1234-5678",
    ],
)
def test_telephone_lines_in_any_language(text: str) -> None:
    assert is_phone_line(text)
    assert is_contact_line(text)


@pytest.mark.parametrize(
    "text",
    [
        "NO.53 55,57 & 59, JALAN SAGU 18,",
        "81100 JOHOR BAHRU, JOHOR.",
        "Shibuya-ku, Tokyo 150-0002",
        "1234 Maple Ave Suite 200",
        "Singapore 288909",
        "Bengaluru - 560001",
        "Plot No. 45, Station Road",
        "53300KL Site 1066",
    ],
)
def test_address_lines_are_not_telephones_or_identifiers(text: str) -> None:
    assert not is_phone_line(text)
    assert not is_identifier_line(text)
    assert not is_contact_line(text)


@pytest.mark.parametrize(
    "text",
    [
        "GST ID: 000849813504",
        "(867388-U)",
        "USt-IdNr. DE123456789",
        "ABN 12 345 678 901",
        "KvK 12345678",
        "GSTIN: 29ABCDE1234F1Z5",
        "BR No.: 0195932-X",
        "UEN 201912345K",
    ],
)
def test_identifier_lines(text: str) -> None:
    assert is_identifier_line(text)


def test_a_long_number_in_a_sentence_is_no_identifier_line() -> None:
    assert not is_identifier_line("Thank you for shopping with us, member 12345678 today")


@pytest.mark.parametrize(
    "text", ["info@shop.example", "www.GOLDEN-BAKERY.COM", "https://shop.example/r", "goldenbakery.co.uk"]
)
def test_web_and_email_lines(text: str) -> None:
    assert is_web_or_email(text)


@pytest.mark.parametrize("text", ["JOHOR BAHRU.JOHOR", "SELANGOR D.E", "Johor Bahru.Johor"])
def test_a_period_inside_an_address_is_no_domain(text: str) -> None:
    assert not is_web_or_email(text)


@pytest.mark.parametrize(
    "text",
    [
        "81100 JOHOR BAHRU",
        "Sydney NSW 2000",
        "Singapore 288909",
        "1017 GC Utrecht",
        "York LS3 4AB",
        "Toronto, ON M5V 1H9",
    ],
)
def test_postcodes_of_several_countries(text: str) -> None:
    assert has_postcode(text)


@pytest.mark.parametrize("text", ["MAIN STREET", "GST ID: 000849813504", "12.50", "81100"])
def test_no_postcode(text: str) -> None:
    assert not has_postcode(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3-16-18 Shibuya", True),
        ("2-29-1 Ginza,", True),
        ("25/01/2018 1:22:56PM", False),
        ("12-03-2019 14:05", False),
        ("Date: 3-16-18", False),
        ("3-16-18", False),
    ],
)
def test_block_numbers_then_a_place_open_a_line(text: str, expected: bool) -> None:
    assert opens_with_block_number(text) is expected
