"""The practice connector through HTTP: connect, status, disconnect, sealed secrets, isolation."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
import pytest

from core.infra import keys
from core.infra.secretbox import SecretBox
from tests.integration.conftest import Service
from tests.support.practice import (
    CLIENT_ID,
    CLIENT_SECRET,
    CONNECTOR_PATH,
    PATIENT,
    connect,
    connected,
    mints,
    workspace_of,
)
from tests.support.service import free_port, run_async
from tools.practice import PracticeClient, build_save_envelope, parse_save_input
from tools.practice.sandbox import RunningSandbox

pytestmark = pytest.mark.integration

STATUS_FIELDS = {"connected", "environment", "allowed_account_ids", "token_expires_at"}


def stored(service: Service, workspace_id: str) -> dict[str, str]:
    async def work(redis: Any) -> dict[str, str]:
        return dict(await redis.hgetall(keys.practice_connection(workspace_id)))

    return dict(run_async(service.redis_url, work))


def test_connect_proves_the_credentials_and_reports_the_connection(
    ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    before = len(mints(sandbox))
    body = connected(ws_api, sandbox, allowed_account_ids="acct-1, acct-2")
    assert set(body) == STATUS_FIELDS
    assert body["connected"] is True and body["environment"] == "staging"
    assert body["allowed_account_ids"] == "acct-1, acct-2"
    expires = dt.datetime.fromisoformat(body["token_expires_at"])
    assert dt.timedelta(minutes=55) < expires - dt.datetime.now(dt.UTC) <= dt.timedelta(hours=1)
    assert len(mints(sandbox)) == before + 1
    shown = ws_api.get(CONNECTOR_PATH)
    assert shown.status_code == 200 and shown.json() == body
    assert CLIENT_SECRET not in shown.text


def test_secrets_are_sealed_at_rest_and_the_stored_token_works(
    service: Service, ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    record = stored(service, workspace_of(service.redis_url, ws_api))
    assert record["client_id"] == CLIENT_ID
    assert all(CLIENT_SECRET not in value for value in record.values())
    box = SecretBox(service.settings.resolved_secret(), "practice-connector")
    assert box.open(record["client_secret"]) == CLIENT_SECRET
    token = box.open(record["access_token"])
    assert token not in record.values()

    async def save(_: Any) -> str:
        async with PracticeClient(sandbox.url) as client:
            return (
                await client.save_patient(build_save_envelope(parse_save_input(PATIENT)), token)
            ).patient_id

    assert run_async(service.redis_url, save)


def test_refused_grant_is_400_and_keeps_the_earlier_connection(
    service: Service, ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    first = connected(ws_api, sandbox, allowed_account_ids="acct-1")
    workspace_id = workspace_of(service.redis_url, ws_api)
    record = stored(service, workspace_id)
    refused = connect(ws_api, sandbox, client_secret="wrong-secret", environment="production")
    assert refused.status_code == 400 and set(refused.json()) == {"error"}
    assert "invalid_client" in refused.json()["error"] and "wrong-secret" not in refused.text
    assert ws_api.get(CONNECTOR_PATH).json() == first
    assert stored(service, workspace_id) == record


def test_unreachable_host_is_400_and_stores_nothing(ws_api: httpx.Client) -> None:
    refused = ws_api.put(
        CONNECTOR_PATH,
        json={
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "base_url": f"http://127.0.0.1:{free_port()}",
        },
    )
    assert refused.status_code == 400 and "could not reach" in refused.json()["error"]
    assert ws_api.get(CONNECTOR_PATH).json()["connected"] is False


def test_no_host_for_the_environment_is_a_clear_400(ws_api: httpx.Client) -> None:
    refused = ws_api.put(CONNECTOR_PATH, json={"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET})
    assert refused.status_code == 400
    assert "AGENTRY_PRACTICE_STAGING_URL" in refused.json()["error"] and "base_url" in refused.json()["error"]


@pytest.mark.parametrize(
    "body",
    [
        {"client_id": CLIENT_ID},
        {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "environment": "dev"},
        {"client_id": "", "client_secret": CLIENT_SECRET},
        {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "base_url": "ftp://x"},
    ],
)
def test_malformed_bodies_are_400_without_echoing_the_secret(
    ws_api: httpx.Client, body: dict[str, Any]
) -> None:
    refused = ws_api.put(CONNECTOR_PATH, json=body)
    assert refused.status_code == 400 and set(refused.json()) == {"error"}
    assert CLIENT_SECRET not in refused.text


def test_production_connection_and_disconnect(ws_api: httpx.Client, sandbox: RunningSandbox) -> None:
    body = connected(ws_api, sandbox, environment="production", allowed_account_ids=["acct-2"])
    assert body["environment"] == "production" and body["allowed_account_ids"] == "acct-2"
    removed = ws_api.delete(CONNECTOR_PATH)
    assert removed.status_code == 200 and removed.json() == {"connected": False}
    assert ws_api.get(CONNECTOR_PATH).json() == {
        "connected": False,
        "environment": None,
        "allowed_account_ids": None,
        "token_expires_at": None,
    }
    assert ws_api.delete(CONNECTOR_PATH).json() == {"connected": False}
    actions = [entry["action"] for entry in ws_api.get("/api/v1/audit").json()["data"]]
    assert actions == ["practice.disconnected", "practice.connected"]


def test_connector_is_per_workspace_and_needs_a_key(
    service: Service, ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    with service.client(service.key()) as other:
        assert other.get(CONNECTOR_PATH).json()["connected"] is False
        assert other.delete(CONNECTOR_PATH).json() == {"connected": False}
    assert ws_api.get(CONNECTOR_PATH).json()["connected"] is True
    with service.client() as anonymous:
        assert anonymous.get(CONNECTOR_PATH).status_code == 401
        assert anonymous.put(CONNECTOR_PATH, json={}).status_code == 401
