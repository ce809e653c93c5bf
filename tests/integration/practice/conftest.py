"""A practice sandbox per test module, and a fresh workspace per test."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.practice import ACCOUNTS, CLIENT_ID, CLIENT_SECRET
from tools.practice.sandbox import RunningSandbox, SandboxConfig


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with RunningSandbox(
        SandboxConfig(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, accounts=ACCOUNTS)
    ) as running:
        yield running


@pytest.fixture
def ws_api(service: Service) -> Iterator[httpx.Client]:
    """A client of a workspace of its own, so no connector or audit entry leaks between tests."""
    with service.client(service.key()) as client:
        yield client
