import copy
import json
from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest

from tools.practice import (
    CREDENTIAL_FIELDS,
    ENVELOPE_KEYS,
    GET_TOOL_SCHEMA,
    SAVE_TOOL_SCHEMA,
    PracticeInputError,
    build_save_envelope,
    is_complete_envelope,
    mask_envelope,
    parse_get_input,
    parse_save_input,
)

pytestmark = pytest.mark.unit

# Copied from docs/contract.md section 8, on purpose not imported: the code must match the document.
CONTRACT_ENVELOPE_KEYS = [
    "account_id", "patient_pcref", "first_name", "middle_name", "last_name", "dob", "gender",
    "cell_phone", "home_phone", "work_phone", "email", "address_1", "address_2", "city", "state", "zip",
    "country", "provider_code", "provider_first_name", "provider_last_name", "referring_provider_code",
    "facility_code", "insurance",
]  # fmt: skip
CONTRACT_INSURANCE_KEYS = {
    "ins_code", "ins_name", "policy_number", "group_number", "ins_rank", "patient_relation_to_insured",
}  # fmt: skip
# docs/spec.md "Native tool: practice_save_patient", the inputs table.
SPEC_SAVE_INPUTS = {
    "account_id", "first_name", "last_name", "dob", "patient_pcref", "middle_name", "gender", "cell_phone",
    "email", "address_1", "address_2", "city", "state", "zip", "provider_code", "provider_first_name",
    "provider_last_name", "ins_code", "ins_name", "policy_number",
}  # fmt: skip
NEVER_EXPOSED = ["home_phone", "work_phone", "country", "referring_provider_code", "facility_code"]

MINIMAL = {"account_id": "acct-1", "first_name": "Mary Ann", "last_name": "Smith", "dob": "1/2/1980"}
FULL = {
    **MINIMAL,
    "middle_name": "Q",
    "gender": "F",
    "cell_phone": "555-0100",
    "email": "mary@example.org",
    "address_1": "1 Main St",
    "address_2": "Apt 2",
    "city": "Springfield",
    "state": "IL",
    "zip": "62701",
    "provider_code": "PRV1",
    "provider_first_name": "Greg",
    "provider_last_name": "House",
    "ins_code": "AET",
    "ins_name": "Aetna",
    "policy_number": "P-123",
}


def envelope_for(arguments: Mapping[str, Any]) -> dict[str, Any]:
    return build_save_envelope(parse_save_input(arguments))


def test_minimal_envelope_has_every_key_in_order_and_blanks_as_empty_strings() -> None:
    envelope = envelope_for(MINIMAL)
    assert list(envelope) == CONTRACT_ENVELOPE_KEYS
    assert list(ENVELOPE_KEYS) == CONTRACT_ENVELOPE_KEYS
    assert envelope["insurance"] == []
    for key in [*NEVER_EXPOSED, "middle_name", "gender", "email", "zip", "provider_code"]:
        assert envelope[key] == ""
    assert all(isinstance(envelope[key], str) for key in CONTRACT_ENVELOPE_KEYS[:-1])
    assert is_complete_envelope(envelope)


def test_names_are_used_exactly_as_given_and_dob_normalised() -> None:
    envelope = envelope_for(MINIMAL)
    assert envelope["first_name"] == "Mary Ann"
    assert envelope["last_name"] == "Smith"
    assert envelope["dob"] == "01021980"
    assert envelope["patient_pcref"] == "maryannsmith01021980"


def test_full_input_maps_every_field() -> None:
    envelope = envelope_for(FULL)
    for key in SPEC_SAVE_INPUTS - {"ins_code", "ins_name", "policy_number", "dob"}:
        assert envelope[key] == FULL.get(key, envelope[key]), key
    assert envelope["insurance"] == [
        {
            "ins_code": "AET",
            "ins_name": "Aetna",
            "policy_number": "P-123",
            "group_number": "",
            "ins_rank": "primary",
            "patient_relation_to_insured": "SEL",
        }
    ]
    assert set(envelope["insurance"][0]) == CONTRACT_INSURANCE_KEYS
    for key in NEVER_EXPOSED:
        assert envelope[key] == ""


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"ins_code": "AET"}, {"ins_code": "AET", "ins_name": "", "policy_number": ""}),
        ({"ins_name": "Aetna"}, {"ins_code": "", "ins_name": "Aetna", "policy_number": ""}),
        (
            {"ins_name": "Aetna", "policy_number": "P"},
            {"ins_code": "", "ins_name": "Aetna", "policy_number": "P"},
        ),
    ],
)
def test_an_insurer_creates_the_single_primary_entry(extra: dict[str, str], expected: dict[str, str]) -> None:
    (entry,) = envelope_for({**MINIMAL, **extra})["insurance"]
    assert entry == {
        **expected,
        "group_number": "",
        "ins_rank": "primary",
        "patient_relation_to_insured": "SEL",
    }


@pytest.mark.parametrize("extra", [{}, {"ins_code": "", "ins_name": "  "}])
def test_no_insurer_means_no_entry(extra: dict[str, str]) -> None:
    assert envelope_for({**MINIMAL, **extra})["insurance"] == []


def test_a_policy_number_without_an_insurer_is_refused() -> None:
    with pytest.raises(PracticeInputError, match="policy_number"):
        parse_save_input({**MINIMAL, "policy_number": "P-123"})


def test_override_replaces_the_derived_key_lowercased() -> None:
    assert envelope_for({**MINIMAL, "patient_pcref": "Custom-Key-1"})["patient_pcref"] == "custom-key-1"
    assert envelope_for({**MINIMAL, "patient_pcref": ""})["patient_pcref"] == "maryannsmith01021980"


@pytest.mark.parametrize(
    ("arguments", "where"),
    [
        ({**MINIMAL, "patient_pcref": "has space"}, "patient_pcref"),
        ({**MINIMAL, "dob": "12-25-1980"}, "dob"),
        ({k: v for k, v in MINIMAL.items() if k != "first_name"}, "first_name"),
        ({**MINIMAL, "last_name": "   "}, "last_name"),
        ({**MINIMAL, "client_secret": "s3cret"}, "client_secret"),
        ({**MINIMAL, "name": "Mary Ann Smith"}, "name"),
    ],
)
def test_bad_arguments_become_one_input_error_without_the_values(
    arguments: dict[str, str], where: str
) -> None:
    with pytest.raises(PracticeInputError) as caught:
        parse_save_input(arguments)
    message = str(caught.value)
    assert message.startswith(where)
    for secret in ("has space", "12-25-1980", "s3cret", "Mary Ann Smith"):
        assert secret not in message


def test_numbers_are_accepted_as_strings() -> None:
    assert envelope_for({**MINIMAL, "zip": 62701})["zip"] == "62701"


def test_inputs_repr_hides_patient_data() -> None:
    text = repr(parse_save_input(FULL))
    assert "Mary" not in text and "1980" not in text and "acct-1" in text


def test_save_schema_lists_exactly_the_spec_inputs_and_no_credentials() -> None:
    assert set(SAVE_TOOL_SCHEMA["properties"]) == SPEC_SAVE_INPUTS
    assert SAVE_TOOL_SCHEMA["required"] == ["account_id", "first_name", "last_name", "dob"]
    assert SAVE_TOOL_SCHEMA["additionalProperties"] is False
    text = json.dumps([SAVE_TOOL_SCHEMA, GET_TOOL_SCHEMA])
    for credential in CREDENTIAL_FIELDS:
        assert f'"{credential}"' not in text
    assert {"access_token", "client_id", "client_secret", "environment"} == CREDENTIAL_FIELDS


def test_get_schema() -> None:
    assert set(GET_TOOL_SCHEMA["properties"]) == {"account_id", "patient_id"}
    assert GET_TOOL_SCHEMA["required"] == ["account_id", "patient_id"]
    assert parse_get_input({"account_id": "a", "patient_id": "p"}).patient_id == "p"
    with pytest.raises(PracticeInputError):
        parse_get_input({"account_id": "a", "patient_id": "p", "access_token": "t"})


def test_schemas_are_valid_json_schema_and_agree_with_validation() -> None:
    jsonschema.Draft202012Validator.check_schema(SAVE_TOOL_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(GET_TOOL_SCHEMA)
    jsonschema.validate({k: str(v) for k, v in FULL.items()}, SAVE_TOOL_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**MINIMAL, "access_token": "t"}, SAVE_TOOL_SCHEMA)


@pytest.mark.parametrize("missing", CONTRACT_ENVELOPE_KEYS)
def test_an_envelope_missing_any_key_is_incomplete(missing: str) -> None:
    envelope = envelope_for(FULL)
    del envelope[missing]
    assert not is_complete_envelope(envelope)


@pytest.mark.parametrize(
    "body",
    [
        {},
        [],
        "text",
        None,
        {**dict.fromkeys(CONTRACT_ENVELOPE_KEYS, ""), "insurance": {}},
        {**dict.fromkeys(CONTRACT_ENVELOPE_KEYS, ""), "insurance": [{"ins_code": "x"}]},
        {**dict.fromkeys(CONTRACT_ENVELOPE_KEYS, ""), "insurance": [], "city": None},
    ],
)
def test_malformed_bodies_are_incomplete(body: object) -> None:
    assert not is_complete_envelope(body)


def test_mask_envelope_shows_the_documented_keys_as_a_copy() -> None:
    envelope = envelope_for(FULL)
    original = copy.deepcopy(envelope)
    shown = mask_envelope(
        {**envelope, "access_token": "tok", "insurance": [{**envelope["insurance"][0], "x": 1}]}
    )
    assert shown == original
    assert list(shown) == CONTRACT_ENVELOPE_KEYS
    shown["insurance"][0]["ins_name"] = "changed"
    assert envelope == original
