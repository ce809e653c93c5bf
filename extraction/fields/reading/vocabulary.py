"""The field vocabulary: what a caller's field name asks for, and what a right value looks like.

A field name maps to a concept of `normalize.CONCEPTS` (synonyms and label variants live there),
to whose value it is (the patient's, unless the name says another person's: `provider_last_name`),
to a part of a person's name when it asks for one, and to a validator: a ZIP code is 5 or 9 digits,
a state a USPS code or name, a birth date a plausible past date, a policy number an id-like token.
Names the vocabulary does not know keep the generic label matching of `normalize.match_label`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from extraction.fields.reading.names import NamePart, family_word, split_name
from extraction.fields.reading.normalize import concept_of, label_tokens
from extraction.fields.reading.parties import looks_like_party

#: Words that make a label, a section heading or a field name someone else's than the patient's.
OTHER_PARTY_WORDS = frozenset(
    {
        "emergency",
        "emerg",
        "emergencia",
        "titular",
        "asegurado",
        "tutor",
        "padre",
        "madre",
        "conyuge",
        "parentesco",
        "empleador",
        "ec",
        "contact",
        "insured",
        "subscriber",
        "holder",
        "policyholder",
        "guarantor",
        "responsible",
        "spouse",
        "guardian",
        "parent",
        "employer",
        "relationship",
        "relation",
        "referring",
        "kin",
        "pharmacy",
    }
)
#: Concepts that are facts about the patient: labels and sections of other people never give them.
PATIENT_CONCEPTS = frozenset(
    {
        "first_name",
        "last_name",
        "middle_name",
        "full_name",
        "date_of_birth",
        "gender",
        "mobile",
        "phone",
        "home_phone",
        "work_phone",
        "email",
        "street",
        "city",
        "state",
        "zip",
        "ssn",
    }
)
#: Labels of a whole person's name, per whose name it is.
WHOLE_NAME_CONCEPTS = {"patient": "full_name", "provider": "provider", "policy_holder": "policy_holder"}
_PART_OF_CONCEPT: dict[str, NamePart] = {"first_name": "first", "middle_name": "middle", "last_name": "last"}
_PART_WORDS: dict[str, NamePart] = {
    "first": "first",
    "given": "first",
    "middle": "middle",
    "last": "last",
    "family": "last",
    "surname": "last",
}
_NAME_WORDS = frozenset({"name", "initial", "patient", "pt", "s"})

US_STATES = {
    "AL": "alabama", "AK": "alaska", "AZ": "arizona", "AR": "arkansas", "CA": "california",
    "CO": "colorado", "CT": "connecticut", "DE": "delaware", "FL": "florida", "GA": "georgia",
    "HI": "hawaii", "ID": "idaho", "IL": "illinois", "IN": "indiana", "IA": "iowa", "KS": "kansas",
    "KY": "kentucky", "LA": "louisiana", "ME": "maine", "MD": "maryland", "MA": "massachusetts",
    "MI": "michigan", "MN": "minnesota", "MS": "mississippi", "MO": "missouri", "MT": "montana",
    "NE": "nebraska", "NV": "nevada", "NH": "new hampshire", "NJ": "new jersey", "NM": "new mexico",
    "NY": "new york", "NC": "north carolina", "ND": "north dakota", "OH": "ohio", "OK": "oklahoma",
    "OR": "oregon", "PA": "pennsylvania", "RI": "rhode island", "SC": "south carolina",
    "SD": "south dakota", "TN": "tennessee", "TX": "texas", "UT": "utah", "VT": "vermont",
    "VA": "virginia", "WA": "washington", "WV": "west virginia", "WI": "wisconsin", "WY": "wyoming",
    "DC": "district of columbia", "PR": "puerto rico", "GU": "guam", "VI": "virgin islands",
}  # fmt: skip
_STATE_NAMES = frozenset(US_STATES.values())
#: The options of a choice field, as check boxes or a word label them.
GENDER_OPTIONS = ("Male", "Female", "Other", "Non-binary", "Unknown")
_GENDER_WORDS = {
    "m": "Male",
    "f": "Female",
    "masculino": "Male",
    "femenino": "Female",
    **{o.lower(): o for o in GENDER_OPTIONS},
}


@dataclass(frozen=True)
class FieldSpec:
    """What a field name asks for."""

    name: str
    concept: str | None
    #: Whose value: "patient" for a patient's facts, else the concept of the holder ("provider").
    owner: str | None
    #: The part of a person's name the field wants, or None.
    part: NamePart | None
    #: The concept whose labels carry that person's whole name ("full_name", "provider"), or None.
    whole_name: str | None

    @property
    def patient_owned(self) -> bool:
        return self.owner == "patient"


@lru_cache(maxsize=4096)
def field_spec(name: str) -> FieldSpec:
    """The vocabulary's reading of a caller's field name."""
    tokens = label_tokens(name)
    concept = concept_of(name)
    # "Family" names a part only as "family name": a "Family doctor" is a whole doctor.
    named = [t for i, t in enumerate(tokens) if t in _PART_WORDS and not family_word(tokens, i)]
    parts = [_PART_WORDS[t] for t in named]
    if parts:
        rest = [t for t in tokens if t not in named and t not in _NAME_WORDS]
        holder = concept_of(" ".join(rest)) if rest else None
        if not rest:
            return FieldSpec(name, concept, "patient", parts[0], "full_name")
        if holder in WHOLE_NAME_CONCEPTS.values() and holder != "full_name":
            return FieldSpec(name, holder, holder, parts[0], holder)
        if set(rest) & OTHER_PARTY_WORDS:
            return FieldSpec(name, concept, None, parts[0], None)
    if concept in PATIENT_CONCEPTS and not set(tokens) & OTHER_PARTY_WORDS:
        part = _PART_OF_CONCEPT.get(concept or "")
        return FieldSpec(name, concept, "patient", part, "full_name" if part else None)
    return FieldSpec(name, concept, None, None, None)


def is_other_party(text: str) -> bool:
    """Whether a label or heading names someone other than the patient ("Emergency Contact",
    "Insured's Name", "Subscriber DOB"). "Contact Information" heads the patient's own phone,
    e-mail and address: a contact is someone else's only as a person ("Emergency Contact",
    "Contact Person"), not as the details to reach the patient by."""
    tokens = label_tokens(text)
    named = set(tokens) & OTHER_PARTY_WORDS
    if named == {"contact"}:
        at = tokens.index("contact")
        return tokens[at + 1 : at + 2] not in (("information",), ("info",), ("details",))
    return bool(named)


def heads_other_party(heading: str) -> bool:
    """Whether a section heading names someone other than the patient: as a label does, except
    that "Contact" alone (an EHR's section row) heads the patient's own phone, e-mail and address;
    a section about someone else says whose ("Emergency Contact")."""
    return is_other_party(heading) and label_tokens(heading) != ("contact",)


_ZIP_RE = re.compile(r"^\d{5}(?:-?\d{4})?$")
_ID_RE = re.compile(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9\-./]{2,24}$")
_PERSON_WORD_RE = re.compile(r"^[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'\u2019.\-]*$")
_STREET_RE = re.compile(r"^(?:\d+[A-Za-z]?\s+\S+|p\.?\s*o\.?\s+box\s+\d+)", re.IGNORECASE)
#: Oldest plausible birth year.
MIN_BIRTH_YEAR = 1900


def valid_zip(value: str) -> bool:
    return bool(_ZIP_RE.match(value.strip()))


def valid_state(value: str) -> bool:
    text = value.strip().rstrip(".")
    return text.upper() in US_STATES or text.lower() in _STATE_NAMES


def code_like_label(concept: str | None, value: str) -> bool:
    """Whether a value that reads as a label word is still the field's value: a state's code
    that is also a label word ("ID", "OR") beside a label of the state."""
    return concept == "state" and len(value.strip()) == 2 and valid_state(value)


def valid_birth_date(iso: str, today: date | None = None) -> bool:
    """A birth date is a real past date, after `MIN_BIRTH_YEAR` and not today."""
    try:
        born = date.fromisoformat(iso)
    except ValueError:
        return False
    return born.year >= MIN_BIRTH_YEAR and born < (today or date.today())


def valid_identifier(value: str) -> bool:
    """An id-like token: letters, digits and separators, with at least one digit."""
    return bool(_ID_RE.match(value.strip()))


def valid_person_name(value: str) -> bool:
    words = value.split()
    return 0 < len(words) <= 4 and all(_PERSON_WORD_RE.match(w) for w in words)


def valid_whole_name(value: str) -> bool:
    return split_name(value) is not None


def valid_city(value: str) -> bool:
    words = value.split()
    return 0 < len(words) <= 4 and all(w.replace(".", "").replace("-", "").isalpha() for w in words)


def valid_street(value: str) -> bool:
    return bool(_STREET_RE.match(value.strip())) and len(value.split()) <= 10


#: The street suffixes of USPS Publication 28 that addresses write short, in lower case.
_STREET_SUFFIXES = frozenset(
    {
        "st", "ave", "av", "blvd", "dr", "ln", "rd", "pl", "ct", "cir", "way", "pkwy", "ter", "trl",
        "hwy", "sq", "pt", "cv", "xing", "aly", "row", "loop", "run", "walk", "pass", "path",
    }
)  # fmt: skip
#: What OCR reads for a lower-case "l": a capital "I" or a "1" ("Fullerton PI").
_OCR_AS_L = str.maketrans({"I": "l", "1": "l", "|": "l"})


def street_suffix_mended(street: str) -> str:
    """`street` with an OCR-misread street suffix at its end read as the suffix it stands for
    ("732 S Fullerton PI" is "... Pl"): only a last word that is no suffix but becomes one."""
    head, _, last = street.rstrip().rpartition(" ")
    bare = last.rstrip(".,")
    if not head or bare.lower() in _STREET_SUFFIXES:
        return street
    mended = bare.translate(_OCR_AS_L)
    if mended.lower() not in _STREET_SUFFIXES:
        return street
    return f"{head} {mended}{last[len(bare) :]}"


#: Digits OCR reads for the capitals they look like ("1" for "I" in a middle initial).
_OCR_AS_CAPITAL = str.maketrans({"1": "I", "0": "O", "5": "S", "8": "B"})


def name_letters_mended(name: str) -> str:
    """A part of a name read by OCR with digits for the capitals they look like, in letters: a
    name holds no digits, so a name whose only non-letters are such digits is mended."""
    if not any(c.isdigit() for c in name):
        return name
    mended = name.translate(_OCR_AS_CAPITAL)
    return mended if all(c.isalpha() or c in " .'-" for c in mended) else name


def valid_phone(value: str) -> bool:
    digits = [c for c in value if c.isdigit()]
    return len(digits) == 10 or (len(digits) == 11 and digits[0] == "1")


def valid_email(value: str) -> bool:
    """One address: a local part, an "@" and a domain with a dot."""
    return bool(_EMAIL_RE.fullmatch(value.strip()))


def valid_organisation(value: str) -> bool:
    """An insurer's or a company's name: words, mostly letters."""
    letters = sum(c.isalpha() for c in value)
    return letters >= 2 and letters >= 0.6 * len(value.replace(" ", "")) and len(value.split()) <= 10


_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}")
_DURATION_RE = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|eighteen|twenty|thirty|"
    r"sixty|ninety)\b[\s()\d-]*(?:year|month|week|day)s?\b",
    re.IGNORECASE,
)


def valid_duration(value: str) -> bool:
    """A term of a contract: a number of years, months, weeks or days ("2 years", "six (6)
    months"), not the words that follow a "Term" heading."""
    return bool(_DURATION_RE.search(value)) and len(value.split()) <= 8


def read_gender(value: str) -> str | None:
    """The option a gender value names ("M", "female"), spelled as the option."""
    return _GENDER_WORDS.get(value.strip().strip(".").lower())


#: Validators of values per concept: a value that fails is never returned as certain.
VALIDATORS: dict[str, Callable[[str], bool]] = {
    "zip": valid_zip,
    "state": valid_state,
    "city": valid_city,
    "street": valid_street,
    "first_name": valid_person_name,
    "last_name": valid_person_name,
    "middle_name": valid_person_name,
    "full_name": valid_whole_name,
    "provider": valid_whole_name,
    "policy_id": valid_identifier,
    "group_number": valid_identifier,
    "mobile": valid_phone,
    "phone": valid_phone,
    "home_phone": valid_phone,
    "work_phone": valid_phone,
    "fax": valid_phone,
    "insurer": valid_organisation,
    "email": valid_email,
    "gender": lambda value: read_gender(value) is not None,
    "term": valid_duration,
    # A contract's party read after a label must read as a name ("Party: the" is no party).
    "party": looks_like_party,
}


#: Words from which a run of text can read as a sentence rather than a value.
PROSE_MIN_WORDS = 6
#: Share of a run's words starting lower case from which it is a sentence: names, addresses and
#: titles capitalise most of their words, clauses of a contract do not.
PROSE_LOWER_SHARE = 0.5


def is_prose(value: str) -> bool:
    """Whether `value` reads as running text (a clause that happened to follow a label word such
    as "party" or "term") rather than a field's value."""
    words = [w for w in value.split() if w[:1].isalpha()]
    if len(words) < PROSE_MIN_WORDS:
        return False
    return sum(1 for w in words if w[0].islower()) / len(words) >= PROSE_LOWER_SHARE


def validate(spec: FieldSpec, value: object) -> bool | None:
    """Whether `value` passes the field's validator; None when the field has none."""
    if spec.part is not None:
        return isinstance(value, str) and valid_person_name(value)
    check = VALIDATORS.get(spec.concept or "")
    if check is None:
        if spec.concept == "date_of_birth" and isinstance(value, str):
            return valid_birth_date(value)
        return None
    return isinstance(value, str) and check(value)


_CITY_LINE_RE = re.compile(
    r"^\s*(?P<city>[A-Za-z][A-Za-z .'\-]*?)\s*,?\s+(?P<state>[A-Za-z]{2}|[A-Za-z]+(?: [A-Za-z]+)?)\.?"
    r"\s*,?\s+(?P<zip>\d{5}(?:-\d{4})?)\s*$"
)


def address_part(value: str, concept: str) -> str | None:
    """The city, state or ZIP of a US address's last line ("Cambridge, MA 02139")."""
    m = _CITY_LINE_RE.match(value)
    if m is None or not valid_state(m.group("state")):
        return None
    return {"city": m.group("city"), "state": m.group("state"), "zip": m.group("zip")}.get(concept)
