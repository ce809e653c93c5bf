"""How practice failures reach the model: which are retryable and what details they carry."""

import pytest

from tools.practice import (
    AccountNotAllowed,
    InvalidToken,
    PracticeAuthError,
    PracticeAuthorizationError,
    PracticeInputError,
    PracticeResponseError,
    PracticeUnavailableError,
)
from tools.practice.errors import ConnectorChanged, PracticeError
from tools.practice.patient_tools import NOT_CONNECTED_STATUS, _tool_error, not_connected

pytestmark = pytest.mark.unit


def test_body_failure_carries_code_and_message() -> None:
    error = _tool_error(PracticeResponseError(1013, "Invalid JSON request format"))
    assert not error.retryable
    assert error.payload == {"response_code": 1013, "response_msg": "Invalid JSON request format"}
    assert "1013" in error.message


def test_unreachable_account_carries_the_systems_message() -> None:
    error = _tool_error(PracticeAuthorizationError("Client c is not authorized for account_id x"))
    assert not error.retryable
    assert error.payload == {
        "response_code": None,
        "response_msg": "Client c is not authorized for account_id x",
    }


@pytest.mark.parametrize(
    ("failure", "retryable"),
    [
        (PracticeUnavailableError("down"), True),
        (ConnectorChanged("changed"), True),
        (InvalidToken("again"), False),
        (PracticeAuthError("refused"), False),
        (PracticeInputError("bad dob"), False),
        (AccountNotAllowed("x", ["a"]), False),
    ],
)
def test_only_transient_failures_are_retryable(failure: PracticeError, retryable: bool) -> None:
    error = _tool_error(failure)
    assert error.retryable is retryable and error.message


def test_refused_credentials_tell_the_model_to_have_them_reconnected() -> None:
    assert "reconnect" in _tool_error(PracticeAuthError("invalid_client")).message


def test_not_connected_is_a_plain_status_payload() -> None:
    payload = not_connected()
    assert payload["status"] == NOT_CONNECTED_STATUS == "practice_not_connected"
    assert set(payload) == {"status", "message"} and "connect" in payload["message"]
