import httpx
import pytest

from actors.models.errors import error_type, status_error

pytestmark = pytest.mark.unit

ECHO = "Invalid request: the message 'Patient Ada Lovelace, SSN 123-45-6789' with key sk-abc...xyz"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"message": ECHO, "type": "invalid_request_error", "code": None}, "invalid_request_error"),
        ({"type": "error", "error": {"type": "overloaded_error", "message": ECHO}}, "overloaded_error"),
        ({"error": {"message": ECHO, "code": "context_length_exceeded"}}, "context_length_exceeded"),
        ({"error": {"message": ECHO, "type": ECHO}}, None),
        ({"error": ECHO}, None),
        (ECHO, None),
        (None, None),
    ],
)
def test_only_an_identifier_like_error_type_is_kept(body: object, expected: str | None) -> None:
    assert error_type(body) == expected


def test_a_provider_error_keeps_status_and_type_never_its_text() -> None:
    body = {"error": {"message": ECHO, "type": "invalid_request_error"}}
    error = status_error(400, httpx.Headers({}), body)
    assert error.message == "the model server refused the request: HTTP 400 (invalid_request_error)"
    assert error.retryable is False
    overloaded = status_error(529, httpx.Headers({"retry-after": "2"}), {"error": ECHO})
    assert overloaded.message == "the model server failed: HTTP 529"
    assert overloaded.retryable is True and overloaded.retry_after_seconds == 2
