"""Practice-management integration: patient key, inputs, envelope, HTTP client and errors.

The sandbox server lives in `tools.practice.sandbox` and is imported from there, so processes that
only call the external system do not load uvicorn.
"""

from tools.practice.accounts import check_allowed_account, parse_allowed_accounts
from tools.practice.client import (
    GET_PATIENT_PATH,
    SAVE_PATIENT_PATH,
    TOKEN_PATH,
    PracticeClient,
    SaveResult,
    Token,
)
from tools.practice.dob import ACCEPTED_DOB_FORMATS, normalize_dob
from tools.practice.envelope import (
    ENVELOPE_KEYS,
    INSURANCE_KEYS,
    Envelope,
    build_save_envelope,
    is_complete_envelope,
    mask_envelope,
)
from tools.practice.errors import (
    AccountNotAllowed,
    ConnectorChanged,
    ConnectorUnreadable,
    InvalidToken,
    PracticeAuthError,
    PracticeAuthorizationError,
    PracticeError,
    PracticeInputError,
    PracticeResponseError,
    PracticeUnavailableError,
)
from tools.practice.inputs import (
    CREDENTIAL_FIELDS,
    GET_TOOL_DESCRIPTION,
    GET_TOOL_NAME,
    GET_TOOL_SCHEMA,
    SAVE_TOOL_DESCRIPTION,
    SAVE_TOOL_NAME,
    SAVE_TOOL_SCHEMA,
    GetPatientInput,
    SavePatientInput,
    parse_get_input,
    parse_save_input,
)
from tools.practice.pcref import (
    APOSTROPHES,
    PCREF_MAX_CHARS,
    PCREF_NAME_MAX_CHARS,
    derive_pcref,
    validate_pcref_override,
)
from tools.practice.session import call_with_token

__all__ = [
    "ACCEPTED_DOB_FORMATS",
    "APOSTROPHES",
    "CREDENTIAL_FIELDS",
    "ENVELOPE_KEYS",
    "GET_PATIENT_PATH",
    "GET_TOOL_DESCRIPTION",
    "GET_TOOL_NAME",
    "GET_TOOL_SCHEMA",
    "INSURANCE_KEYS",
    "PCREF_MAX_CHARS",
    "PCREF_NAME_MAX_CHARS",
    "SAVE_PATIENT_PATH",
    "SAVE_TOOL_DESCRIPTION",
    "SAVE_TOOL_NAME",
    "SAVE_TOOL_SCHEMA",
    "TOKEN_PATH",
    "AccountNotAllowed",
    "ConnectorChanged",
    "ConnectorUnreadable",
    "Envelope",
    "GetPatientInput",
    "InvalidToken",
    "PracticeAuthError",
    "PracticeAuthorizationError",
    "PracticeClient",
    "PracticeError",
    "PracticeInputError",
    "PracticeResponseError",
    "PracticeUnavailableError",
    "SavePatientInput",
    "SaveResult",
    "Token",
    "build_save_envelope",
    "call_with_token",
    "check_allowed_account",
    "derive_pcref",
    "is_complete_envelope",
    "mask_envelope",
    "normalize_dob",
    "parse_allowed_accounts",
    "parse_get_input",
    "parse_save_input",
    "validate_pcref_override",
]
