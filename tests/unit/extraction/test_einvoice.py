"""An e-invoice attached to a PDF (UBL or CII) is read, and field names are matched to its values."""

from __future__ import annotations

from typing import Any

from extraction.fields import extract_fields
from extraction.formats.einvoice import read_einvoice
from extraction.formats.engines import parse_bytes

UBL = b"""<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
 xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
 xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>F-2031/7</cbc:ID>
  <cbc:IssueDate>2031-02-14</cbc:IssueDate>
  <cbc:DueDate>2031-03-16</cbc:DueDate>
  <cbc:Note>Thank you for your order.</cbc:Note>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party>
    <cac:PartyName><cbc:Name>Fjord Tools AS</cbc:Name></cac:PartyName>
    <cac:PostalAddress>
      <cbc:StreetName>Kaigata 3</cbc:StreetName><cbc:CityName>Bergen</cbc:CityName>
      <cbc:PostalZone>5015</cbc:PostalZone>
      <cac:Country><cbc:IdentificationCode>NO</cbc:IdentificationCode></cac:Country>
    </cac:PostalAddress>
    <cac:Contact><cbc:Telephone>+47 55 00 00 00</cbc:Telephone></cac:Contact>
  </cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party>
    <cac:PartyName><cbc:Name>Harbour Clinic</cbc:Name></cac:PartyName>
    <cac:PostalAddress><cbc:StreetName>Strandkaien 9</cbc:StreetName><cbc:CityName>Oslo</cbc:CityName>
    </cac:PostalAddress>
  </cac:Party></cac:AccountingCustomerParty>
  <cac:Delivery><cac:DeliveryTerms><cbc:ID>DAP</cbc:ID></cac:DeliveryTerms></cac:Delivery>
  <cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>
    <cac:PayeeFinancialAccount><cbc:ID>NO9386011117947</cbc:ID></cac:PayeeFinancialAccount>
  </cac:PaymentMeans>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">25.00</cbc:TaxAmount></cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">125.00</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">125.00</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
</Invoice>"""

CII = b"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
 xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
 xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocument>
    <ram:ID>RE-88</ram:ID>
    <ram:IssueDateTime><udt:DateTimeString format="102">20300105</udt:DateTimeString></ram:IssueDateTime>
  </rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    <ram:ApplicableHeaderTradeAgreement>
      <ram:SellerTradeParty><ram:Name>Lindenhof GmbH</ram:Name>
        <ram:PostalTradeAddress><ram:PostcodeCode>10115</ram:PostcodeCode><ram:LineOne>Hauptstr. 1</ram:LineOne>
          <ram:CityName>Berlin</ram:CityName><ram:CountryID>DE</ram:CountryID></ram:PostalTradeAddress>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration>
      </ram:SellerTradeParty>
      <ram:BuyerTradeParty><ram:Name>Praxis Nord</ram:Name></ram:BuyerTradeParty>
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradePaymentTerms>
        <ram:DueDateDateTime><udt:DateTimeString format="102">20300204</udt:DateTimeString></ram:DueDateDateTime>
      </ram:SpecifiedTradePaymentTerms>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:TaxBasisTotalAmount>200.00</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="EUR">38.00</ram:TaxTotalAmount>
        <ram:GrandTotalAmount>238.00</ram:GrandTotalAmount>
        <ram:DuePayableAmount>238.00</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"""

ASKED = [
    "invoice_number",
    "date",
    "date_due",
    "issuer",
    "partner_city",
    "partner_zip",
    "country_code",
    "customer_name",
    "customer_city",
    "amount",
    "amount_tax",
    "amount_untaxed",
    "currency",
    "iban",
    "incoterm",
    "note",
    "partner_street2",
]


def _pdf_with(attachment: bytes | None, page_text: str) -> bytes:
    import pymupdf

    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_text((72, 72), page_text, fontsize=11)
    if attachment is not None:
        pdf.embfile_add("invoice.xml", attachment, filename="invoice.xml")
    data: bytes = pdf.tobytes()
    pdf.close()
    return data


def _values(pdf: bytes) -> dict[str, Any]:
    doc = parse_bytes(pdf, "invoice.pdf")
    return {name: result.value for name, result in extract_fields(doc, ASKED, file_name="x.pdf").items()}


def test_a_ubl_invoice_attached_to_a_pdf_answers_for_the_seller_unless_the_buyer_is_named() -> None:
    values = _values(_pdf_with(UBL, "Invoice F-2031/7   Fjord Tools AS   Total 125.00 EUR"))
    assert values == {
        "invoice_number": "F-2031/7",
        "date": "2031-02-14",
        "date_due": "2031-03-16",
        "issuer": "Fjord Tools AS",
        "partner_city": "Bergen",
        "partner_zip": "5015",
        "country_code": "NO",
        "customer_name": "Harbour Clinic",
        "customer_city": "Oslo",
        "amount": "125.00",
        "amount_tax": "25.00",
        "amount_untaxed": "100.00",
        "currency": "EUR",
        "iban": "NO9386011117947",
        "incoterm": "DAP",
        "note": "Thank you for your order.",
        # The seller's address has one street line: a second one is none, not the first again.
        "partner_street2": None,
    }


def test_an_attached_value_is_cited_where_the_page_shows_it() -> None:
    doc = parse_bytes(_pdf_with(UBL, "Invoice F-2031/7   Fjord Tools AS"), "invoice.pdf")
    results = extract_fields(doc, ["issuer", "partner_city"], file_name="x.pdf")
    assert results["issuer"].citations and results["issuer"].citations[0]["page"] == 1
    assert results["issuer"].source == "form_fields"
    # Bergen is not on the page: the value stands, with nothing to point at.
    assert results["partner_city"].value == "Bergen" and results["partner_city"].citations == []


def test_a_cii_invoice_factur_x_style_gives_the_same_fields() -> None:
    values = {value.key: value.value for value in read_einvoice(CII, "factur-x.xml")}
    assert values["invoice.number"] == "RE-88"
    assert values["invoice.issue_date"] == "2030-01-05"
    assert values["invoice.due_date"] == "2030-02-04"
    assert values["seller.name"] == "Lindenhof GmbH"
    assert values["seller.street"] == "Hauptstr. 1"
    assert values["seller.tax_id"] == "DE123456789"
    assert values["buyer.name"] == "Praxis Nord"
    assert values["totals.tax_exclusive"] == "200.00"
    assert values["totals.payable"] == "238.00"


def test_other_xml_a_bomb_and_broken_xml_are_no_e_invoice() -> None:
    assert read_einvoice(b"<order><id>1</id></order>", "order.xml") == []
    assert read_einvoice(b"<Invoice", "broken.xml") == []
    bomb = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>'
    assert read_einvoice(bomb, "bomb.xml") == []


def test_without_an_attachment_the_page_is_read_as_before() -> None:
    doc = parse_bytes(_pdf_with(None, "Invoice No: F-77"), "invoice.pdf")
    assert doc.embedded == []
    assert extract_fields(doc, ["invoice_number"], file_name="x.pdf")["invoice_number"].value == "F-77"
