"""The integration tests' session service lives in `tests.support.session_service` (shared with
tests/reliability, registered in tests/conftest.py); its names stay importable from here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from agentry_client import Client, PollPolicy

from tests.support.session_service import TEST_ENV, Service

__all__ = ["TEST_ENV", "TEST_POLL", "Service"]


#: Tests poll faster than the client's default (1 s backing off to 10 s, docs/spec.md's guidance for
#: real callers), so that waits end soon after the task does and the suite stays short.
TEST_POLL = PollPolicy(initial=0.2, factor=1.5, maximum=2.0)


@pytest.fixture
def client(service: Service, api_key: str) -> Iterator[Client]:
    """The Python client on the main workspace's key."""
    with Client(service.url, api_key, poll=TEST_POLL) as agentry:
        yield agentry
