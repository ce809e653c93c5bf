"""Errors of the practice-management pieces.

Each class says whether repeating the same call can help (`retryable`), so the tool layer can tell the
model and the runtime what to do next. Messages never contain patient data, tokens or secrets: they
travel to the model, the task feed and possibly logs.
"""

from __future__ import annotations


class PracticeError(Exception):
    """Base of every practice-management failure."""

    #: Whether repeating the identical call later may succeed.
    retryable: bool = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PracticeInputError(PracticeError, ValueError):
    """A tool input is malformed (date of birth, key override, missing name...); fix the input.

    It is also a ValueError so pydantic validators can raise it and report it as a field error.
    """


class AccountNotAllowed(PracticeError):
    """The call names an account outside the integration's Allowed Account IDs; nothing was sent."""

    def __init__(self, account_id: str, allowed: list[str]) -> None:
        super().__init__(
            f"account_id {account_id!r} is not allowed by this practice integration; "
            f"allowed accounts: {', '.join(allowed)}"
        )
        self.account_id = account_id
        self.allowed = allowed


class PracticeAuthError(PracticeError):
    """The client-credentials grant was refused (bad client id or secret)."""


class InvalidToken(PracticeError):
    """An API call answered 401 `invalid_token`: the caller may mint a new token once and retry."""

    retryable = True


class PracticeAuthorizationError(PracticeError):
    """HTTP 400: the credential cannot reach the named account; nothing was written."""


class PracticeResponseError(PracticeError):
    """The practice system reported a failure in the body, or answered something unreadable.

    `response_code` is the system's code when it gave one (1013 invalid envelope, 1020 no such
    patient), else None.
    """

    def __init__(self, response_code: int | None, response_msg: str) -> None:
        prefix = (
            f"practice system error {response_code}" if response_code is not None else "practice system error"
        )
        super().__init__(f"{prefix}: {response_msg}")
        self.response_code = response_code
        self.response_msg = response_msg


class PracticeUnavailableError(PracticeError):
    """The practice system could not be reached, or kept answering 5xx, after the bounded retries."""

    retryable = True


class PracticeHostRefused(PracticeError):
    """The connector's host now resolves to an address the SSRF guard refuses (core.infra.url_guard)."""


class ConnectorUnreadable(PracticeError):
    """The stored connector's secrets cannot be decrypted (the service secret changed); reconnect it."""


class ConnectorChanged(PracticeError):
    """The connector was replaced or removed while a call was using it; the call can start again."""

    retryable = True
