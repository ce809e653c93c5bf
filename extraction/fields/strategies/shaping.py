"""A candidate's value as its field wants it (a part of a name, a ticked option, a city out of a
city line), checked by the field's validator, and whether it is the patient's at all."""

from extraction.fields.model.candidate import Candidate
from extraction.fields.model.context import FieldContext
from extraction.fields.reading.choices import marked_initial, marked_option
from extraction.fields.reading.date_text import find_dates, parse_date
from extraction.fields.reading.names import doctor_titled
from extraction.fields.reading.normalize import is_label_like
from extraction.fields.reading.vocabulary import (
    GENDER_OPTIONS,
    FieldSpec,
    address_part,
    code_like_label,
    field_spec,
    is_other_party,
    is_prose,
    name_letters_mended,
    read_gender,
    street_suffix_mended,
    validate,
)
from extraction.fields.strategies.structure.combined import (
    caption_order,
    combined_caption,
    names_parts,
    split_by_caption,
)


def belongs(candidate: Candidate, spec: FieldSpec, ctx: FieldContext) -> bool:
    """A patient's field takes no value labelled as, or placed under, someone else's (a doctor's
    section included)."""
    if not spec.patient_owned:
        return True
    heads = {candidate.label, *(caption_head(u.text) for u in candidate.units[:1])}
    if (
        candidate.label
        and candidate.units
        and is_other_party(word_before(candidate.units[0].text, candidate.label))
    ):
        # "Subscriber DOB Jan 7, 1983": the word before the label says whose date it is.
        return False
    if is_other_party(candidate.label) or any(field_spec(h).owner == "provider" for h in heads if h):
        # "Physician Last Name" is the doctor's, however well "Last Name" names the field; so is
        # "FIRST" read out of "PCP (LAST FIRST): ...".
        return False
    return not any(
        (unit.page, unit.box) in ctx.other_places or (unit.page, unit.box) in ctx.provider_places
        for unit in candidate.units
    )


def word_before(text: str, label: str) -> str:
    """The word just before `label` in `text`, or ""."""
    at = text.find(label)
    return text[:at].split()[-1] if at > 0 and text[:at].split() else ""


def caption_head(text: str) -> str:
    """What a line says before its first colon: the whole caption its value follows."""
    head, colon, _ = text.partition(":")
    return head if colon else ""


def shaped(candidate: Candidate | None, spec: FieldSpec, ctx: FieldContext) -> Candidate | None:
    """The candidate's value as the field wants it (a part of a name, a ticked option, a city
    out of "City, ST 12345"), checked by the field's validator: one that fails scores lower."""
    if candidate is None:
        return None
    value = candidate.value
    if spec.patient_owned and spec.part is not None and isinstance(value, str) and doctor_titled(value):
        # "Dr. Cormac Gallagher" under a doctors' table's "Name" column is no patient's name.
        return None
    if isinstance(value, str):
        if spec.part is not None and (
            candidate.strategy in ("whole_name", "banner")
            or spec.owner != "patient"
            or names_parts(candidate.label)
        ):
            if is_label_like(value):
                # "Primary care" under a doctors' column header "Doctor" heads a row, names no one.
                return None
            if spec.owner == "provider" and len(value.split()) == 1 and not caption_order(candidate.label):
                # A doctor's whole name of one bare word ("Dentist" in a column of doctors'
                # kinds) is doubtful: forms write a doctor's surname alone with "Dr." or "MD".
                candidate.score *= INVALID_PENALTY
            person = split_by_caption(candidate.label, value)
            value = person.part(spec.part) if person is not None else None
        elif spec.concept == "gender":
            value = _option(value) or value
        elif spec.concept in ("city", "state", "zip") and (
            not validate(spec, value)
            or combined_caption(candidate.label, spec.concept)
            or candidate.strategy == "city_line"
        ):
            value = address_part(value, spec.concept) or value
        elif spec.concept == "street" and candidate.source == "ocr":
            value = street_suffix_mended(value)
        elif spec.part is not None and candidate.source == "ocr":
            value = name_letters_mended(value)
    if value is None or (
        isinstance(value, str)
        and (
            (is_label_like(value) and not code_like_label(spec.concept, value))
            or is_prose(value)
            or _heading_tail(value)
        )
    ):
        # "PATIENT LAST NAME" under "FIRST NAME" is the next label, not a value; a clause after
        # "party" in a contract's text is no party.
        return None
    if spec.concept == "company" and isinstance(value, str) and not any(c.isalpha() for c in value):
        # A name is written in letters: "#464" after "STORE" is the store's number, not its name.
        return None
    if spec.concept in _IDENTIFIER_CONCEPTS and isinstance(value, str) and parse_date(value) is not None:
        # A date beside "Group #:" with its own box empty is the next field's value.
        return None
    if spec.part is not None and isinstance(value, str) and _words_and_digits(value):
        # "Work Phone 775.488.3343" beside an empty "Middle Name" box is the next field's; a
        # lone digit may still be an OCR-read initial ("1" for "I").
        return None
    candidate.value = value
    candidate.valid = validate(spec, value)
    if candidate.valid is False:
        if spec.concept in STRICT_CONCEPTS:
            # A ZIP code that is no ZIP code is the wrong text, not a doubtful value.
            return None
        candidate.score *= INVALID_PENALTY
    if spec.concept in _DATE_CONCEPTS and isinstance(candidate.raw, str):
        candidate.ambiguous = any(d.ambiguous for d in find_dates(candidate.raw, ctx.order))
    return candidate


def _option(text: str) -> str | None:
    return marked_option(text, GENDER_OPTIONS) or marked_initial(text, GENDER_OPTIONS) or read_gender(text)


def _words_and_digits(value: str) -> bool:
    return len(value.split()) > 1 and any(c.isdigit() for c in value)


#: Words that end a section's heading ("Insurance Information", "Patient Details"): after a label
#: word they are the rest of the heading, not that label's value.
_HEADING_TAIL_WORDS = frozenset(
    {"information", "info", "details", "detail", "section", "data", "form", "coverage"}
)
#: Concepts whose values are references, never dates.
_IDENTIFIER_CONCEPTS = frozenset(
    {"policy_id", "group_number", "invoice_number", "order_number", "account_number"}
)


def _heading_tail(value: str) -> bool:
    words = [w.strip(".:") for w in value.lower().split()]
    # "CLAIM FORM" after "HEALTH INSURANCE" is the rest of the page's title.
    return bool(words) and (all(w in _HEADING_TAIL_WORDS for w in words) or words[-1] == "form")


#: Concepts whose values have a shape so definite that a value without it is dropped.
STRICT_CONCEPTS = frozenset(
    {
        "zip",
        "state",
        "gender",
        "mobile",
        "phone",
        "home_phone",
        "work_phone",
        "fax",
        "date_of_birth",
        "term",
        "party",
    }
)
#: A value that fails its field's validator scores this share, so a valid one wins.
INVALID_PENALTY = 0.5
_DATE_CONCEPTS = frozenset(
    {"date", "due_date", "start_date", "end_date", "effective_date", "date_of_birth", "order_date"}
)
