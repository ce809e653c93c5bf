"""Concurrent identical saves of one patient: serialised by the record lock, so one create and 15 updates."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.agents import create_agent, feed, of_type, scripted, start, wait_status
from tests.support.practice import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, PATIENT, call, connected, patients
from tests.support.practice_proxy import MeasuringProxy
from tests.support.service import run_async
from tools.practice import PracticeClient, build_save_envelope, derive_pcref, parse_save_input
from tools.practice.sandbox import RunningSandbox, SandboxConfig

pytestmark = pytest.mark.integration

PARALLEL_CALLS = 16
SAVE = "practice_save_patient"


@pytest.fixture
def proxied() -> Iterator[tuple[RunningSandbox, MeasuringProxy]]:
    config = SandboxConfig(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, accounts=ACCOUNTS)
    with RunningSandbox(config) as sandbox, MeasuringProxy(sandbox.url) as proxy:
        yield sandbox, proxy


def test_the_proxy_sees_overlapping_saves_when_nothing_serialises_them(
    service: Service, proxied: tuple[RunningSandbox, MeasuringProxy]
) -> None:
    """Control: without the tool's lock, parallel saves overlap at the external system."""
    _, proxy = proxied
    envelope = build_save_envelope(parse_save_input(PATIENT))

    async def burst(_: Any) -> None:
        async with PracticeClient(proxy.url) as client:
            token = await client.mint_token(CLIENT_ID, CLIENT_SECRET)
            await asyncio.gather(
                *(client.save_patient(envelope, token.access_token) for _ in range(PARALLEL_CALLS))
            )

    run_async(service.redis_url, burst)
    assert proxy.most_concurrent_saves() > 1


def _check_one_record_written_sixteen_times(
    sandbox: RunningSandbox, proxy: MeasuringProxy, results: list[dict[str, Any]]
) -> None:
    assert len(results) == PARALLEL_CALLS and all(r["status"] == "ok" for r in results), results
    outputs = [r["output"] for r in results]
    assert {(o["patient_id"], o["mrn"]) for o in outputs} == {(outputs[0]["patient_id"], outputs[0]["mrn"])}
    listing = patients(sandbox, PATIENT["account_id"])
    assert listing["created"] == 1 and listing["updated"] == PARALLEL_CALLS - 1
    (record,) = listing["patients"]
    assert record["patient_pcref"] == derive_pcref(PATIENT["first_name"], PATIENT["last_name"], "12101815")
    assert proxy.most_concurrent_saves() == 1


def test_sixteen_parallel_calls_in_one_step_create_one_record(
    ws_api: httpx.Client, proxied: tuple[RunningSandbox, MeasuringProxy]
) -> None:
    sandbox, proxy = proxied
    connected(ws_api, sandbox, base_url=proxy.url)
    agent = create_agent(
        ws_api,
        scripted({"tool_calls": [call(SAVE, PATIENT)] * PARALLEL_CALLS}, {"answer": "ok"}, tools=[SAVE]),
    )
    task_id = start(ws_api, agent["id"])
    assert wait_status(ws_api, task_id)["status"] == "completed"
    _check_one_record_written_sixteen_times(sandbox, proxy, of_type(feed(ws_api, task_id), "tool_result"))


def test_parallel_calls_from_several_task_processes_create_one_record(
    ws_api: httpx.Client, proxied: tuple[RunningSandbox, MeasuringProxy]
) -> None:
    sandbox, proxy = proxied
    connected(ws_api, sandbox, base_url=proxy.url)
    per_task = PARALLEL_CALLS // 4
    config = scripted(
        {"tool_calls": [call(SAVE, PATIENT)] * per_task},
        {"answer": "ok"},
        tools=[SAVE],
        placement="dedicated",
    )
    agent = create_agent(ws_api, config)
    task_ids = [start(ws_api, agent["id"]) for _ in range(4)]
    results: list[dict[str, Any]] = []
    for task_id in task_ids:
        assert wait_status(ws_api, task_id)["status"] == "completed"
        results += of_type(feed(ws_api, task_id), "tool_result")
    _check_one_record_written_sixteen_times(sandbox, proxy, results)
