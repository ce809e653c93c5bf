import datetime as dt
import json
import logging
from collections.abc import Callable
from urllib.parse import parse_qsl

import httpx
import pytest

from tools.practice import (
    GET_PATIENT_PATH,
    SAVE_PATIENT_PATH,
    TOKEN_PATH,
    InvalidToken,
    PracticeAuthError,
    PracticeAuthorizationError,
    PracticeClient,
    PracticeInputError,
    PracticeResponseError,
    PracticeUnavailableError,
    build_save_envelope,
    parse_save_input,
)

pytestmark = pytest.mark.unit

ENVELOPE = build_save_envelope(
    parse_save_input({"account_id": "acct-1", "first_name": "Zzcanary", "last_name": "Qx", "dob": "1/2/1980"})
)
SAVED = {
    "success": "True",
    "response_code": 1000,
    "patient_id": "p-1",
    "mrn": "100001",
    "patient_pcref": "zzcanaryqx01021980",
}


class Recorder:
    """A MockTransport handler answering from a script and keeping every request."""

    def __init__(
        self, *answers: httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]
    ) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(request)
        return answer


def client_for(recorder: Recorder, attempts: int = 3) -> PracticeClient:
    return PracticeClient(
        "http://practice.test",
        transport=httpx.MockTransport(recorder),
        max_attempts=attempts,
        retry_backoff=0,
    )


async def test_save_sends_the_envelope_with_the_bearer_token() -> None:
    recorder = Recorder(httpx.Response(200, json=SAVED))
    async with client_for(recorder) as client:
        result = await client.save_patient(ENVELOPE, "tok-1")
    assert (result.patient_id, result.mrn, result.patient_pcref, result.response_code) == (
        "p-1",
        "100001",
        "zzcanaryqx01021980",
        1000,
    )
    (request,) = recorder.requests
    assert request.url.path == SAVE_PATIENT_PATH
    assert request.headers["authorization"] == "Bearer tok-1"
    assert json.loads(request.content) == ENVELOPE


@pytest.mark.parametrize("flag", [True, "True", "true"])
async def test_success_flags(flag: object) -> None:
    async with client_for(Recorder(httpx.Response(200, json={**SAVED, "success": flag}))) as client:
        assert (await client.save_patient(ENVELOPE, "t")).patient_id == "p-1"


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ({"success": "False", "response_code": 1013, "response_msg": "Invalid JSON request format"}, 1013,
         "Invalid JSON request format"),
        ({"success": False, "response_code": "1099", "response_msg": "Other"}, 1099, "Other"),
        ({"success": "False"}, None, "reported a failure"),
        ({"response_code": 1000, "patient_id": "p"}, 1000, "no recognisable success flag"),
        ({"success": "yes", "patient_id": "p", "mrn": "1"}, None, "no recognisable success flag"),
        ({"success": "True", "response_code": 1000}, 1000, "without a patient_id"),
    ],
)  # fmt: skip
async def test_failures_in_the_body(body: dict[str, object], code: int | None, message: str) -> None:
    async with client_for(Recorder(httpx.Response(200, json=body))) as client:
        with pytest.raises(PracticeResponseError) as caught:
            await client.save_patient(ENVELOPE, "t")
    assert caught.value.response_code == code
    assert message in caught.value.response_msg


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, text="<html><body>Login</body></html>", headers={"content-type": "text/html"}),
        httpx.Response(200, text="not json"),
        httpx.Response(200, json=["a", "list"]),
    ],
)
async def test_a_body_that_is_not_a_json_object_is_a_clear_error(response: httpx.Response) -> None:
    async with client_for(Recorder(response)) as client:
        with pytest.raises(PracticeResponseError, match="not a JSON object") as caught:
            await client.save_patient(ENVELOPE, "t")
    assert caught.value.response_code is None


async def test_5xx_is_retried_with_the_identical_body() -> None:
    recorder = Recorder(
        httpx.Response(503),
        httpx.Response(502, text="<html>bad gateway</html>"),
        httpx.Response(200, json=SAVED),
    )
    async with client_for(recorder) as client:
        assert (await client.save_patient(ENVELOPE, "t")).patient_id == "p-1"
    assert len(recorder.requests) == 3
    assert len({request.content for request in recorder.requests}) == 1
    assert json.loads(recorder.requests[0].content) == ENVELOPE


async def test_connection_errors_are_retried() -> None:
    recorder = Recorder(
        httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), httpx.Response(200, json=SAVED)
    )
    async with client_for(recorder) as client:
        assert (await client.save_patient(ENVELOPE, "t")).mrn == "100001"
    assert len(recorder.requests) == 3


async def test_retries_are_bounded() -> None:
    recorder = Recorder(httpx.Response(500))
    async with client_for(recorder, attempts=4) as client:
        with pytest.raises(PracticeUnavailableError, match="HTTP 500"):
            await client.save_patient(ENVELOPE, "t")
    assert len(recorder.requests) == 4


async def test_a_save_sent_once_is_not_retried_on_a_5xx() -> None:
    # A reviewed write: one approval sends it once; its failure asks for a new review instead.
    recorder = Recorder(httpx.Response(503), httpx.Response(200, json=SAVED))
    async with client_for(recorder) as client:
        with pytest.raises(PracticeUnavailableError, match=r"HTTP 503.*1 attempt$"):
            await client.save_patient(ENVELOPE, "t", once=True)
    assert len(recorder.requests) == 1


@pytest.mark.parametrize("status", [404, 409, 422, 429, 302])
async def test_other_statuses_fail_without_retry(status: int) -> None:
    recorder = Recorder(httpx.Response(status, json={}))
    async with client_for(recorder) as client:
        with pytest.raises(PracticeResponseError, match=f"HTTP {status}"):
            await client.save_patient(ENVELOPE, "t")
    assert len(recorder.requests) == 1


async def test_invalid_token_is_its_own_error() -> None:
    recorder = Recorder(httpx.Response(401, json={"error": "invalid_token"}))
    async with client_for(recorder) as client:
        with pytest.raises(InvalidToken):
            await client.save_patient(ENVELOPE, "t")
        with pytest.raises(InvalidToken):
            await client.get_patient("acct-1", "p-1", "t")
    assert len(recorder.requests) == 2


async def test_other_401_is_an_auth_error() -> None:
    async with client_for(Recorder(httpx.Response(401, text="nope"))) as client:
        with pytest.raises(PracticeAuthError):
            await client.save_patient(ENVELOPE, "t")


async def test_400_is_an_authorization_error_with_the_system_message() -> None:
    body = {"success": "False", "response_msg": "Client c is not authorized for account_id acct-9"}
    async with client_for(Recorder(httpx.Response(400, json=body))) as client:
        with pytest.raises(PracticeAuthorizationError, match="not authorized for account_id acct-9"):
            await client.save_patient(ENVELOPE, "t")


async def test_an_incomplete_envelope_is_never_sent() -> None:
    recorder = Recorder(httpx.Response(200, json=SAVED))
    partial = {key: value for key, value in ENVELOPE.items() if key != "facility_code"}
    async with client_for(recorder) as client:
        with pytest.raises(PracticeInputError):
            await client.save_patient(partial, "t")
    assert recorder.requests == []


async def test_get_patient() -> None:
    found = {"success": "True", "response_code": 1000, "patient": {"patient_id": "p-1"}}
    missing = {"success": "False", "response_code": 1020, "response_msg": "No patient"}
    recorder = Recorder(httpx.Response(200, json=found), httpx.Response(200, json=missing))
    async with client_for(recorder) as client:
        assert await client.get_patient("acct-1", "p-1", "t") == {"patient_id": "p-1"}
        with pytest.raises(PracticeResponseError) as caught:
            await client.get_patient("acct-1", "p-2", "t")
    assert (caught.value.response_code, caught.value.response_msg) == (1020, "No patient")
    assert recorder.requests[0].url.path == GET_PATIENT_PATH
    assert json.loads(recorder.requests[1].content) == {"account_id": "acct-1", "patient_id": "p-2"}


async def test_mint_token_uses_a_form_encoded_client_credentials_grant() -> None:
    recorder = Recorder(
        httpx.Response(200, json={"access_token": "tok", "token_type": "Bearer", "expires_in": 600})
    )
    before = dt.datetime.now(dt.UTC)
    async with client_for(recorder) as client:
        token = await client.mint_token("cid", "csecret")
    (request,) = recorder.requests
    assert request.url.path == TOKEN_PATH
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert dict(parse_qsl(request.content.decode())) == {
        "grant_type": "client_credentials",
        "client_id": "cid",
        "client_secret": "csecret",
    }
    assert token.access_token == "tok"
    assert (
        before + dt.timedelta(seconds=599)
        <= token.expires_at
        <= dt.datetime.now(dt.UTC) + dt.timedelta(seconds=600)
    )
    assert not token.expires_within(60)
    assert token.expires_within(601)
    assert "tok" not in repr(token)


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(401, json={"error": "invalid_client"}),
        httpx.Response(400, json={"error": "invalid_request"}),
    ],
)
async def test_refused_grant_is_an_auth_error(response: httpx.Response) -> None:
    async with client_for(Recorder(response)) as client:
        with pytest.raises(PracticeAuthError, match=response.json()["error"]) as caught:
            await client.mint_token("cid", "csecret")
    assert "csecret" not in str(caught.value)


@pytest.mark.parametrize(
    "body",
    [
        {"token_type": "Bearer", "expires_in": 60},
        {"access_token": "t", "expires_in": 0},
        {"access_token": "t", "expires_in": 60, "token_type": "mac"},
    ],
)
async def test_unusable_token_answers_are_refused(body: dict[str, object]) -> None:
    async with client_for(Recorder(httpx.Response(200, json=body))) as client:
        with pytest.raises(PracticeResponseError):
            await client.mint_token("cid", "csecret")


async def test_nothing_sensitive_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    recorder = Recorder(httpx.Response(503), httpx.Response(200, json=SAVED))
    async with client_for(recorder) as client:
        result = await client.save_patient(ENVELOPE, "tok-secret")
    assert caplog.records, "a retry should be logged"
    logged = caplog.text + repr(result)
    for sensitive in ("Zzcanary", "zzcanaryqx", "01021980", "tok-secret"):
        assert sensitive not in logged
