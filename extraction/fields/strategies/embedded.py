"""A caller's field names matched to the values a file states for machines (an e-invoice attached
to a PDF, `formats/einvoice.py`).

A field name is matched by what it means, not how it is spelled: its concept (`normalize.
concept_of`: `partner_city` and `Stadt` are a city) and whose value it asks for. On an invoice an
address, a name or a contact with no party named ("city", "issuer", "telephone") is the seller's:
the one who issued it. Names of no known concept are matched to the value's own label ("note",
"payment means code").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extraction.fields.model.citations import units_citations
from extraction.fields.model.context import FieldContext
from extraction.fields.model.evidence import Evidence, field_result
from extraction.fields.model.result import FieldResult, absent
from extraction.fields.model.strategy import Ask
from extraction.fields.reading.normalize import concept_of, label_tokens
from extraction.fields.reading.value_kinds import read_value
from extraction.fields.reading.vocabulary import validate
from extraction.fields.strategies.label_pairs import PRIORS
from extraction.formats.document import EmbeddedValue

#: Words of a field name that ask for the buyer's value rather than the seller's.
_BUYER_WORDS = frozenset(
    {"buyer", "customer", "client", "purchaser", "recipient", "debtor", "billed", "bill", "ship", "sold"}
)
#: Per concept of a party's value, the keys that hold it, best first; a `code` in the field's
#: name asks for the code ("state_code": "CA"), otherwise the name comes first ("state").
_PARTY_KEYS: dict[str, tuple[str, ...]] = {
    "company": ("name",),
    "full_name": ("name",),
    "street": ("street",),
    "address": ("street",),
    "city": ("city",),
    "zip": ("postal_code",),
    "state": ("state", "state_code"),
    "country": ("country", "country_code"),
    "email": ("email",),
    "phone": ("phone",),
    "website": ("website",),
    "registration": ("tax_id", "registration"),
}
#: The number ending a field name of one line of an address ("partner_street2", "address_line_3").
_LINE_NUMBER_RE = re.compile(r"(?<!\d)([123])$")
_STREET_LINES = {1: "street", 2: "street2", 3: "street3"}
#: Per concept of the invoice's own values, the keys that hold it, best first.
_DOCUMENT_KEYS: dict[str, tuple[str, ...]] = {
    "invoice_number": ("invoice.number",),
    "date": ("invoice.issue_date",),
    "due_date": ("invoice.due_date",),
    "start_date": ("invoice.period_start",),
    "end_date": ("invoice.period_end",),
    "currency": ("invoice.currency",),
    "order_number": ("invoice.order_reference",),
    "incoterm": ("invoice.incoterm",),
    "total": ("totals.payable", "totals.tax_inclusive"),
    "subtotal": ("totals.tax_exclusive", "totals.lines"),
    "tax": ("totals.tax",),
    "iban": ("payment.iban",),
    "bic": ("payment.bic",),
}
#: Other words for a value's label, as bookkeeping systems name them.
_LABEL_SYNONYMS: dict[str, tuple[str, ...]] = {
    "invoice.note": ("narration", "remarks", "comment"),
}


@dataclass(frozen=True)
class Stated:
    """What an attached e-invoice says of a field: its value, or (`value` None) that it has none:
    an address whose second line it leaves out has no second line."""

    value: EmbeddedValue | None


def embedded_result(ctx: FieldContext, ask: Ask) -> FieldResult | None:
    """The value an attached e-invoice states for the field, read as the field's kind; cited
    where the page shows the same text, if it does. None where the file states nothing of it."""
    answer = embedded_value(ctx.doc.embedded, ask.spec.name)
    if answer is None:
        return None
    stated = answer.value
    if stated is None:
        return absent()
    reading = read_value(ask.kind, stated.value, leading=True) if ask.kind != "text" else None
    value = reading.value if reading is not None else stated.value
    evidence = Evidence("form_fields", "embedded", validate(ask.spec, value), PRIORS["embedded"])
    shown = [u for u in ctx.lines if stated.value.casefold() in u.text.casefold()][:1]
    return field_result(value, evidence, units_citations(ctx.doc, shown, ctx.file_name), stated.value)


def embedded_value(embedded: list[EmbeddedValue], name: str) -> Stated | None:
    """What the embedded values state for field `name`; None when they do not speak of it."""
    if not embedded:
        return None
    by_key = {value.key: value for value in embedded}
    words = set(label_tokens(name))
    concept = concept_of(name)
    if concept == "currency" and "symbol" in words:
        # The e-invoice states the ISO code; the symbol is what the page prints.
        return None
    if concept in _DOCUMENT_KEYS:
        return _stated(_first_of(by_key, _DOCUMENT_KEYS[concept]))
    if concept in _PARTY_KEYS:
        role = "buyer" if words & _BUYER_WORDS else "seller"
        keys = _PARTY_KEYS[concept]
        line = _LINE_NUMBER_RE.search(name.strip())
        if concept in ("street", "address") and line is not None:
            if not any(key.startswith(f"{role}.street") for key in by_key):
                return None
            return Stated(by_key.get(f"{role}.{_STREET_LINES[int(line.group(1))]}"))
        if "code" in words:
            keys = tuple(sorted(keys, key=lambda key: not key.endswith("_code")))
        return _stated(_first_of(by_key, tuple(f"{role}.{key}" for key in keys)))
    if concept is None:
        return _stated(next((value for value in embedded if _named_by(words, value)), None))
    return None


def _stated(found: EmbeddedValue | None) -> Stated | None:
    """A value found is stated; none found means the e-invoice does not speak of the field."""
    return Stated(found) if found is not None else None


def _first_of(by_key: dict[str, EmbeddedValue], keys: tuple[str, ...]) -> EmbeddedValue | None:
    return next((by_key[key] for key in keys if key in by_key), None)


def _named_by(words: set[str], value: EmbeddedValue) -> bool:
    """Whether a field name of these `words` names `value`: its label (or a synonym of it) holds
    them all; a one-word name must be the whole label."""
    for label in (value.label, *_LABEL_SYNONYMS.get(value.key, ())):
        tokens = set(label_tokens(label))
        if words and (words == tokens or (len(words) > 1 and words <= tokens)):
            return True
    return False
