"""A bound on the bytes of each answer an MCP server sends, counted while they arrive.

The SDK's Streamable HTTP client reads each answer whole (`aread()` for JSON, every event of an
SSE stream) before it looks at it, so a server answering a tools/list or a tool call of a gigabyte
would fill the replica or task actor reading it. `BoundedTransport` sits under the client and
counts the body bytes of every response of one operation (initialize, each tools/list page, the
call, a GET stream), each against the operation's `ReadBudget` limit; the chunk that passes it is
never handed on. (Each answer, not their sum: the SDK lists a server's tools again inside every
tool call, to check the result against the tool's output schema.)

The SDK swallows an exception raised while a body is read (it logs it, or passes it to a message
handler, and the request then waits for an answer that never comes), so passing the bound also
cancels the budget's scope, which the caller wraps around the whole session: the operation stops
at once and the caller sees `exceeded`.

Only identity-encoded bodies are taken: a compressed body is counted before it is inflated, so a
small one could inflate past any bound. The client asks for `identity`; a server that compresses
anyway is refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import anyio
import httpx

#: The request header that asks a server not to compress; the transport refuses any other answer.
IDENTITY = {"Accept-Encoding": "identity"}


class AnswerTooLarge(Exception):
    """An answer passed the operation's read budget (raised where the bytes arrive)."""


class CompressedAnswer(Exception):
    """A server compressed its answer though the client asked it not to."""

    def __init__(self, encoding: str) -> None:
        super().__init__(encoding)
        self.encoding = encoding


@dataclass
class ReadBudget:
    """The bytes one answer of an operation may have; `scope` is cancelled when one has more."""

    limit: int
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    exceeded: bool = False

    def overrun(self) -> None:
        self.exceeded = True
        self.scope.cancel()
        raise AnswerTooLarge(self.limit)


class _CountedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, budget: ReadBudget) -> None:
        self._inner = inner
        self._budget = budget

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._inner:
            read += len(chunk)
            if read > self._budget.limit:
                self._budget.overrun()
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx.AsyncBaseTransport):
    """`inner`'s responses, each body counted against `budget` as it is read."""

    def __init__(self, inner: httpx.AsyncBaseTransport, budget: ReadBudget) -> None:
        self._inner = inner
        self._budget = budget

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding not in ("", "identity"):
            await response.aclose()
            raise CompressedAnswer(encoding)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._budget.limit:
            # Refused before a byte of it is read.
            await response.aclose()
            self._budget.overrun()
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_CountedStream(response.stream, self._budget),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
