from collections.abc import Iterator

import pytest

from tests.support.anthropic_server import AnthropicServer
from tests.support.openai_server import OpenAICompatibleServer


@pytest.fixture(scope="module")
def _openai_server_process() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer() as server:
        yield server


@pytest.fixture
def openai_server(_openai_server_process: OpenAICompatibleServer) -> OpenAICompatibleServer:
    _openai_server_process.reset()
    return _openai_server_process


@pytest.fixture(scope="module")
def _anthropic_server_process() -> Iterator[AnthropicServer]:
    with AnthropicServer() as server:
        yield server


@pytest.fixture
def anthropic_server(_anthropic_server_process: AnthropicServer) -> AnthropicServer:
    _anthropic_server_process.reset()
    return _anthropic_server_process
