"""The client's sans-I/O core: what a request is, what an answer is, and how a step waits.

The sync and async clients share every rule (retries, polling, pagination, run fallbacks) by
writing each operation once as a generator: it yields a `Call` and is sent back the `Reply`, or
yields a `Sleep` and is resumed after it. A connection error is thrown into the generator as a
`TransportFailure`. Only the drivers in `sync_client` and `async_client` do I/O.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from .errors import ConnectionFailed, api_error
from .retry import PollPolicy, RetryPolicy, parse_retry_after

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

#: A file part of a multipart body: (field name, (file name, bytes, content type)).
FilePart = tuple[str, tuple[str, bytes, str]]


@dataclass(frozen=True)
class Call:
    """One HTTP request, described."""

    method: str
    path: str
    params: Mapping[str, str] = field(default_factory=dict)
    json: Any = None
    #: Multipart form fields (a list repeats the field); used together with `files`.
    data: Mapping[str, str | list[str]] | None = None
    files: Sequence[FilePart] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    #: Whether sending it twice has the effect of sending it once, so it may be resent after a
    #: connection broke mid-request. Every GET and DELETE is; a cancel is (docs/spec.md: idempotent).
    idempotent: bool = False


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Reply:
    status: int
    #: Header names in lower case.
    headers: Mapping[str, str]
    content: bytes

    def json(self) -> Any:
        return json.loads(self.content) if self.content else None


class TransportFailure(Exception):
    """A connection error, as the drivers report it to a flow.

    `sent` is false only when nothing can have reached the service (the connection was never
    made, or no pooled connection was free), so even a run may be resent safely.
    """

    def __init__(self, message: str, *, sent: bool):
        super().__init__(message)
        self.sent = sent


Step = Call | Sleep
Flow = Generator[Step, Reply | None, T]


@dataclass(frozen=True)
class Context:
    """What every flow consults: the policies, a random source for jitter and a clock for deadlines."""

    retry: RetryPolicy = field(default_factory=RetryPolicy)
    poll: PollPolicy = field(default_factory=PollPolicy)
    rng: random.Random = field(default_factory=random.Random)
    clock: Callable[[], float] = time.monotonic


def exchange(ctx: Context, call: Call) -> Flow[Reply]:
    """Send `call`, resending it as the retry policy allows; the 2xx reply, or an `ApiError`."""
    attempt = 0
    while True:
        attempt += 1
        try:
            reply = yield call
        except TransportFailure as failure:
            delay = ctx.retry.after_transport_error(
                attempt, sent=failure.sent, idempotent=call.idempotent, rng=ctx.rng
            )
            if delay is None:
                raise ConnectionFailed(
                    f"{call.method} {call.path}: {failure}", maybe_applied=failure.sent
                ) from failure
            yield Sleep(delay)
            continue
        assert reply is not None, "a driver answers a Call with its Reply"
        if reply.status < 400:
            return reply
        retry_after = parse_retry_after(reply.headers.get("retry-after"))
        delay = ctx.retry.after_status(
            reply.status, attempt, idempotent=call.idempotent, retry_after=retry_after, rng=ctx.rng
        )
        if delay is None:
            raise api_error(reply.status, dict(reply.headers), reply.content, retry_after=retry_after)
        yield Sleep(delay)


def fetch(ctx: Context, call: Call, model: type[M]) -> Flow[M]:
    """`exchange`, then the reply's body as `model`."""
    reply = yield from exchange(ctx, call)
    return model.model_validate_json(reply.content)


def drive_sync(flow: Flow[T], send: Callable[[Call], Reply], sleep: Callable[[float], None]) -> T:
    """Run a flow with blocking I/O; `send` raises `TransportFailure` on a connection error."""
    try:
        step = next(flow)
        while True:
            if isinstance(step, Sleep):
                sleep(step.seconds)
                step = flow.send(None)
                continue
            try:
                reply = send(step)
            except TransportFailure as failure:
                step = flow.throw(failure)
            else:
                step = flow.send(reply)
    except StopIteration as done:
        result: T = done.value
        return result


async def drive_async(
    flow: Flow[T], send: Callable[[Call], Awaitable[Reply]], sleep: Callable[[float], Awaitable[None]]
) -> T:
    """`drive_sync` with awaitable I/O: the same flow, the same decisions."""
    try:
        step = next(flow)
        while True:
            if isinstance(step, Sleep):
                await sleep(step.seconds)
                step = flow.send(None)
                continue
            try:
                reply = await send(step)
            except TransportFailure as failure:
                step = flow.throw(failure)
            else:
                step = flow.send(reply)
    except StopIteration as done:
        result: T = done.value
        return result
