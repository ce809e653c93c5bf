"""Structured e-invoices embedded in a PDF: UBL 2.1 (Peppol, XRechnung UBL) and UN/CEFACT CII
(Factur-X, ZUGFeRD, XRechnung CII).

An e-invoice PDF carries the invoice twice: drawn on the page for people, and as an XML file
attached to the PDF for machines. The XML states each value once, typed and unambiguous (the
seller's name apart from the buyer's, the tax apart from the total, dates as dates), so where a
PDF has one, its values are read from it rather than guessed from the page's layout.

Each value becomes an `EmbeddedValue` under a key of this module's own vocabulary (`seller.city`,
`totals.tax`, ...) that does not depend on the syntax it came from; field extraction matches a
caller's field names to those keys. Only the header is read: invoice lines are left to the page.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from extraction.formats.document import EmbeddedValue

#: Largest attachment read as an e-invoice; real ones are a few to a few hundred KB.
MAX_EINVOICE_BYTES = 5 * 1024 * 1024

_UBL_ROOTS = {
    "{urn:oasis:names:specification:ubl:schema:xsd:Invoice-2}Invoice",
    "{urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2}CreditNote",
}
_CII_ROOT = "{urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100}CrossIndustryInvoice"
_NS = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
}

#: (key, label, path below the party element) of a UBL party's values.
_UBL_PARTY = (
    ("name", "name", "cac:PartyName/cbc:Name"),
    ("name", "name", "cac:PartyLegalEntity/cbc:RegistrationName"),
    ("street", "street", "cac:PostalAddress/cbc:StreetName"),
    ("street2", "additional street", "cac:PostalAddress/cbc:AdditionalStreetName"),
    ("street3", "address line", "cac:PostalAddress/cac:AddressLine/cbc:Line"),
    ("city", "city", "cac:PostalAddress/cbc:CityName"),
    ("postal_code", "postal code", "cac:PostalAddress/cbc:PostalZone"),
    ("state", "state", "cac:PostalAddress/cbc:CountrySubentity"),
    ("state_code", "state code", "cac:PostalAddress/cbc:CountrySubentityCode"),
    ("country_code", "country code", "cac:PostalAddress/cac:Country/cbc:IdentificationCode"),
    ("country", "country", "cac:PostalAddress/cac:Country/cbc:Name"),
    ("email", "email", "cac:Contact/cbc:ElectronicMail"),
    ("phone", "telephone", "cac:Contact/cbc:Telephone"),
    ("website", "website", "cbc:WebsiteURI"),
    ("tax_id", "VAT id", "cac:PartyTaxScheme/cbc:CompanyID"),
    ("registration", "company registration", "cac:PartyLegalEntity/cbc:CompanyID"),
)
#: (key, label, path below the document root) of a UBL invoice's own values.
_UBL_DOCUMENT = (
    ("invoice.number", "invoice number", "cbc:ID"),
    ("invoice.issue_date", "invoice date", "cbc:IssueDate"),
    ("invoice.due_date", "due date", "cbc:DueDate"),
    ("invoice.due_date", "due date", "cac:PaymentMeans/cbc:PaymentDueDate"),
    ("invoice.currency", "currency", "cbc:DocumentCurrencyCode"),
    ("invoice.note", "note", "cbc:Note"),
    ("invoice.buyer_reference", "buyer reference", "cbc:BuyerReference"),
    ("invoice.order_reference", "order reference", "cac:OrderReference/cbc:ID"),
    ("invoice.period_start", "period start date", "cac:InvoicePeriod/cbc:StartDate"),
    ("invoice.period_end", "period end date", "cac:InvoicePeriod/cbc:EndDate"),
    ("invoice.incoterm", "incoterm", "cac:Delivery/cac:DeliveryTerms/cbc:ID"),
    ("payment.means_code", "payment means code (UNECE 4461)", "cac:PaymentMeans/cbc:PaymentMeansCode"),
    ("payment.reference", "payment reference", "cac:PaymentMeans/cbc:PaymentID"),
    ("payment.iban", "IBAN", "cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID"),
    (
        "payment.bic",
        "BIC",
        "cac:PaymentMeans/cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID",
    ),
    ("payment.terms", "payment terms", "cac:PaymentTerms/cbc:Note"),
    ("totals.lines", "line total", "cac:LegalMonetaryTotal/cbc:LineExtensionAmount"),
    ("totals.tax_exclusive", "total without tax", "cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount"),
    ("totals.tax_inclusive", "total with tax", "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount"),
    ("totals.payable", "amount due", "cac:LegalMonetaryTotal/cbc:PayableAmount"),
    ("totals.tax", "tax amount", "cac:TaxTotal/cbc:TaxAmount"),
)
_UBL_PARTIES = (
    ("seller", "cac:AccountingSupplierParty/cac:Party"),
    ("buyer", "cac:AccountingCustomerParty/cac:Party"),
)

_CII_AGREEMENT = "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement"
_CII_SETTLEMENT = "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement"
_CII_SUMMATION = f"{_CII_SETTLEMENT}/ram:SpecifiedTradeSettlementHeaderMonetarySummation"
_CII_PAYMENT = f"{_CII_SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans"
_CII_PARTY = (
    ("name", "name", "ram:Name"),
    ("street", "street", "ram:PostalTradeAddress/ram:LineOne"),
    ("street2", "additional street", "ram:PostalTradeAddress/ram:LineTwo"),
    ("street3", "address line", "ram:PostalTradeAddress/ram:LineThree"),
    ("city", "city", "ram:PostalTradeAddress/ram:CityName"),
    ("postal_code", "postal code", "ram:PostalTradeAddress/ram:PostcodeCode"),
    ("state", "state", "ram:PostalTradeAddress/ram:CountrySubDivisionName"),
    ("country_code", "country code", "ram:PostalTradeAddress/ram:CountryID"),
    ("email", "email", "ram:URIUniversalCommunication/ram:URIID"),
    ("email", "email", "ram:DefinedTradeContact/ram:EmailURIUniversalCommunication/ram:URIID"),
    ("phone", "telephone", "ram:DefinedTradeContact/ram:TelephoneUniversalCommunication/ram:CompleteNumber"),
    ("tax_id", "VAT id", "ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']"),
    ("registration", "company registration", "ram:SpecifiedLegalOrganization/ram:ID"),
)
_CII_DOCUMENT = (
    ("invoice.number", "invoice number", "rsm:ExchangedDocument/ram:ID"),
    ("invoice.issue_date", "invoice date", "rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString"),
    ("invoice.note", "note", "rsm:ExchangedDocument/ram:IncludedNote/ram:Content"),
    ("invoice.buyer_reference", "buyer reference", f"{_CII_AGREEMENT}/ram:BuyerReference"),
    (
        "invoice.order_reference",
        "order reference",
        f"{_CII_AGREEMENT}/ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID",
    ),
    (
        "invoice.incoterm",
        "incoterm",
        "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeDelivery"
        "/ram:ApplicableTradeDeliveryTerms/ram:DeliveryTypeCode",
    ),
    ("invoice.currency", "currency", f"{_CII_SETTLEMENT}/ram:InvoiceCurrencyCode"),
    (
        "invoice.due_date",
        "due date",
        f"{_CII_SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString",
    ),
    (
        "invoice.period_start",
        "period start date",
        f"{_CII_SETTLEMENT}/ram:BillingSpecifiedPeriod/ram:StartDateTime/udt:DateTimeString",
    ),
    (
        "invoice.period_end",
        "period end date",
        f"{_CII_SETTLEMENT}/ram:BillingSpecifiedPeriod/ram:EndDateTime/udt:DateTimeString",
    ),
    ("payment.reference", "payment reference", f"{_CII_SETTLEMENT}/ram:PaymentReference"),
    ("payment.means_code", "payment means code (UNECE 4461)", f"{_CII_PAYMENT}/ram:TypeCode"),
    ("payment.iban", "IBAN", f"{_CII_PAYMENT}/ram:PayeePartyCreditorFinancialAccount/ram:IBANID"),
    ("payment.bic", "BIC", f"{_CII_PAYMENT}/ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID"),
    (
        "payment.terms",
        "payment terms",
        f"{_CII_SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:Description",
    ),
    ("totals.lines", "line total", f"{_CII_SUMMATION}/ram:LineTotalAmount"),
    ("totals.tax_exclusive", "total without tax", f"{_CII_SUMMATION}/ram:TaxBasisTotalAmount"),
    ("totals.tax", "tax amount", f"{_CII_SUMMATION}/ram:TaxTotalAmount"),
    ("totals.tax_inclusive", "total with tax", f"{_CII_SUMMATION}/ram:GrandTotalAmount"),
    ("totals.payable", "amount due", f"{_CII_SUMMATION}/ram:DuePayableAmount"),
)
_CII_PARTIES = (
    ("seller", f"{_CII_AGREEMENT}/ram:SellerTradeParty"),
    ("buyer", f"{_CII_AGREEMENT}/ram:BuyerTradeParty"),
)
#: CII writes dates as `udt:DateTimeString format="102"`: YYYYMMDD.
_CII_DATE_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
#: A declaration of entities is how an XML bomb expands; an e-invoice never needs one.
_DOCTYPE_RE = re.compile(rb"<!DOCTYPE|<!ENTITY", re.IGNORECASE)


def read_einvoice(data: bytes, source: str) -> list[EmbeddedValue]:
    """The header values of the e-invoice in `data` (the attachment named `source`); empty when
    it is no UBL or CII invoice, or is not well-formed."""
    if len(data) > MAX_EINVOICE_BYTES or _DOCTYPE_RE.search(data[:4096]):
        return []
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return []
    if root.tag in _UBL_ROOTS:
        return list(_values(root, _UBL_DOCUMENT, _UBL_PARTIES, _UBL_PARTY, source, cii=False))
    if root.tag == _CII_ROOT:
        return list(_values(root, _CII_DOCUMENT, _CII_PARTIES, _CII_PARTY, source, cii=True))
    return []


def _values(
    root: ET.Element,
    document: tuple[tuple[str, str, str], ...],
    parties: tuple[tuple[str, str], ...],
    party_fields: tuple[tuple[str, str, str], ...],
    source: str,
    *,
    cii: bool,
) -> Iterator[EmbeddedValue]:
    seen: set[str] = set()
    for key, label, path in document:
        yield from _first(root, path, key, label, source, seen, cii)
    for role, party_path in parties:
        party = root.find(party_path, _NS)
        if party is None:
            continue
        for key, label, path in party_fields:
            yield from _first(party, path, f"{role}.{key}", f"{role} {label}", source, seen, cii)


def _first(
    element: ET.Element, path: str, key: str, label: str, source: str, seen: set[str], cii: bool
) -> Iterator[EmbeddedValue]:
    """The value at `path` under `element`, unless `key` already has one (the paths of a key are
    listed most specific first)."""
    if key in seen:
        return
    found = element.find(path, _NS)
    if found is None or not (text := " ".join((found.text or "").split())):
        return
    if cii and (m := _CII_DATE_RE.match(text)) and path.endswith("udt:DateTimeString"):
        text = f"{m[1]}-{m[2]}-{m[3]}"
    seen.add(key)
    yield EmbeddedValue(key=key, label=label[0].upper() + label[1:], value=text, source=source)
