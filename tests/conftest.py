"""Test options: the same tests run on the embedded defaults or against given services.

The session service and its clients (`tests.support.session_service`) are registered here, so
tests/integration and tests/reliability share one Ray and one Serve application per session.
"""

from __future__ import annotations

import pytest

from tests.support.session_service import api, api_key, placement, service

__all__ = ["api", "api_key", "placement", "service"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--redis-url",
        default=None,
        help="run the store tests against this Redis (default: an embedded server in a temp dir)",
    )
    parser.addoption(
        "--ray-address",
        default=None,
        help="run the integration tests on this Ray cluster (default: a local Ray started by the tests)",
    )
