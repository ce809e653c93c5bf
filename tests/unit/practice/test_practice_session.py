import pytest

from tools.practice import InvalidToken, call_with_token

pytestmark = pytest.mark.unit


class Calls:
    def __init__(self, invalid_for: set[str]) -> None:
        self.invalid_for = invalid_for
        self.used: list[str] = []
        self.mints = 0

    async def current(self) -> str:
        return "old"

    async def remint(self) -> str:
        self.mints += 1
        return f"new{self.mints}"

    async def call(self, token: str) -> str:
        self.used.append(token)
        if token in self.invalid_for:
            raise InvalidToken("invalid")
        return f"done with {token}"


async def test_valid_token_is_used_without_minting() -> None:
    calls = Calls(invalid_for=set())
    assert await call_with_token(calls.current, calls.remint, calls.call) == "done with old"
    assert (calls.used, calls.mints) == (["old"], 0)


async def test_invalid_token_mints_once_and_retries_once() -> None:
    calls = Calls(invalid_for={"old"})
    assert await call_with_token(calls.current, calls.remint, calls.call) == "done with new1"
    assert (calls.used, calls.mints) == (["old", "new1"], 1)


async def test_a_second_invalid_token_propagates() -> None:
    calls = Calls(invalid_for={"old", "new1"})
    with pytest.raises(InvalidToken):
        await call_with_token(calls.current, calls.remint, calls.call)
    assert (calls.used, calls.mints) == (["old", "new1"], 1)


async def test_other_errors_do_not_mint() -> None:
    calls = Calls(invalid_for=set())

    async def failing(token: str) -> str:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await call_with_token(calls.current, calls.remint, failing)
    assert calls.mints == 0
