"""The practice client against the real sandbox over HTTP on 127.0.0.1."""

import asyncio
import json
import os
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tools.practice import (
    ENVELOPE_KEYS,
    GET_PATIENT_PATH,
    SAVE_PATIENT_PATH,
    TOKEN_PATH,
    InvalidToken,
    PracticeAuthError,
    PracticeAuthorizationError,
    PracticeClient,
    PracticeResponseError,
    build_save_envelope,
    call_with_token,
    parse_save_input,
)
from tools.practice.sandbox import RunningSandbox, SandboxConfig

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[3]
CLIENT_ID = "client-1"
CLIENT_SECRET = "secret-1"
ACCOUNTS = ("acct-a", "acct-b")
INVALID_1013 = {"success": "False", "response_code": 1013, "response_msg": "Invalid JSON request format"}
PATIENT = {
    "account_id": "acct-a",
    "first_name": "Mary Ann",
    "last_name": "O'Brien",
    "dob": "1/2/1980",
    "city": "Springfield",
    "ins_name": "Aetna",
}


class FakeClock:
    """A monotonic clock the test moves by hand, so token expiry needs no waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


StartSandbox = Callable[..., RunningSandbox]


@pytest.fixture
def start_sandbox() -> Iterator[StartSandbox]:
    """Start sandboxes on free ports of 127.0.0.1 (keywords override the config); all stop at the end."""
    running: list[RunningSandbox] = []

    def start(**overrides: Any) -> RunningSandbox:
        settings: dict[str, Any] = {
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "accounts": ACCOUNTS,
        }
        sandbox = RunningSandbox(SandboxConfig(**{**settings, **overrides}))
        running.append(sandbox)
        return sandbox.start()

    yield start
    for sandbox in running:
        sandbox.stop()


@pytest.fixture
def sandbox(start_sandbox: StartSandbox) -> RunningSandbox:
    """One running sandbox with the default client and accounts acct-a, acct-b."""
    return start_sandbox()


def envelope(**changes: Any) -> dict[str, Any]:
    return build_save_envelope(parse_save_input({**PATIENT, **changes}))


@pytest.fixture
async def client(sandbox: RunningSandbox) -> AsyncIterator[PracticeClient]:
    async with PracticeClient(sandbox.url, retry_backoff=0) as practice:
        yield practice


@pytest.fixture
async def http(sandbox: RunningSandbox) -> AsyncIterator[httpx.AsyncClient]:
    """Plain HTTP to the sandbox, for raw requests and the /v2/sandbox endpoints."""
    async with httpx.AsyncClient(base_url=sandbox.url) as plain:
        yield plain


async def token_for(client: PracticeClient) -> str:
    return (await client.mint_token(CLIENT_ID, CLIENT_SECRET)).access_token


async def inspect(http: httpx.AsyncClient, what: str, **params: str) -> dict[str, Any]:
    response = await http.get(f"/v2/sandbox/{what}", params=params)
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    return body


async def raw_post(http: httpx.AsyncClient, path: str, token: str, content: bytes) -> httpx.Response:
    return await http.post(
        path,
        content=content,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )


async def inject(http: httpx.AsyncClient, **fault: Any) -> None:
    (await http.post("/v2/sandbox/faults", json=fault)).raise_for_status()


async def test_token_grant(http: httpx.AsyncClient, client: PracticeClient) -> None:
    answer = await http.post(
        TOKEN_PATH,
        data={"grant_type": "client_credentials", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET},
    )
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"access_token", "token_type", "expires_in"}
    assert (body["token_type"], body["expires_in"]) == ("Bearer", 3600)
    token = await client.mint_token(CLIENT_ID, CLIENT_SECRET)
    assert token.access_token and not token.expires_within(3500)
    logged = (await inspect(http, "requests", path=TOKEN_PATH))["requests"]
    assert len(logged) == 2
    assert set(logged[0]) == {"method", "path", "body", "at"}
    assert logged[0]["body"]["client_secret"] == "***"


async def test_invalid_client(http: httpx.AsyncClient, client: PracticeClient) -> None:
    answer = await http.post(
        TOKEN_PATH,
        data={"grant_type": "client_credentials", "client_id": CLIENT_ID, "client_secret": "wrong"},
    )
    assert (answer.status_code, answer.json()) == (401, {"error": "invalid_client"})
    with pytest.raises(PracticeAuthError, match="invalid_client"):
        await client.mint_token("someone-else", CLIENT_SECRET)


async def test_unknown_token_is_invalid_token(http: httpx.AsyncClient, client: PracticeClient) -> None:
    for path in (SAVE_PATIENT_PATH, GET_PATIENT_PATH):
        answer = await raw_post(http, path, "made-up", b"{}")
        assert (answer.status_code, answer.json()) == (401, {"error": "invalid_token"})
    assert (await http.post(SAVE_PATIENT_PATH, json=envelope())).status_code == 401
    with pytest.raises(InvalidToken):
        await client.save_patient(envelope(), "made-up")


async def test_tokens_expire_after_the_ttl(start_sandbox: StartSandbox) -> None:
    sandbox = start_sandbox(token_ttl=1)
    async with PracticeClient(sandbox.url) as client:
        token = await token_for(client)
        await client.save_patient(envelope(), token)
        deadline = time.monotonic() + 10
        while True:
            try:
                await client.save_patient(envelope(), token)
            except InvalidToken:
                break
            assert time.monotonic() < deadline, "the token never expired"
            await asyncio.sleep(0.2)


async def test_expired_token_is_reminted_once_and_the_call_retried(start_sandbox: StartSandbox) -> None:
    clock = FakeClock()
    sandbox = start_sandbox(token_ttl=60, clock=clock)
    async with PracticeClient(sandbox.url) as client, httpx.AsyncClient(base_url=sandbox.url) as http:
        stored = {"token": await token_for(client)}
        clock.now += 61

        async def current() -> str:
            return stored["token"]

        async def remint() -> str:
            stored["token"] = await token_for(client)
            return stored["token"]

        with pytest.raises(InvalidToken):
            await client.save_patient(envelope(), stored["token"])
        result = await call_with_token(current, remint, lambda token: client.save_patient(envelope(), token))
        assert result.patient_id
        assert len((await inspect(http, "requests", path=TOKEN_PATH))["requests"]) == 2
        assert len((await inspect(http, "requests", path=SAVE_PATIENT_PATH))["requests"]) == 3
        assert (await inspect(http, "patients"))["created"] == 1


async def test_forced_expiry(http: httpx.AsyncClient, client: PracticeClient) -> None:
    token = await token_for(client)
    assert (await http.post("/v2/sandbox/tokens/expire")).json() == {"expired": 1}
    with pytest.raises(InvalidToken):
        await client.get_patient("acct-a", "nobody", token)


@pytest.mark.parametrize(
    "content",
    [b"{}", b"", b"not json", b"[]", b'"text"', b"null", json.dumps({"account_id": "acct-a"}).encode()],
)
async def test_partial_or_malformed_bodies_answer_1013(
    http: httpx.AsyncClient, client: PracticeClient, content: bytes
) -> None:
    for path in (SAVE_PATIENT_PATH, GET_PATIENT_PATH):
        answer = await raw_post(http, path, await token_for(client), content)
        assert (answer.status_code, answer.json()) == (200, INVALID_1013)


async def test_an_envelope_missing_any_one_key_answers_1013(
    http: httpx.AsyncClient, client: PracticeClient
) -> None:
    token = await token_for(client)
    for missing in ENVELOPE_KEYS:
        partial = {key: value for key, value in envelope().items() if key != missing}
        answer = await raw_post(http, SAVE_PATIENT_PATH, token, json.dumps(partial).encode())
        assert answer.json() == INVALID_1013, missing
    complete = await raw_post(http, SAVE_PATIENT_PATH, token, json.dumps(envelope()).encode())
    assert complete.json()["response_code"] == 1000
    assert (await inspect(http, "patients"))["created"] == 1


async def test_string_false_becomes_a_response_error(http: httpx.AsyncClient, client: PracticeClient) -> None:
    token = await token_for(client)
    with pytest.raises(PracticeResponseError) as missing:
        await client.get_patient("acct-a", "no-such-id", token)
    assert missing.value.response_code == 1020
    assert missing.value.response_msg == "No patient found for the given patient_id"
    # The sandbox's own 1013 needs an incomplete body, which the client refuses to send; replay it instead.
    await inject(http, status=200, body=json.dumps(INVALID_1013))
    with pytest.raises(PracticeResponseError) as invalid:
        await client.save_patient(envelope(), token)
    assert (invalid.value.response_code, invalid.value.response_msg) == (1013, "Invalid JSON request format")


async def test_unreachable_account_is_http_400_and_writes_nothing(
    http: httpx.AsyncClient, client: PracticeClient
) -> None:
    token = await token_for(client)
    answer = await raw_post(
        http, SAVE_PATIENT_PATH, token, json.dumps(envelope(account_id="acct-z")).encode()
    )
    assert answer.status_code == 400
    with pytest.raises(PracticeAuthorizationError, match="not authorized for account_id acct-z"):
        await client.save_patient(envelope(account_id="acct-z"), token)
    with pytest.raises(PracticeAuthorizationError):
        await client.get_patient("acct-z", "any", token)
    assert (await inspect(http, "patients"))["patients"] == []


async def test_upsert_returns_the_same_id_and_mrn(http: httpx.AsyncClient, client: PracticeClient) -> None:
    token = await token_for(client)
    first = await client.save_patient(envelope(), token)
    again = await client.save_patient(envelope(city="Shelbyville"), token)
    assert (again.patient_id, again.mrn) == (first.patient_id, first.mrn)
    assert first.patient_pcref == again.patient_pcref == "maryannobrien01021980"
    assert first.response_code == 1000
    other = await client.save_patient(envelope(dob="1/3/1980"), token)
    elsewhere = await client.save_patient(envelope(account_id="acct-b"), token)
    assert len({first.patient_id, other.patient_id, elsewhere.patient_id}) == 3
    assert len({first.mrn, other.mrn, elsewhere.mrn}) == 3

    listing = await inspect(http, "patients", account_id="acct-a")
    assert (listing["created"], listing["updated"]) == (2, 1)
    record = next(item for item in listing["patients"] if item["patient_id"] == first.patient_id)
    assert (record["city"], record["writes"]) == ("Shelbyville", 2)

    patient = await client.get_patient("acct-a", first.patient_id, token)
    assert (patient["patient_id"], patient["mrn"], patient["city"]) == (
        first.patient_id,
        first.mrn,
        "Shelbyville",
    )
    assert patient["insurance"][0]["ins_name"] == "Aetna"
    with pytest.raises(PracticeResponseError) as wrong_account:
        await client.get_patient("acct-b", first.patient_id, token)
    assert wrong_account.value.response_code == 1020


async def test_parallel_identical_saves_make_one_record(
    http: httpx.AsyncClient, client: PracticeClient
) -> None:
    token = await token_for(client)
    results = await asyncio.gather(*(client.save_patient(envelope(), token) for _ in range(16)))
    assert len({(result.patient_id, result.mrn) for result in results}) == 1
    listing = await inspect(http, "patients")
    assert len(listing["patients"]) == 1
    assert (listing["created"], listing["updated"], listing["patients"][0]["writes"]) == (1, 15, 16)


async def test_an_html_answer_is_a_clear_error(http: httpx.AsyncClient, client: PracticeClient) -> None:
    token = await token_for(client)
    await inject(http, status=200, body="<html><body>Sign in</body></html>", content_type="text/html")
    with pytest.raises(PracticeResponseError, match=r"not a JSON object \(text/html"):
        await client.save_patient(envelope(), token)
    assert (await inspect(http, "patients"))["patients"] == []


async def test_a_5xx_is_retried_with_the_identical_envelope(
    http: httpx.AsyncClient, client: PracticeClient
) -> None:
    token = await token_for(client)
    await inject(http, status=503, body="busy", content_type="text/plain", count=2, path=SAVE_PATIENT_PATH)
    sent = envelope()
    result = await client.save_patient(sent, token)
    received = (await inspect(http, "requests", path=SAVE_PATIENT_PATH))["requests"]
    assert [entry["body"] for entry in received] == [sent, sent, sent]
    assert [record["patient_id"] for record in (await inspect(http, "patients"))["patients"]] == [
        result.patient_id
    ]


async def test_the_store_file_survives_a_restart(start_sandbox: StartSandbox, tmp_path: Path) -> None:
    store = tmp_path / "practice" / "store.json"
    first_run = start_sandbox(store_file=str(store))
    async with PracticeClient(first_run.url) as client:
        saved = await client.save_patient(envelope(), await token_for(client))
    first_run.stop()
    assert json.loads(store.read_text())["patients"][0]["patient_id"] == saved.patient_id
    assert list(store.parent.iterdir()) == [store], "no temporary files may be left behind"

    second_run = start_sandbox(store_file=str(store))
    async with PracticeClient(second_run.url) as client, httpx.AsyncClient(base_url=second_run.url) as http:
        assert [record["mrn"] for record in (await inspect(http, "patients"))["patients"]] == [saved.mrn]
        token = await token_for(client)
        again = await client.save_patient(envelope(), token)
        newcomer = await client.save_patient(envelope(first_name="Joan"), token)
        found = await client.get_patient("acct-a", saved.patient_id, token)
    assert (again.patient_id, again.mrn) == (saved.patient_id, saved.mrn)
    assert newcomer.mrn != saved.mrn
    assert found["first_name"] == "Mary Ann"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_module_entry_point_serves_the_sandbox(tmp_path: Path) -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.practice.sandbox", "--port", str(port), "--client-id", CLIENT_ID,
        "--client-secret", CLIENT_SECRET, "--accounts", ",".join(ACCOUNTS), "--token-ttl", "120",
        "--store", str(tmp_path / "store.json"),
        cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        async with PracticeClient(f"http://127.0.0.1:{port}", max_attempts=1) as client:
            while True:
                try:
                    token = await client.mint_token(CLIENT_ID, CLIENT_SECRET)
                    break
                except Exception:
                    assert process.returncode is None, "the sandbox process exited"
                    assert time.monotonic() < deadline, "the sandbox did not start"
                    await asyncio.sleep(0.2)
            assert token.expires_within(121) and not token.expires_within(100)
            result = await client.save_patient(envelope(account_id="acct-b"), token.access_token)
        assert result.mrn
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), timeout=15)
