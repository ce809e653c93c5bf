"""A policy holder stated as the patient: "Subscriber: Self", "INSURED'S NAME: SAME".

A form asks who holds the policy and the patient writes "Self" (or a claim form "SAME"): the
holder is the patient, so a field asking for the holder's name is answered with the patient's
name, read as the patient's own fields are. What stands for the patient is a word of the answer,
never a document's text.
"""

from __future__ import annotations

import re

from extraction.fields.reading.vocabulary import FieldSpec

#: Answers that say the holder is the patient.
SELF_ANSWERS = frozenset({"self", "same", "same as patient", "patient", "self patient", "the patient"})
#: The patient's field that answers each part of the holder's name.
PATIENT_PART_FIELDS = {"first": "first_name", "middle": "middle_name", "last": "last_name"}


def names_the_patient(value: object) -> bool:
    """Whether a holder's answer says the holder is the patient ("Self", "SAME", "(self)")."""
    if not isinstance(value, str):
        return False
    words = " ".join(re.findall(r"[a-z]+", value.casefold()))
    return words in SELF_ANSWERS


def asks_for_holder_name(spec: FieldSpec) -> bool:
    """Whether a field asks for the policy holder's name, whole or a part of it."""
    return spec.concept == "policy_holder"
