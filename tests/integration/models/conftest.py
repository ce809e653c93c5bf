from collections.abc import Iterator

import pytest

from tests.support.openai_server import OpenAICompatibleServer


@pytest.fixture(scope="module")
def _openai_server_process() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer() as server:
        yield server


@pytest.fixture
def openai_server(_openai_server_process: OpenAICompatibleServer) -> OpenAICompatibleServer:
    _openai_server_process.reset()
    return _openai_server_process
