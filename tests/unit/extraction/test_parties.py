"""A contract's parties are the names its preamble gives a defined term to."""

from __future__ import annotations

from extraction.fields import extract_fields
from extraction.fields.reading.parties import canonical_party, clean_party, defined_parties, looks_like_party
from tests.unit.extraction.doc_builders import text_document


def test_names_before_defined_terms_are_parties_without_their_descriptions() -> None:
    text = (
        "CONFIDENTIALITY AGREEMENT This Agreement dated as of July 13, 2011 (the \u201cAgreement\u201d), "
        "is entered into between Acme Widgets, Inc., a Delaware corporation (the \u201cCompany\u201d), and "
        "Jane Q. Doe (\u201cRecipient\u201d). Blue Harbor Holdings, LLC and its subsidiaries (together, "
        "the \u201cBuyer\u201d) has requested information."
    )
    names = [name for name, _, _ in defined_parties(text)]
    assert names == ["Acme Widgets, Inc.", "Jane Q. Doe", "Blue Harbor Holdings, LLC"]
    for name, start, end in defined_parties(text):
        assert text[start:end] == name


def test_roles_documents_and_sentences_are_not_parties() -> None:
    assert not looks_like_party("The Company")
    assert not looks_like_party("Inc.")
    assert not looks_like_party("Confidential Information")
    assert not looks_like_party("or any other person")
    assert looks_like_party("Northwind Traders Ltd.")
    assert looks_like_party("Maria Lopez")
    # Two parties named together, and a recital, are no one party; a firm with "and" in its
    # name ends in its legal form.
    assert not looks_like_party("Northwind and Employee")
    assert not looks_like_party("Acme, Globex and Initech")
    assert not looks_like_party("WHEREAS, Acme and Globex Holdings, LLC")
    assert looks_like_party("Sears, Roebuck and Co.")
    assert looks_like_party("Barnes & Noble")
    assert clean_party("Acme Corp and Employee. If Employee") == "Acme Corp and Employee"
    assert (
        clean_party("Board of Directors of Northwind Traders Corporation") == "Northwind Traders Corporation"
    )
    assert clean_party("R. J. Smith Enterprises") == "R. J. Smith Enterprises"


def test_a_contract_term_is_a_duration() -> None:
    from extraction.fields.reading.vocabulary import valid_duration

    assert valid_duration("two (2) years")
    assert valid_duration("18 months")
    assert not valid_duration("and Termination")
    assert not valid_duration("has expired")


def test_a_labelled_party_that_is_no_name_gives_way_to_the_preamble() -> None:
    doc = text_document(
        "This Agreement is made between Northwind Traders Ltd. (the \u201cCompany\u201d) and "
        "Maria Lopez (\u201cEmployee\u201d).\n"
        "No amendment binds either party unless in writing.\n"
        "Party: the"
    )
    result = extract_fields(doc, ["party"], file_name="nda.txt")["party"]
    assert result.value == ["Northwind Traders Ltd.", "Maria Lopez"]


def test_a_party_comes_back_in_its_register_spelling() -> None:
    assert canonical_party("Kite Pharma, Inc.") == "Kite Pharma Inc."
    assert canonical_party("Escalade, Incorporated") == "Escalade Inc."
    assert canonical_party("Wynn Resorts, Limited") == "Wynn Resorts Ltd."
    assert canonical_party("Leonard Green\u00a0& Partners, L.P.") == "Leonard Green and Partners LP"
    assert canonical_party("Z Capital Partners, L.L.C.") == "Z Capital Partners LLC"
    assert canonical_party("Xinyuan Real Estate Co., Ltd.") == "Xinyuan Real Estate Co. Ltd."
    assert canonical_party("Sears, Roebuck and Co.") == "Sears Roebuck and Co."
    assert canonical_party("Maher Albitar, M.D.") == "Maher Albitar"
    assert canonical_party("Colt\u2019s Manufacturing Company LLC") == "Colt's Manufacturing Company LLC"
    # Words that only begin like a legal form stay as they are.
    assert canonical_party("Incyte Corporation") == "Incyte Corporation"
    assert canonical_party("Limitless Venture Group") == "Limitless Venture Group"


def test_the_preamble_parties_are_canonical_and_cited_as_printed() -> None:
    doc = text_document(
        "This Agreement is made between Kite Pharma, Inc., a Delaware corporation (the \u201cCompany\u201d), "
        "and Gilead Sciences, Incorporated (\u201cGilead\u201d)."
    )
    result = extract_fields(doc, ["party"], file_name="nda.txt")["party"]
    assert result.value == ["Kite Pharma Inc.", "Gilead Sciences Inc."]
    assert result.raw == "Kite Pharma, Inc; Gilead Sciences, Incorporated"


def test_the_term_is_counted_from_the_contract_not_a_covenant_or_the_end_of_employment() -> None:
    def term_of(text: str) -> object:
        return extract_fields(text_document(text), ["term"], file_name="nda.txt")["term"].value

    assert (
        term_of(
            "1. Confidentiality. The Recipient shall hold the Information in confidence for a period of "
            "two (2) years from the date hereof. 2. Non-Solicitation. For a period of one (1) year from the "
            "date hereof, the Recipient will not solicit any employee of the Company."
        )
        == "2 years"
    )
    # A non-compete after employment ends, and a standstill, are periods of those covenants.
    assert (
        term_of(
            "During the term of this Agreement and for a period of one (1) year thereafter, Employee will "
            "not compete with the Company. 8. Standstill. For a period of eighteen (18) months from the date "
            "hereof, you shall not acquire any securities of the Company."
        )
        is None
    )
    assert (
        term_of(
            "This Agreement shall remain in effect for twelve (12) months following the termination of "
            "Employee's employment with the Company."
        )
        is None
    )


def test_another_agreements_date_is_not_the_effective_date() -> None:
    def effective(text: str) -> object:
        doc = text_document(text)
        return extract_fields(doc, ["effective_date"], file_name="nda.txt")["effective_date"].value

    assert (
        effective(
            "WHEREAS, pursuant to that certain Agreement and Plan of Merger dated as of May 1, 2013 (the "
            "\u201cMerger Agreement\u201d), the parties wish to protect the Information. This Agreement is "
            "made as of June 3, 2013 by and between Acme Corp and Globex Inc."
        )
        == "2013-06-03"
    )
    assert (
        effective(
            "HB and Heritage Bank have entered into a Plan and Agreement of Merger, dated April 3, 2019. "
            "Each Director agrees to keep the Information confidential."
        )
        is None
    )
    assert (
        effective("IN WITNESS WHEREOF, the parties have executed this agreement this 16th day of May, 2011.")
        == "2011-05-16"
    )
