"""The connector's token handling, called directly against a real Redis and the sandbox."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core.infra import keys
from tests.integration.conftest import Service
from tests.support.practice import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, age_token, mints, requests_to
from tests.support.service import run_async
from tools.practice import GET_PATIENT_PATH, PracticeClient, PracticeResponseError
from tools.practice.connector import (
    ConnectRequest,
    call_practice,
    connect,
    connection_status,
    disconnect,
    load_connection,
)
from tools.practice.errors import ConnectorChanged, ConnectorUnreadable
from tools.practice.sandbox import RunningSandbox, SandboxConfig

pytestmark = pytest.mark.integration


def request(sandbox: RunningSandbox) -> ConnectRequest:
    return ConnectRequest.model_validate(
        {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "base_url": sandbox.url}
    )


async def read_missing(client: PracticeClient, token: str) -> Any:
    try:
        return await client.get_patient("acct-1", "missing", token)
    except PracticeResponseError as error:
        return error.response_code


@pytest.fixture
def own_sandbox() -> Iterator[RunningSandbox]:
    with RunningSandbox(
        SandboxConfig(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, accounts=ACCOUNTS)
    ) as running:
        yield running


def connect_directly(service: Service, sandbox: RunningSandbox, workspace_id: str) -> None:
    async def work(redis: Any) -> None:
        await connect(redis, service.settings, workspace_id, request(sandbox), key_id=None)

    run_async(service.redis_url, work)


def read_concurrently(service: Service, workspace_id: str, calls: int) -> list[Any]:
    async def work(redis: Any) -> list[Any]:
        connection = await load_connection(redis, service.settings, workspace_id)
        assert connection is not None
        return await asyncio.gather(
            *(call_practice(redis, service.settings, connection, read_missing) for _ in range(calls))
        )

    return list(run_async(service.redis_url, work))


def test_concurrent_calls_with_an_expiring_token_mint_once(
    service: Service, own_sandbox: RunningSandbox
) -> None:
    workspace_id = f"ws-{uuid.uuid4().hex[:8]}"
    connect_directly(service, own_sandbox, workspace_id)
    age_token(service.redis_url, workspace_id, seconds_left=30)
    assert read_concurrently(service, workspace_id, 16) == [1020] * 16
    # One mint to connect and one refresh shared by all sixteen calls; none was refused.
    assert len(mints(own_sandbox)) == 2 and len(requests_to(own_sandbox, GET_PATIENT_PATH)) == 16
    assert read_concurrently(service, workspace_id, 4) == [1020] * 4
    assert len(mints(own_sandbox)) == 2


def test_a_short_lived_token_is_refreshed_in_the_second_half_of_its_life(service: Service) -> None:
    config = SandboxConfig(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, accounts=ACCOUNTS, token_ttl=40)
    workspace_id = f"ws-{uuid.uuid4().hex[:8]}"
    with RunningSandbox(config) as sandbox:
        connect_directly(service, sandbox, workspace_id)
        # Forty seconds is inside the 60 s margin, yet a fresh token is used, not re-minted per call.
        assert read_concurrently(service, workspace_id, 3) == [1020] * 3
        assert len(mints(sandbox)) == 1


def test_every_concurrent_call_refused_with_invalid_token_shares_one_remint(
    service: Service, own_sandbox: RunningSandbox
) -> None:
    workspace_id = f"ws-{uuid.uuid4().hex[:8]}"
    connect_directly(service, own_sandbox, workspace_id)
    httpx.post(f"{own_sandbox.url}/v2/sandbox/tokens/expire").raise_for_status()
    assert read_concurrently(service, workspace_id, 8) == [1020] * 8
    assert len(mints(own_sandbox)) == 2 and len(requests_to(own_sandbox, GET_PATIENT_PATH)) == 16


def test_calls_of_a_replaced_connection_stop_instead_of_using_the_new_one(
    service: Service, sandbox: RunningSandbox
) -> None:
    workspace_id = f"ws-{uuid.uuid4().hex[:8]}"

    async def work(redis: Any) -> None:
        await connect(redis, service.settings, workspace_id, request(sandbox), key_id=None)
        stale = await load_connection(redis, service.settings, workspace_id)
        assert stale is not None
        await connect(redis, service.settings, workspace_id, request(sandbox), key_id=None)
        async with httpx.AsyncClient() as http:
            (await http.post(f"{sandbox.url}/v2/sandbox/tokens/expire")).raise_for_status()
        with pytest.raises(ConnectorChanged):
            await call_practice(redis, service.settings, stale, read_missing)
        await disconnect(redis, workspace_id, key_id=None)
        assert not (await connection_status(redis, workspace_id)).connected
        assert await load_connection(redis, service.settings, workspace_id) is None

    run_async(service.redis_url, work)


def test_a_connection_sealed_under_another_secret_is_unreadable(
    service: Service, sandbox: RunningSandbox
) -> None:
    workspace_id = f"ws-{uuid.uuid4().hex[:8]}"
    other = service.settings.model_copy(update={"secret": "a-different-service-secret"})

    async def work(redis: Any) -> None:
        await connect(redis, other, workspace_id, request(sandbox), key_id=None)
        assert (await connection_status(redis, workspace_id)).connected
        with pytest.raises(ConnectorUnreadable):
            await load_connection(redis, service.settings, workspace_id)
        await redis.delete(keys.practice_connection(workspace_id))

    run_async(service.redis_url, work)
