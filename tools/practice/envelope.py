"""The savePatientAPI request envelope (docs/contract.md section 8).

The external endpoint answers 1013 to any partial body (SPEC rule 4), so the envelope always carries
every key; whatever the tool does not expose is an empty string.
"""

from __future__ import annotations

from typing import Any

from tools.practice.inputs import SavePatientInput
from tools.practice.pcref import derive_pcref

#: docs/contract.md section 8: every key of the savePatientAPI envelope, in the documented order.
ENVELOPE_KEYS = (
    "account_id",
    "patient_pcref",
    "first_name",
    "middle_name",
    "last_name",
    "dob",
    "gender",
    "cell_phone",
    "home_phone",
    "work_phone",
    "email",
    "address_1",
    "address_2",
    "city",
    "state",
    "zip",
    "country",
    "provider_code",
    "provider_first_name",
    "provider_last_name",
    "referring_provider_code",
    "facility_code",
    "insurance",
)
#: docs/contract.md section 8: every key of an `insurance` entry.
INSURANCE_KEYS = (
    "ins_code",
    "ins_name",
    "policy_number",
    "group_number",
    "ins_rank",
    "patient_relation_to_insured",
)
#: docs/spec.md "practice_save_patient": the single insurance entry is the primary one...
PRIMARY_INS_RANK = "primary"
#: ...and the patient is the insured ("self").
SELF_RELATION_TO_INSURED = "SEL"

Envelope = dict[str, Any]


def _insurance(inputs: SavePatientInput) -> list[dict[str, str]]:
    # An entry exists when the call names an insurer (ins_code or ins_name); a policy number alone is
    # refused by SavePatientInput, so no entry is ever built around a blank insurer.
    if not (inputs.ins_code or inputs.ins_name):
        return []
    return [
        {
            "ins_code": inputs.ins_code or "",
            "ins_name": inputs.ins_name or "",
            "policy_number": inputs.policy_number or "",
            "group_number": "",
            "ins_rank": PRIMARY_INS_RANK,
            "patient_relation_to_insured": SELF_RELATION_TO_INSURED,
        }
    ]


def build_save_envelope(inputs: SavePatientInput) -> Envelope:
    """Build the complete savePatientAPI body from validated tool inputs.

    The key is the override when given, else derived from the separate names and the date of birth;
    names are used exactly as given, never split or joined.
    """
    values = inputs.model_dump(exclude={"ins_code", "ins_name", "policy_number"})
    values["patient_pcref"] = inputs.patient_pcref or derive_pcref(
        inputs.first_name, inputs.last_name, inputs.dob
    )
    return {key: _insurance(inputs) if key == "insurance" else values.get(key) or "" for key in ENVELOPE_KEYS}


def is_complete_envelope(body: object) -> bool:
    """Whether `body` has the envelope's shape: every key, string values, insurance entries complete."""
    if not isinstance(body, dict) or any(key not in body for key in ENVELOPE_KEYS):
        return False
    if any(not isinstance(body[key], str) for key in ENVELOPE_KEYS if key != "insurance"):
        return False
    insurance = body["insurance"]
    return isinstance(insurance, list) and all(
        isinstance(entry, dict) and all(isinstance(entry.get(key), str) for key in INSURANCE_KEYS)
        for entry in insurance
    )


def mask_envelope(envelope: Envelope) -> Envelope:
    """What a reviewer sees of a pending write: a copy holding only the envelope's documented keys.

    The envelope carries no credentials, so nothing is blanked; restricting to the documented keys is
    what guarantees that anything else later attached to a pending write never reaches a reviewer.
    """
    shown: Envelope = {}
    for key in ENVELOPE_KEYS:
        if key not in envelope:
            continue
        if key == "insurance":
            shown[key] = [
                {name: entry[name] for name in INSURANCE_KEYS if name in entry} for entry in envelope[key]
            ]
        else:
            shown[key] = envelope[key]
    return shown
