from __future__ import annotations

import pytest

from extraction.fields.reading.amounts import find_amounts, normalize_amount
from extraction.fields.reading.date_text import document_date_order, find_dates, parse_date
from extraction.fields.reading.normalize import (
    concept_of,
    match_label,
    normalize_text,
    parse_checkbox,
    total_rank,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("25/12/2018", "2018-12-25"),
        ("12-01-19", "2019-12-01"),
        ("2018-12-25", "2018-12-25"),
        ("December 25, 2018", "2018-12-25"),
        ("25 Dec 2018", "2018-12-25"),
        ("Dec. 25 2018", "2018-12-25"),
        ("25th December 2018", "2018-12-25"),
        ("August 3 , 2014", "2014-08-03"),
        ("05 MAR 2018", "2018-03-05"),
        ("7. Mai 2014", "2014-05-07"),
        ("28.11.2022", "2022-11-28"),
        ("the 10th day of February, 2017", "2017-02-10"),
        # OCR read the month's O as a zero.
        ("20 0ct 2020", "2020-10-20"),
        ("N0V 3, 2019", "2019-11-03"),
        # A time OCR glued to a date, whichever its order.
        ("2020-06-159:15", "2020-06-15"),
        ("25/03/20185:41:06", "2018-03-25"),
    ],
)
def test_dates_are_read_in_their_written_forms(text: str, iso: str) -> None:
    assert [d.value for d in find_dates(text)] == [iso]


def test_numeric_dates_are_month_first_by_default_unless_only_day_first_is_valid() -> None:
    assert parse_date("03/04/2020") == "2020-03-04"
    assert parse_date("12/03/2001") == "2001-12-03"
    assert parse_date("25/12/2018") == "2018-12-25"
    assert parse_date("12/28/2017") == "2017-12-28"
    assert parse_date("31/31/2017") is None


def test_numeric_dates_in_each_date_order() -> None:
    assert parse_date("12/03/2001", "DMY") == "2001-03-12"
    assert parse_date("12/28/2017", "DMY") == "2017-12-28"
    assert parse_date("12/03/2001", "MDY") == "2001-12-03"
    assert parse_date("01/03/12", "YMD") == "2001-03-12"
    assert parse_date("12/03/2001", "YMD") == "2001-12-03"
    assert parse_date("2001-03-12", "DMY") == "2001-03-12"


def test_ambiguous_numeric_dates_are_marked() -> None:
    assert [d.ambiguous for d in find_dates("03/04/2020 12/28/2017 04/04/2020 March 4, 2020")] == [
        True,
        False,
        False,
        False,
    ]


def test_a_documents_unambiguous_dates_set_its_order() -> None:
    assert document_date_order(["Date: 25/12/2018", "Due 03/01/2019"]) == "DMY"
    assert document_date_order(["Date: 12/28/2017", "Due 03/01/2019"], "DMY") == "MDY"
    assert document_date_order(["03/01/2019"]) == "MDY"
    assert document_date_order(["03/01/2019"], "DMY") == "DMY"
    # Evidence both ways leaves the configured order.
    assert document_date_order(["25/12/2018", "12/28/2017"]) == "MDY"


def test_two_digit_years_below_70_are_this_century() -> None:
    assert parse_date("01/02/69") == "2069-01-02"
    assert parse_date("01/02/70") == "1970-01-02"


def test_parse_date_wants_one_date_and_nothing_else() -> None:
    assert parse_date(" 25/12/2018. ") == "2018-12-25"
    assert parse_date("25/12/2018 8:13:39 PM") is None
    assert parse_date("invoice 42183017") is None


def test_dates_inside_text_times_and_ranges() -> None:
    assert [d.value for d in find_dates("DATE: 25/12/2018 8:13:39 PM")] == ["2018-12-25"]
    assert [d.value for d in find_dates("01.05.14-31.05.14", "DMY")] == ["2014-05-01", "2014-05-31"]
    assert find_dates("TEL: 07-3507405") == []


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("RM 9.00", "9.00"),
        ("9", "9.00"),
        ("9,00", "9.00"),
        ("TOTAL:9.00", "9.00"),
        ("1,234.56", "1234.56"),
        ("1.234,56", "1234.56"),
        ("1 234,56 €", "1234.56"),
        ("$ 279.84", "279.84"),
        ("-RM 0.02", "-0.02"),
        ("9.000", "9.00"),
        ("0.125", "0.125"),
        (4.1, "4.10"),
        (530848134, "530848134.00"),
    ],
)
def test_amounts_are_normalised_to_a_plain_decimal_string(text: str | float, amount: str) -> None:
    assert normalize_amount(text) == amount


def test_amounts_skip_percentages_dates_times_and_grouped_ids() -> None:
    assert [a.value for a in find_amounts("Tax 15% on $ 112.90")] == ["112.90"]
    assert find_amounts("25/12/2018 8:13:39") == []
    assert normalize_amount("DE 232 446 240") is None
    assert normalize_amount("RM 9.00 10.00") is None
    assert normalize_amount(True) is None


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("Yes", True),
        ("on", True),
        ("checked", True),
        ("1", True),
        ("Off", False),
        ("unchecked", False),
        ("no", False),
        ("0", False),
        ("maybe", None),
        ("", None),
        (None, None),
        (True, True),
    ],
)
def test_checkbox_words(text: str | bool | None, state: bool | None) -> None:
    assert parse_checkbox(text) is state


def test_normalize_text() -> None:
    assert normalize_text("  \uff2bite\u00a0 PHARMA ") == "kite pharma"


@pytest.mark.parametrize(
    ("field", "label"),
    [
        ("date_of_birth", "DOB"),
        ("date_of_birth", "Date of Birth"),
        ("date_of_birth", "Birth date"),
        ("total", "TOTAL"),
        ("total", "Grand Total"),
        ("total", "Total Amount"),
        ("total", "Total Amount (RM):"),
        ("total", "TOTAL SALES (INCLUSIVE OF GST)"),
        ("first_name", "Name_First"),
        ("first_name", "Given name"),
        ("invoice_number", "Invoice No."),
        ("invoice_number", "Facture n°"),
        ("date_due", "Due Date"),
        ("amount_untaxed", "Total HT"),
        ("partner_email", "E-mail"),
        ("LastName 🛩", "LastName 🛩"),
    ],
)
def test_labels_that_name_the_field(field: str, label: str) -> None:
    assert match_label(field, label) >= 0.75


@pytest.mark.parametrize(
    ("field", "label"),
    [
        ("total", "Subtotal"),
        ("total", "Total Qty"),
        ("total", "TOTAL GST"),
        ("total", "Total Sales (Excluding GST)"),
        ("total", "CHANGE"),
        ("total", "Rounding Adj"),
        ("date", "Due Date"),
        ("date", "Order Date"),
        ("company", "TAN WOON YANN"),
        ("company", "Company Reg No"),
        ("first_name", "Last Name"),
    ],
)
def test_labels_that_name_something_else(field: str, label: str) -> None:
    assert match_label(field, label) < 0.75


def test_exact_words_beat_synonyms_and_synonyms_beat_longer_labels() -> None:
    assert match_label("total", "Total:") == 1.0
    assert match_label("total", "Grand Total") > match_label("total", "Total Amount Payable Now Please")


def test_concepts_of_field_names() -> None:
    assert concept_of("amount_untaxed") == "subtotal"
    assert concept_of("amount_tax") == "tax"
    assert concept_of("date_due") == "due_date"
    assert concept_of("partner_email") == "email"
    assert concept_of("Total includes GST 6%") == "total"
    assert concept_of("Net Total (MYR)") == "total"  # of two totals the larger is taken
    assert concept_of("zzz") is None


def test_total_rank_prefers_the_most_final_total() -> None:
    assert (
        total_rank("TOTAL ROUNDED")
        > total_rank("Total incl. GST")
        > total_rank("TOTAL")
        > total_rank("Amount")
    )


def test_ocr_label_slips_letter_spacing_and_look_alike_letters() -> None:
    from extraction.fields.reading.normalize import concept_of, label_tokens

    assert label_tokens("CITY S T ZIP C O D E") == ("city", "st", "zip", "code")
    assert concept_of("S T A T E") == "state"
    assert label_tokens("D O B") == ("dob",)
    # "rn" read as "m" is the commonest slip of all.
    assert concept_of("Sumame") == "last_name"
    # Single letters apart from others stay apart: a middle initial is no label.
    assert label_tokens("John Q Public") == ("john", "q", "public")


def test_ocr_repair_keeps_a_short_word_near_its_length() -> None:
    from extraction.fields.reading.normalize import label_tokens

    # One slip in a label word is repaired; a short word two letters off a longer label is not.
    assert label_tokens("Sumame") == ("surname",)
    assert label_tokens("Tota1") == ("total",)
    assert "prenom" not in label_tokens("Reno, NV 89501")
    # Digits read for the letters they look like.
    assert label_tokens("Phone (Cel1)") == ("phone", "cell")


def test_a_name_read_with_lookalike_digits_is_mended() -> None:
    from extraction.fields.reading.vocabulary import name_letters_mended

    assert name_letters_mended("1") == "I"
    assert name_letters_mended("R0SA") == "ROSA"
    # Anything else with a digit is no misread name; a name without digits is left alone.
    assert name_letters_mended("Unit 4") == "Unit 4"
    assert name_letters_mended("Ivy") == "Ivy"
