"""Patient data stays out of the service's logs and the audit log (canary values)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import ray

from core.infra import keys
from core.infra.secretbox import SecretBox
from core.stores import apikeys
from tests.integration.conftest import Service
from tests.support.agents import feed
from tests.support.practice import CLIENT_SECRET, add_fault, call, connected, patient_agent, run_to_end
from tests.support.service import run_async, wait_for
from tools.practice import SAVE_PATIENT_PATH
from tools.practice.sandbox import RunningSandbox

pytestmark = pytest.mark.integration

CANARY = {
    "account_id": "acct-1",
    "first_name": "Zyxwvut",
    "last_name": "Qqqqcanary",
    "middle_name": "Vvvvcanary",
    "dob": "07/04/1931",
    "email": "wwwwcanary@example.invalid",
    "cell_phone": "555-0199-4242",
    "address_1": "1 Xxxxcanary Lane",
}
#: Anything that would reveal the canary patient: names, email, address, phone, date of birth in both
#: forms; the derived key contains the first two.
CANARY_PATTERN = re.compile(
    r"zyxwvut|qqqqcanary|vvvvcanary|wwwwcanary|xxxxcanary|555-0199-4242|07/04/1931|07041931", re.IGNORECASE
)
#: The practice client's retry warning: proof that the tool's own log lines land in the files read here.
RETRY_WARNING = f"practice call to {SAVE_PATIENT_PATH} failed"


def service_log_text() -> str:
    """Every log file of this test process's Ray session (the service's replicas, actors and workers)."""
    node = ray._private.worker._global_node
    assert node is not None, "the service's Ray runs in this test process"
    logs = Path(node.get_session_dir_path()) / "logs"
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(logs.rglob("*"))
        if path.is_file()
    )


def test_canary_patient_reaches_the_feed_but_no_log_and_no_audit_entry(
    service: Service, ws_api: httpx.Client, sandbox: RunningSandbox
) -> None:
    connected(ws_api, sandbox)
    # A server error that outlasts the client's retries fails the step once (the runtime retries it),
    # and a refusal whose message names the patient exercises the error path.
    add_fault(
        sandbox,
        status=503,
        body="Qqqqcanary busy",
        content_type="text/plain",
        count=3,
        path=SAVE_PATIENT_PATH,
    )
    done, results = run_to_end(
        ws_api,
        patient_agent(
            call("practice_save_patient", CANARY),
            call("practice_save_patient", CANARY | {"zip": "00000"}),
            call(
                "practice_get_patient",
                {"account_id": "acct-1", "patient_id": "{{last_tool_result.patient_id}}"},
            ),
            call("practice_save_patient", CANARY | {"dob": "13/45/1931"}),
        ),
    )
    assert done["status"] == "completed", done
    assert [r["status"] for r in results] == ["ok", "ok", "ok", "error"]
    assert results[1]["output"]["status"] == "saved"
    transcript = json.dumps(feed(ws_api, done["task_id"]))
    assert CANARY_PATTERN.search(transcript), (
        "the canary must reach the transcript, or this test proves nothing"
    )

    wait_for(
        lambda: RETRY_WARNING in service_log_text(), timeout=30, what="the tool's retry warning in the logs"
    )
    leaks = sorted({match.group(0) for match in CANARY_PATTERN.finditer(service_log_text())})
    assert leaks == []

    # The connector's secret and token never reach the transcript or a log either.
    box = SecretBox(service.settings.resolved_secret(), "practice-connector")

    async def stored_token(redis: Any) -> str:
        workspace_id = (await apikeys.authenticate(redis, ws_api.headers["Authorization"])).workspace_id
        return box.open(await redis.hget(keys.practice_connection(workspace_id), "access_token"))

    credentials = (CLIENT_SECRET, run_async(service.redis_url, stored_token))
    assert not any(secret in transcript or secret in service_log_text() for secret in credentials)

    entries = ws_api.get("/api/v1/audit").json()["data"]
    assert {e["action"] for e in entries} >= {"practice.patient_saved", "practice.patient_read"}
    assert not CANARY_PATTERN.search(json.dumps(entries))

    async def stored_audit(redis: Any) -> list[str]:
        workspace_id = (await apikeys.authenticate(redis, ws_api.headers["Authorization"])).workspace_id
        names = [name async for name in redis.scan_iter(match=keys.audit_log(workspace_id) + "*")]
        values = []
        for name in names:
            kind = await redis.type(name)
            values.append(str(await (redis.get(name) if kind == "string" else redis.zrange(name, 0, -1))))
        return values

    assert not CANARY_PATTERN.search("\n".join(run_async(service.redis_url, stored_audit)))
