"""Inputs of the patient tools as the model sees them, and their JSON Schemas.

The connector's credentials (`access_token`, `client_id`, `client_secret`, `environment`) are injected
by the integration and are never part of these models or schemas (docs/spec.md "practice_save_patient"); a
call that names one of them is refused like any other unknown input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tools.practice.dob import normalize_dob
from tools.practice.errors import PracticeInputError
from tools.practice.pcref import PCREF_MAX_CHARS, validate_pcref_override

SAVE_TOOL_NAME = "practice_save_patient"
GET_TOOL_NAME = "practice_get_patient"

#: Fields the integration injects into every practice call; never shown to or accepted from the model.
CREDENTIAL_FIELDS = frozenset({"access_token", "client_id", "client_secret", "environment"})

SAVE_TOOL_DESCRIPTION = (
    "Create or update a patient in the practice-management system. Repeat calls for the same patient "
    "(same names and date of birth, or the same patient_pcref) update that record. Give first_name and "
    "last_name as separate fields; never put a full name in one of them."
)
GET_TOOL_DESCRIPTION = (
    "Read one patient from the practice-management system by the patient_id that system assigned."
)

_INPUT_CONFIG = ConfigDict(extra="forbid", str_strip_whitespace=True, coerce_numbers_to_str=True, frozen=True)


class SavePatientInput(BaseModel):
    """Inputs of practice_save_patient as SPEC lists them; `dob` and `patient_pcref` come out normalised."""

    model_config = _INPUT_CONFIG

    # Every field but the account is patient data, kept out of reprs that may end up in a log.
    account_id: str = Field(
        min_length=1, description="The practice account (tenant) that receives the write."
    )
    first_name: str = Field(repr=False, min_length=1, description="Given name only.")
    last_name: str = Field(repr=False, min_length=1, description="Family name only.")
    dob: str = Field(
        repr=False,
        min_length=1,
        description="Date of birth as MM/DD/YYYY, M/D/YYYY, YYYY-MM-DD or MMDDYYYY. "
        "Dash-separated month-first dates are refused.",
    )
    patient_pcref: str | None = Field(
        repr=False,
        default=None,
        description=f"Optional override of the derived patient key: no whitespace, at most {PCREF_MAX_CHARS} "
        "characters. Never pass a patient_id returned by practice_get_patient here.",
    )
    middle_name: str | None = Field(repr=False, default=None, description="Middle name.")
    gender: str | None = Field(repr=False, default=None, description="Gender.")
    cell_phone: str | None = Field(repr=False, default=None, description="Mobile phone number.")
    email: str | None = Field(repr=False, default=None, description="Email address.")
    address_1: str | None = Field(repr=False, default=None, description="Street address, first line.")
    address_2: str | None = Field(repr=False, default=None, description="Street address, second line.")
    city: str | None = Field(repr=False, default=None, description="City.")
    state: str | None = Field(repr=False, default=None, description="State.")
    zip: str | None = Field(repr=False, default=None, description="ZIP or postal code.")
    provider_code: str | None = Field(
        repr=False, default=None, description="Code of the patient's main provider."
    )
    provider_first_name: str | None = Field(
        repr=False, default=None, description="Main provider's given name."
    )
    provider_last_name: str | None = Field(
        repr=False, default=None, description="Main provider's family name."
    )
    ins_code: str | None = Field(repr=False, default=None, description="Primary insurance: payer code.")
    ins_name: str | None = Field(repr=False, default=None, description="Primary insurance: payer name.")
    policy_number: str | None = Field(
        repr=False, default=None, description="Primary insurance: policy number; needs ins_code or ins_name."
    )

    @field_validator("dob")
    @classmethod
    def _normalise_dob(cls, value: str) -> str:
        return normalize_dob(value)

    @field_validator("patient_pcref")
    @classmethod
    def _check_override(cls, value: str | None) -> str | None:
        # An empty override means "none": models often send "" for an optional field.
        return validate_pcref_override(value) if value else None

    @model_validator(mode="after")
    def _policy_needs_insurer(self) -> SavePatientInput:
        # A policy number alone names no insurer; sending it nowhere would silently drop it.
        if self.policy_number and not (self.ins_code or self.ins_name):
            raise PracticeInputError("policy_number needs ins_code or ins_name")
        return self


class GetPatientInput(BaseModel):
    """Inputs of practice_get_patient."""

    model_config = _INPUT_CONFIG

    account_id: str = Field(min_length=1, description="The practice account (tenant) to read from.")
    patient_id: str = Field(
        min_length=1, description="The patient_id the practice system returned when the patient was saved."
    )


def _tool_schema(model: type[BaseModel]) -> dict[str, Any]:
    # Built from the model so the schema the model sees and the validation it gets never drift apart;
    # every input is a plain string, which keeps the schema small and provider-neutral.
    properties = {
        name: {"type": "string", "description": field.description or name}
        for name, field in model.model_fields.items()
    }
    required = [name for name, field in model.model_fields.items() if field.is_required()]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


#: JSON Schema of practice_save_patient's arguments, as shown to the model.
SAVE_TOOL_SCHEMA: dict[str, Any] = _tool_schema(SavePatientInput)
#: JSON Schema of practice_get_patient's arguments, as shown to the model.
GET_TOOL_SCHEMA: dict[str, Any] = _tool_schema(GetPatientInput)


def _input_error(error: ValidationError) -> PracticeInputError:
    # Only locations and messages: pydantic's own str() repeats the input values, which are patient data.
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "input"
        cause = item.get("ctx", {}).get("error")
        message = cause.message if isinstance(cause, PracticeInputError) else item["msg"]
        problems.append(f"{where}: {message}")
    return PracticeInputError("; ".join(problems))


def parse_save_input(arguments: Mapping[str, Any]) -> SavePatientInput:
    """Validate practice_save_patient arguments; every problem becomes one PracticeInputError."""
    try:
        return SavePatientInput.model_validate(dict(arguments))
    except ValidationError as error:
        raise _input_error(error) from None


def parse_get_input(arguments: Mapping[str, Any]) -> GetPatientInput:
    """Validate practice_get_patient arguments; every problem becomes one PracticeInputError."""
    try:
        return GetPatientInput.model_validate(dict(arguments))
    except ValidationError as error:
        raise _input_error(error) from None
