"""Connector configuration without I/O: the request body, the host rule, what the model sees."""

import pytest
from pydantic import ValidationError

from core.infra.errors import BadRequest
from core.infra.settings import Settings
from core.infra.url_guard import GuardedTransport
from tools.practice import CREDENTIAL_FIELDS
from tools.practice.connector import ConnectRequest, practice_transport, resolve_practice_url
from tools.practice.patient_tools import PRACTICE_GET_PATIENT, PRACTICE_SAVE_PATIENT

pytestmark = pytest.mark.unit


def settings(**values: str) -> Settings:
    return Settings.model_validate(values)


def test_base_url_wins_over_the_environment_setting() -> None:
    configured = settings(
        AGENTRY_PRACTICE_STAGING_URL="https://staging.example.com/",
        AGENTRY_PRACTICE_PRODUCTION_URL="https://live.example.com",
    )
    assert resolve_practice_url(configured, "staging", None) == "https://staging.example.com"
    assert resolve_practice_url(configured, "production", "") == "https://live.example.com"
    assert resolve_practice_url(configured, "production", " http://pm.test:8080/ ") == "http://pm.test:8080"


def test_missing_url_names_the_setting_to_set() -> None:
    with pytest.raises(BadRequest, match="AGENTRY_PRACTICE_PRODUCTION_URL"):
        resolve_practice_url(
            settings(AGENTRY_PRACTICE_STAGING_URL="https://s.example.com"), "production", None
        )


@pytest.mark.parametrize(
    "url",
    [
        "ftp://pm.example.com",
        "pm.example.com",
        "https://",
        "https://u:p@pm.example.com",
        "https://pm.test/?a=1",
    ],
)
def test_unusable_base_url_is_refused(url: str) -> None:
    with pytest.raises(BadRequest):
        resolve_practice_url(settings(), "staging", url)


def test_connect_request_keeps_the_secret_out_of_its_repr_and_normalises_accounts() -> None:
    body = ConnectRequest.model_validate(
        {"client_id": " c1 ", "client_secret": "very-secret", "allowed_account_ids": [" a ", "b"]}
    )
    assert body.client_id == "c1" and body.environment is None
    assert body.allowed_account_ids == "a,b"
    assert "very-secret" not in repr(body) and "very-secret" not in str(body.model_dump())
    text = ConnectRequest.model_validate(
        {"client_id": "c", "client_secret": "s", "allowed_account_ids": " a, b "}
    )
    assert text.allowed_account_ids == "a, b"


@pytest.mark.parametrize(
    "body",
    [
        {"client_id": "c"},
        {"client_id": "", "client_secret": "s"},
        {"client_id": "c", "client_secret": "   "},
        {"client_id": "c", "client_secret": "s", "environment": "dev"},
        {"client_id": "c", "client_secret": "s", "extra": 1},
    ],
)
def test_invalid_connect_requests_are_refused(body: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ConnectRequest.model_validate(body)


def test_practice_tools_show_the_model_no_credential() -> None:
    for spec in (PRACTICE_SAVE_PATIENT, PRACTICE_GET_PATIENT):
        schema = spec.model_schema()
        assert not CREDENTIAL_FIELDS & set(schema["parameters"]["properties"])
        assert schema["parameters"]["additionalProperties"] is False
    assert PRACTICE_SAVE_PATIENT.mutating and PRACTICE_SAVE_PATIENT.review_preview is not None
    assert not PRACTICE_GET_PATIENT.mutating and PRACTICE_GET_PATIENT.review_preview is None


def test_a_caller_chosen_base_url_goes_through_the_guard() -> None:
    configured = settings(AGENTRY_PRACTICE_STAGING_URL="https://practice.internal/")
    assert isinstance(
        practice_transport(configured, "https://elsewhere.example", "staging"), GuardedTransport
    )
    assert isinstance(
        practice_transport(configured, "https://practice.internal", "production"), GuardedTransport
    )


def test_the_operators_own_host_is_trusted() -> None:
    configured = settings(AGENTRY_PRACTICE_STAGING_URL=" https://practice.internal/ ")
    assert practice_transport(configured, "https://practice.internal", "staging") is None
