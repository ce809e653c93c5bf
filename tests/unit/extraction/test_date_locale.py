import pytest

from extraction.fields.reading.date_locale import infer_date_order, locale_date_order, resolve_date_order

pytestmark = pytest.mark.unit


def test_locale_cues_of_day_first_places() -> None:
    assert locale_date_order(["TOTAL RM 9.00"]) == "DMY"
    assert locale_date_order(["Amount due £120.00"]) == "DMY"
    assert locale_date_order(["10 Downing Street, London SW1A 2AA"]) == "DMY"
    assert locale_date_order(["ABC TRADING SDN BHD", "Kuala Lumpur"]) == "DMY"


def test_locale_cues_of_month_first_places() -> None:
    assert locale_date_order(["Austin, TX 78701", "Total $ 12.00"]) == "MDY"
    # Two capitals and five digits that are not a US state say nothing.
    assert locale_date_order(["Ref ZZ 12345"]) is None
    assert locale_date_order(["Date of birth"]) is None


def test_unambiguous_dates_outrank_locale() -> None:
    # Day first by its own date although it prices in dollars.
    assert infer_date_order(["Total $5.00", "Date 25/12/2018"]) == "DMY"
    # Month first by its own date although it prices in ringgit.
    assert infer_date_order(["Total RM5.00", "Date 12/25/2018"]) == "MDY"
    assert infer_date_order(["Total RM5.00", "Date 03/04/2018"]) == "DMY"
    assert infer_date_order(["Date 03/04/2018"]) == "MDY"


def test_a_stated_order_is_used_as_given() -> None:
    assert resolve_date_order(["Total RM5.00", "Date 25/12/2018"], "MDY") == "MDY"
    assert resolve_date_order(["Austin, TX 78701"], "DMY") == "DMY"
    assert resolve_date_order(["Total RM5.00"], None) == "DMY"
