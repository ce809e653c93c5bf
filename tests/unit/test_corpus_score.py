from __future__ import annotations

from typing import Any

import pytest

from bench.corpus_score import as_amount, as_date, normalize_text, score, score_field

pytestmark = pytest.mark.unit


def counts(name: str, truth: Any, predicted: Any, set_name: str = "receipts") -> tuple[int, int, int]:
    c = score_field(name, truth, predicted, set_name=set_name)
    return c.tp, c.fp, c.fn


def test_text_normalisation_nfkc_case_whitespace_and_end_punctuation() -> None:
    assert normalize_text("  \uff22ook\u00a0 TA   .K (TAMAN) SDN BHD. ") == "book ta .k (taman) sdn bhd"
    assert counts("company", "INDAH GIFT & HOME DECO", "indah  gift & home deco.") == (1, 0, 0)


def test_inner_punctuation_counts() -> None:
    assert counts("party", "Kite Pharma, Inc.", "Kite Pharma Inc") == (0, 1, 1)


def test_dates_compare_as_iso_when_both_parse() -> None:
    assert as_date("25/12/2018") == "2018-12-25"
    assert as_date("december 25, 2018") == "2018-12-25"
    assert as_date("12/28/2017") == "2017-12-28"
    assert as_date("12-01-19") == "2019-01-12"
    assert as_date("01/02/70") == "1970-02-01"
    assert counts("date", "25/12/2018", "2018-12-25") == (1, 0, 0)
    assert counts("date", "25/12/2018", "December 25, 2018") == (1, 0, 0)
    assert counts("date", "12/28/2017", "2017-12-28") == (1, 0, 0)
    # A value that is not only a date is compared as text.
    assert counts("date", "25/12/2018", "25/12/2018 8:13 PM") == (0, 1, 1)


def test_amounts_to_the_cent_in_numeric_fields() -> None:
    assert as_amount("rm 9.00") == as_amount("9") == as_amount("9,00")
    assert as_amount("1,234.50") == as_amount("1.234,50")
    assert as_amount("9.00 10.00") is None
    assert counts("total", "9.00", "RM 9.00") == (1, 0, 0)
    assert counts("total", "9.00", "9") == (1, 0, 0)
    assert counts("amount", 4.11, "$4.11") == (1, 0, 0)
    assert counts("total", "9.00", "9.01") == (0, 1, 1)
    # A JSON number makes a field numeric whatever its name.
    assert counts("siren", 530848134, "530848134") == (1, 0, 0)
    # In a text field, numbers stay text.
    assert counts("invoice_number", "0042", "42") == (0, 1, 1)


def test_check_boxes() -> None:
    assert counts("Are You A Fairy?", True, "Yes") == (1, 0, 0)
    assert counts("Are You A Fairy?", False, "off") == (1, 0, 0)
    assert counts("Are You A Fairy?", True, "unchecked") == (0, 1, 1)
    assert counts("Are You A Fairy?", False, None) == (0, 0, 1)


def test_kleister_underscores_and_colons_are_spaces_in_nda_only() -> None:
    assert counts("party", ["Eric_Dean_Sprunk"], ["Eric Dean Sprunk"], "nda") == (1, 0, 0)
    assert counts("term", "2_years", "2 years", "nda") == (1, 0, 0)
    assert counts("term", "a:b", "a b", "nda") == (1, 0, 0)
    assert counts("term", "2_years", "2 years", "receipts") == (0, 1, 1)


def test_sets_nulls_and_multiple_values() -> None:
    assert counts("party", ["A", "B"], ["b", "a", "a"], "nda") == (2, 0, 0)
    assert counts("party", ["A", "B"], ["A", "C"], "nda") == (1, 1, 1)
    assert counts("term", None, "2 years", "nda") == (0, 1, 0)
    assert counts("term", "2_years", None, "nda") == (0, 0, 1)
    assert counts("term", None, "", "nda") == (0, 0, 0)
    assert counts("term", None, [], "nda") == (0, 0, 0)


def test_micro_averages_per_field_set_and_overall() -> None:
    manifest: list[dict[str, Any]] = [
        {
            "id": "r1",
            "set": "receipts",
            "fields": {"total": "9.00", "date": "25/12/2018"},
            "field_names": ["total", "date"],
        },
        {
            "id": "r2",
            "set": "receipts",
            "fields": {"total": "5.00", "date": None},
            "field_names": ["total", "date"],
        },
        {"id": "n1", "set": "nda", "fields": {"party": ["A_B", "C"], "extra": "x"}, "field_names": ["party"]},
    ]
    predictions: dict[str, dict[str, Any]] = {
        "r1": {"total": "RM 9.00", "date": "2018-12-25"},
        "r2": {"total": "6.00", "date": "2019-01-01"},
        # n1 missing: every field predicted null.
    }
    report = score(manifest, predictions)
    total = report.by_field[("receipts", "total")]
    assert (total.tp, total.fp, total.fn) == (1, 1, 1)
    date = report.by_field[("receipts", "date")]
    assert (date.tp, date.fp, date.fn) == (1, 1, 0)
    receipts = report.by_set["receipts"]
    assert (receipts.tp, receipts.fp, receipts.fn) == (2, 2, 1)
    assert receipts.precision == pytest.approx(0.5)
    assert receipts.recall == pytest.approx(2 / 3)
    assert receipts.f1 == pytest.approx(2 * 2 / (2 * 2 + 2 + 1))
    nda = report.by_set["nda"]
    assert (nda.tp, nda.fp, nda.fn) == (0, 0, 2)
    assert nda.f1 == 0.0
    assert (report.overall.tp, report.overall.fp, report.overall.fn) == (2, 2, 3)
    assert ("nda", "extra") not in report.by_field
    assert len(report.misses) == 3


def test_intake_dates_month_first_and_phones_by_digits() -> None:
    assert as_date("03/04/1985", month_first=True) == "1985-03-04"
    assert as_date("13/04/1985", month_first=True) == "1985-04-13"
    assert counts("dob", "03/04/1985", "1985-03-04", set_name="intake") == (1, 0, 0)
    assert counts("dob", "03/04/1985", "1985-03-04") == (0, 1, 1)
    assert counts("cell_phone", "(720) 668-1655", "720.668.1655", set_name="intake") == (1, 0, 0)
    assert counts("cell_phone", "(720) 668-1655", "720.668.1656", set_name="intake") == (0, 1, 1)
    assert counts("cell_phone", "(720) 668-1655", "720.668.1655") == (0, 1, 1)


def test_realforms_space_beside_punctuation_dropped_and_dates_month_first() -> None:
    assert counts("Date", "12 /10 /98", "12/10/98", set_name="realforms") == (1, 0, 0)
    assert counts("Date", "9/ 3/ 92", "1992-09-03", set_name="realforms") == (1, 0, 0)
    assert counts("Style", "HLB- KS", "HLB-KS", set_name="realforms") == (1, 0, 0)
    assert counts("Style", "HLB- KS", "HLB KS", set_name="realforms") == (0, 1, 1)


def test_realforms_a_date_with_an_abbreviated_month_stays_a_date() -> None:
    # Dropping the space after "Oct." leaves "oct.11,1983", still the date the form wrote.
    assert counts("Date", "Oct. 11, 1983", "1983-10-11", set_name="realforms") == (1, 0, 0)
    assert counts("Date", "Sept. 5, 1990", "1990-09-06", set_name="realforms") == (0, 1, 1)
    assert counts("Style", "HLB- KS", "HLB-KS", set_name="invoices") == (0, 1, 1)


def test_halves_take_every_other_document_of_each_set_by_id() -> None:
    from bench.corpus_quality import half

    manifest = [{"set": s, "id": f"{s}/{i}"} for s in ("b", "a") for i in (3, 1, 2)]
    assert [d["id"] for d in half(manifest, "even")] == ["a/1", "a/3", "b/1", "b/3"]
    assert [d["id"] for d in half(manifest, "odd")] == ["a/2", "b/2"]


def test_realforms_an_amount_with_spaces_beside_its_separators_is_one_number() -> None:
    assert counts("AUTHORIZED COST", "221, 000", "221000.00", set_name="realforms") == (1, 0, 0)
    assert counts("This Amount", "-14, 165. 00", "-14165.00", set_name="realforms") == (1, 0, 0)
    # Elsewhere the spaces still part two numbers.
    assert counts("total", "221, 000", "221000.00", set_name="invoices") == (0, 1, 1)


def test_receipts_space_beside_punctuation_dropped_but_the_characters_count() -> None:
    # SROIE's truths space identical prints differently.
    assert counts("address", "NO.53, JALAN BESAR", "NO.53,JALAN BESAR") == (1, 0, 0)
    assert counts("company", "SYARIKAT PERNIAGAAN GIN KEE", "SYARIKAT PERNIAGAAN GIN KEE") == (1, 0, 0)
    assert counts("address", "LOT 1 , JALAN", "LOT 1,JALAN") == (1, 0, 0)
    # Punctuation itself still counts, and so do spaces between words.
    assert counts("address", "NO.53, JALAN", "NO.53 JALAN") == (0, 1, 1)
    assert counts("company", "GIN KEE", "GINKEE") == (0, 1, 1)
    # Receipts' dates stay day first.
    assert counts("date", "03/04/2018", "2018-04-03") == (1, 0, 0)
    # Other sets keep their spaces.
    assert counts("address", "NO.53, JALAN", "NO.53,JALAN", set_name="invoices") == (0, 1, 1)


def test_realdesigns_scored_by_the_intake_rules_and_a_gender_letter_stands_for_its_word() -> None:
    assert counts("dob", "03/04/1985", "1985-03-04", set_name="realdesigns") == (1, 0, 0)
    assert counts("cell_phone", "(602) 369-1586", "602.369.1586", set_name="realdesigns") == (1, 0, 0)
    assert counts("gender", "Male", "M", set_name="realdesigns") == (1, 0, 0)
    assert counts("sex", "F", "Female", set_name="intake") == (1, 0, 0)
    assert counts("gender", "Male", "F", set_name="intake") == (0, 1, 1)
    # Elsewhere a letter is a letter.
    assert counts("gender", "Male", "M", set_name="invoices") == (0, 1, 1)
