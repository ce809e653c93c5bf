"""HTTP client of the external practice-management system (docs/contract.md section 8).

Failures are reported in the body, not the HTTP status (docs/spec.md "Practice-management system" errors),
so every answer is read fail-closed: only an explicit true `success` flag with the expected ids counts
as success. Nothing here logs bodies, names, keys, tokens or secrets; retry warnings name only the
path, the attempt and the kind of failure.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import urlencode

import httpx

from core.infra.backoff import backoff_seconds
from tools.practice.envelope import Envelope, is_complete_envelope
from tools.practice.errors import (
    InvalidToken,
    PracticeAuthError,
    PracticeAuthorizationError,
    PracticeInputError,
    PracticeResponseError,
    PracticeUnavailableError,
)

logger = logging.getLogger(__name__)

#: docs/contract.md section 8: the client-credentials grant endpoint.
TOKEN_PATH = "/v2/oauth/token"
#: docs/spec.md "Native tool: practice_save_patient": the upsert endpoint.
SAVE_PATIENT_PATH = "/v2/api/patient/savePatientAPI"
#: docs/contract.md section 8: the get-patient endpoint.
GET_PATIENT_PATH = "/v2/api/patient/getPatientAPI"

#: Per-request timeout in seconds (connect, read, write and pool each).
DEFAULT_TIMEOUT_SECONDS = 30.0
#: Attempts per call when the system is unreachable or answers 5xx. Re-sending is safe because the
#: save upserts on patient_pcref (SPEC rule 3) and the other calls do not write.
DEFAULT_MAX_ATTEMPTS = 3
#: Wait before the first retry; it doubles for each further one.
DEFAULT_RETRY_BACKOFF_SECONDS = 0.25
#: Longest wait between two attempts, whatever the base (waits are jittered: core.infra.backoff).
MAX_RETRY_BACKOFF_SECONDS = 5.0
#: Longest piece of a foreign error message carried into our errors, so an HTML page cannot flood them.
MAX_FOREIGN_MESSAGE_CHARS = 300


@dataclass(frozen=True)
class Token:
    """An access token and when it stops working (UTC)."""

    access_token: str = field(repr=False)
    expires_at: dt.datetime

    def expires_within(self, seconds: float, *, now: dt.datetime | None = None) -> bool:
        """Whether the token is expired or will be within `seconds` (for refreshing ahead of expiry)."""
        current = now or dt.datetime.now(dt.UTC)
        return self.expires_at - current <= dt.timedelta(seconds=seconds)


@dataclass(frozen=True)
class SaveResult:
    """The ids the practice system answered for a saved patient."""

    patient_id: str
    mrn: str
    # The key embeds names and date of birth, so it stays out of reprs that may reach a log.
    patient_pcref: str = field(repr=False)
    response_code: int | None


def _foreign_text(value: object) -> str:
    text = value if isinstance(value, str) else ""
    return text.strip()[:MAX_FOREIGN_MESSAGE_CHARS]


def _json_object(response: httpx.Response) -> dict[str, Any] | None:
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _require_json_object(response: httpx.Response) -> dict[str, Any]:
    body = _json_object(response)
    if body is None:
        content_type = response.headers.get("content-type") or "no content type"
        raise PracticeResponseError(
            None,
            f"the practice system answered HTTP {response.status_code} with a body that is not a JSON object "
            f"({content_type}); is the practice URL right?",
        )
    return body


def _response_code(body: Mapping[str, Any]) -> int | None:
    code = body.get("response_code")
    if isinstance(code, bool):
        return None
    if isinstance(code, int):
        return code
    if isinstance(code, str) and code.strip().isdigit():
        return int(code.strip())
    return None


def _check_success(body: Mapping[str, Any]) -> int | None:
    """Return the response code of a successful answer; raise PracticeResponseError otherwise.

    `success` may be a boolean or a string ("True"/"False"); anything else is a failure, not a guess.
    """
    flag = body.get("success")
    code = _response_code(body)
    text = flag.strip().lower() if isinstance(flag, str) else None
    if flag is True or text == "true":
        return code
    if flag is False or text == "false":
        message = _foreign_text(body.get("response_msg")) or "the practice system reported a failure"
        raise PracticeResponseError(code, message)
    raise PracticeResponseError(code, "the practice system's answer has no recognisable success flag")


def _id_text(value: object) -> str:
    if isinstance(value, bool):
        return ""
    if isinstance(value, int):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def _json_bytes(payload: Mapping[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


_JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
_FORM_HEADERS = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}


class PracticeClient:
    """Async client of one practice-management host.

    Use it as `async with PracticeClient(url) as client:` or call `aclose()`. Redirects are not
    followed, so a bearer token is never carried to another host.
    """

    def __init__(
        self,
        base_url: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        retry_backoff: float = DEFAULT_RETRY_BACKOFF_SECONDS,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self._http = httpx.AsyncClient(
            base_url=base_url, transport=transport, timeout=timeout, follow_redirects=False
        )
        self._max_attempts = max_attempts
        self._retry_backoff = retry_backoff

    async def __aenter__(self) -> PracticeClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def _post(
        self, path: str, content: bytes, headers: Mapping[str, str], *, once: bool = False
    ) -> httpx.Response:
        """POST the same bytes until an answer below 500 arrives or the attempts run out (`once`: one
        attempt, for a reviewed write, which one approval sends once)."""
        failure = ""
        attempts = 1 if once else self._max_attempts
        for attempt in range(1, attempts + 1):
            try:
                response = await self._http.post(path, content=content, headers=dict(headers))
            except httpx.TransportError as error:
                failure = f"could not reach the practice system ({type(error).__name__})"
            else:
                if response.status_code < 500:
                    return response
                failure = f"the practice system answered HTTP {response.status_code}"
            if attempt < attempts:
                logger.warning(
                    "practice call to %s failed (attempt %d of %d): %s; retrying",
                    path,
                    attempt,
                    attempts,
                    failure,
                )
                await asyncio.sleep(
                    backoff_seconds(attempt, base=self._retry_backoff, cap=MAX_RETRY_BACKOFF_SECONDS)
                )
        raise PracticeUnavailableError(
            f"{failure}; gave up after {attempts} attempt{'s' if attempts > 1 else ''}"
        )

    async def mint_token(self, client_id: str, client_secret: str) -> Token:
        """Run the OAuth 2.0 client-credentials grant; PracticeAuthError when the client is refused."""
        form = urlencode(
            {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret}
        )
        # Measured before the request, so the recorded expiry is never later than the real one.
        requested_at = dt.datetime.now(dt.UTC)
        response = await self._post(TOKEN_PATH, form.encode("ascii"), _FORM_HEADERS)
        if response.status_code in (400, 401):
            reason = (
                _foreign_text((_json_object(response) or {}).get("error")) or f"HTTP {response.status_code}"
            )
            raise PracticeAuthError(f"the practice system refused the client credentials ({reason})")
        if not response.is_success:
            raise PracticeResponseError(
                None, f"the practice token endpoint answered HTTP {response.status_code}"
            )
        body = _require_json_object(response)
        access_token = body.get("access_token")
        expires_in = body.get("expires_in")
        token_type = body.get("token_type", "Bearer")
        if (
            not isinstance(access_token, str)
            or not access_token
            or isinstance(expires_in, bool)
            or not isinstance(expires_in, int | float)
            or expires_in <= 0
            or not isinstance(token_type, str)
            or token_type.lower() != "bearer"
        ):
            raise PracticeResponseError(
                None, "the practice token endpoint answered without a usable bearer token"
            )
        return Token(access_token=access_token, expires_at=requested_at + dt.timedelta(seconds=expires_in))

    async def _api_call(
        self, path: str, payload: Mapping[str, Any], access_token: str, *, once: bool = False
    ) -> dict[str, Any]:
        headers = {**_JSON_HEADERS, "Authorization": f"Bearer {access_token}"}
        response = await self._post(path, _json_bytes(payload), headers, once=once)
        if response.status_code == 401:
            if (_json_object(response) or {}).get("error") == "invalid_token":
                raise InvalidToken("the practice access token is invalid or expired")
            raise PracticeAuthError("the practice system refused the access token (HTTP 401)")
        if response.status_code == 400:
            body = _json_object(response) or {}
            message = next(
                (
                    text
                    for key in ("response_msg", "error_description", "message", "detail", "error")
                    if (text := _foreign_text(body.get(key)))
                ),
                "the practice credential cannot reach this account (HTTP 400)",
            )
            raise PracticeAuthorizationError(message)
        if not response.is_success:
            body = _json_object(response) or {}
            raise PracticeResponseError(
                _response_code(body), f"the practice system answered HTTP {response.status_code}"
            )
        return _require_json_object(response)

    async def save_patient(self, envelope: Envelope, access_token: str, *, once: bool = False) -> SaveResult:
        """Upsert a patient with a complete savePatientAPI envelope (see build_save_envelope); `once`
        sends it a single time whatever the answer (a reviewed write: one approval, one send)."""
        if not is_complete_envelope(envelope):
            raise PracticeInputError(
                "the savePatientAPI envelope is incomplete; build it with build_save_envelope"
            )
        body = await self._api_call(SAVE_PATIENT_PATH, envelope, access_token, once=once)
        code = _check_success(body)
        patient_id = _id_text(body.get("patient_id"))
        mrn = _id_text(body.get("mrn"))
        if not patient_id or not mrn:
            raise PracticeResponseError(
                code, "the practice system reported success without a patient_id and mrn"
            )
        pcref = _id_text(body.get("patient_pcref")) or envelope["patient_pcref"]
        return SaveResult(patient_id=patient_id, mrn=mrn, patient_pcref=pcref, response_code=code)

    async def get_patient(self, account_id: str, patient_id: str, access_token: str) -> dict[str, Any]:
        """Read one patient by the system's patient_id; 1020 (no such patient) is a PracticeResponseError."""
        body = await self._api_call(
            GET_PATIENT_PATH, {"account_id": account_id, "patient_id": patient_id}, access_token
        )
        code = _check_success(body)
        patient = body.get("patient")
        if not isinstance(patient, dict):
            raise PracticeResponseError(code, "the practice system reported success without a patient")
        return patient
