"""Derivation of the patient natural key `patient_pcref` (docs/spec.md "Native tool: practice_save_patient").

The key is shared by every patient tool, so it lives here as one pure function. The steps follow
SPEC exactly and in its order; in particular apostrophes go last, after the truncation, so a name
with apostrophes gives a key shorter than the maximum.
"""

from __future__ import annotations

from tools.practice.dob import normalize_dob
from tools.practice.errors import PracticeInputError

#: docs/spec.md "Key derivation" step 3 and Limits "Patient key": the names are truncated to 57 characters.
PCREF_NAME_MAX_CHARS = 57
#: docs/spec.md "Key derivation" and Limits "Patient key": the key is at most 65 characters (57 + 8 DOB digits).
PCREF_MAX_CHARS = 65

#: Characters removed as "apostrophes" in step 5: the ASCII one and the look-alikes that keyboards,
#: word processors and OCR put in names (O'Brien with a curly quote, a prime, a modifier letter...).
#: Removing them all keeps one person from getting several keys (a false split: a duplicate record).
APOSTROPHES = frozenset(
    "'"  # U+0027 apostrophe
    "`"  # U+0060 grave accent, typed for an apostrophe
    "\u00b4"  # acute accent
    "\u02b9"  # modifier letter prime
    "\u02bb"  # modifier letter turned comma ('okina)
    "\u02bc"  # modifier letter apostrophe
    "\u02bd"  # modifier letter reversed comma
    "\u2018"  # left single quotation mark
    "\u2019"  # right single quotation mark
    "\u201b"  # single high-reversed-9 quotation mark
    "\u2032"  # prime
    "\u2035"  # reversed prime
    "\uff07"  # fullwidth apostrophe
)


def derive_pcref(first_name: str, last_name: str, dob: str) -> str:
    """Derive `patient_pcref` from the separate given and family names and the date of birth.

    `dob` may be in any accepted input format; it is appended normalised as MMDDYYYY.
    Raises PracticeInputError when a name is blank, when nothing of the names survives, or in the one
    case where lowercasing lengthens the key past the limit (U+0130 lowercases to two characters);
    the caller can then pass an explicit `patient_pcref` override instead.
    """
    if not first_name.strip() or not last_name.strip():
        raise PracticeInputError("first_name and last_name are both required to derive patient_pcref")
    date_digits = normalize_dob(dob)
    names = first_name + last_name  # step 1
    names = "".join(ch for ch in names if not ch.isspace())  # step 2
    names = names[:PCREF_NAME_MAX_CHARS]  # step 3
    key = names + date_digits  # step 4
    key = "".join(ch for ch in key.lower() if ch not in APOSTROPHES)  # step 5
    if len(key) == len(date_digits):
        raise PracticeInputError("patient_pcref cannot be derived: the names contain no usable characters")
    if len(key) > PCREF_MAX_CHARS:
        raise PracticeInputError(
            f"the derived patient_pcref would exceed {PCREF_MAX_CHARS} characters after lowercasing; "
            "pass patient_pcref explicitly"
        )
    return key


def validate_pcref_override(value: str) -> str:
    """Check a caller-supplied `patient_pcref` (no whitespace, at most 65 characters); return it lowercase."""
    if not value:
        raise PracticeInputError("patient_pcref override must not be empty")
    if any(ch.isspace() for ch in value):
        raise PracticeInputError("patient_pcref override must not contain whitespace")
    if len(value) > PCREF_MAX_CHARS:
        raise PracticeInputError(f"patient_pcref override must be at most {PCREF_MAX_CHARS} characters")
    lowered = value.lower()
    if len(lowered) > PCREF_MAX_CHARS:
        raise PracticeInputError(
            f"patient_pcref override must be at most {PCREF_MAX_CHARS} characters once lowercased"
        )
    return lowered
