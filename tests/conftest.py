"""Test options: the same tests run on the embedded defaults or against given services."""

from __future__ import annotations

import pytest


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
