"""The practice connector's base_url behind the one SSRF guard (core.infra.url_guard), at connect and at each call.

The session service allows private addresses (AGENTRY_ALLOW_PRIVATE_URLS, so the loopback sandbox can be
reached); metadata and link-local addresses stay refused even then, which is what these tests aim at.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from core.infra import keys
from tests.integration.conftest import Service
from tests.support.practice import (
    CLIENT_ID,
    CLIENT_SECRET,
    CONNECTOR_PATH,
    PATIENT,
    call,
    connected,
    mints,
    patient_agent,
    run_to_end,
    saves,
    workspace_of,
)
from tests.support.service import run_async
from tools.practice.sandbox import RunningSandbox

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "base_url",
    [
        "http://169.254.169.254",
        "http://[::ffff:169.254.169.254]:8080",
        "http://[fe80::1]",
        "http://0.0.0.0:9",
    ],
)
def test_connect_refuses_a_base_url_on_a_metadata_or_link_local_address(
    ws_api: httpx.Client, base_url: str
) -> None:
    refused = ws_api.put(
        CONNECTOR_PATH, json={"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "base_url": base_url}
    )
    assert refused.status_code == 400 and set(refused.json()) == {"error"}
    assert "base_url" in refused.json()["error"] and "not allowed" in refused.json()["error"]
    assert ws_api.get(CONNECTOR_PATH).json()["connected"] is False


def test_each_call_checks_the_host_again(
    ws_api: httpx.Client, sandbox: RunningSandbox, service: Service
) -> None:
    connected(ws_api, sandbox)
    minted = len(mints(sandbox))
    # What a DNS change after connect achieves: the connector's host now leads to a metadata address.
    workspace_id = workspace_of(service.redis_url, ws_api)
    port = httpx.URL(sandbox.url).port

    async def repoint(redis: Any) -> None:
        await redis.hset(
            keys.practice_connection(workspace_id), "practice_url", f"http://[::ffff:169.254.169.254]:{port}"
        )

    run_async(service.redis_url, repoint)
    done, results = run_to_end(ws_api, patient_agent(call("practice_save_patient", PATIENT)))
    assert done["status"] == "completed"
    assert results[0]["status"] == "error" and "not allowed" in results[0]["error"]
    assert saves(sandbox) == [] and len(mints(sandbox)) == minted
