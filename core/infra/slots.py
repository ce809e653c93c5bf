"""Hash slots: what one atomic step may touch, on one Redis server and on a Redis Cluster.

Every key is `ag:{<workspace>}:...` or `ag:{global}:...` (core.infra.keys), so everything of one workspace
is one slot, and every global fact another. One server runs a MULTI over both slots at once; a
cluster refuses it (CROSSSLOT). `SlotTransaction` keeps the one MULTI where it is legal and, on a
cluster, runs one MULTI per slot in an order the caller chooses and justifies: the global facts
that *point at* a record (its owner, an index, the live-task set) are written before the record and
removed after it, so a crash between the two steps leaves a pointer to nothing (read as 404, or
dropped by the reconciler), never a record nobody can find.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from core.infra import keys

#: The slot of every `{global}` key.
GLOBAL_SLOT = key_slot(keys.glob("x").encode())

#: Commands whose first argument is not a key: sent after every MULTI has committed, outside them
#: (a pub/sub message only wakes readers, who then read the committed facts).
_UNKEYED = frozenset({"publish"})


def is_cluster(redis: Any) -> bool:
    return isinstance(redis, RedisCluster)


async def pubsub(redis: aioredis.Redis) -> Any:
    """A pub/sub connection. Plain PUBLISH reaches every node of a cluster, so subscribing on any
    one is enough; redis-py's cluster pub/sub picks that node by the channel's slot, so a fresh
    cluster client learns its nodes first."""
    if is_cluster(redis):
        await cast(RedisCluster, redis).initialize()
    return redis.pubsub()


def slot(key: str) -> int:
    return int(key_slot(key.encode()))


class SlotTransaction:
    """Commands queued as on `redis.pipeline(transaction=True)`; `execute` returns their results in
    the order they were queued.

    `global_first`: on a cluster, the `{global}` slot's MULTI runs before the workspace's (creating
    something the global facts point at); otherwise after it (deleting it).
    """

    def __init__(self, redis: aioredis.Redis, *, global_first: bool) -> None:
        self._redis = redis
        self._global_first = global_first
        self._calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Callable[..., None]:
        def queue(*args: Any, **kwargs: Any) -> None:
            self._calls.append((name, args, kwargs))

        return queue

    async def __aenter__(self) -> SlotTransaction:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._calls.clear()

    async def execute(self) -> list[Any]:
        calls, self._calls = self._calls, []
        if not is_cluster(self._redis):
            return await self._run(calls, range(len(calls)), transaction=True)
        groups: dict[int, list[int]] = {}
        unkeyed: list[int] = []
        for index, (name, args, _) in enumerate(calls):
            if name in _UNKEYED:
                unkeyed.append(index)
            else:
                groups.setdefault(slot(args[0]), []).append(index)
        order = sorted(groups, key=lambda s: (s != GLOBAL_SLOT) if self._global_first else (s == GLOBAL_SLOT))
        results: list[Any] = [None] * len(calls)
        for group, atomic in [*((groups[s], True) for s in order), (unkeyed, False)]:
            if group:
                for index, result in zip(
                    group, await self._run(calls, group, transaction=atomic), strict=True
                ):
                    results[index] = result
        return results

    async def _run(
        self, calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]], indexes: Any, *, transaction: bool
    ) -> list[Any]:
        if not transaction:
            # The unkeyed commands (PUBLISH): a cluster client refuses them in a pipeline.
            return [await getattr(self._redis, calls[i][0])(*calls[i][1], **calls[i][2]) for i in indexes]
        async with self._redis.pipeline(transaction=transaction) as pipe:
            for index in indexes:
                name, args, kwargs = calls[index]
                getattr(pipe, name)(*args, **kwargs)
            return list(await pipe.execute())


def transaction(redis: aioredis.Redis, *, global_first: bool) -> SlotTransaction:
    return SlotTransaction(redis, global_first=global_first)


class _GlobalStep:
    """The `{global}` writes of a watched workspace transaction: queued on its MULTI on one server;
    on a cluster, where a MULTI holds one slot, run by `execute` as their own MULTI once the watched
    one committed."""

    def __init__(self, redis: aioredis.Redis, watched: Any) -> None:
        self._cluster = is_cluster(redis)
        self._watched = watched
        self._step = SlotTransaction(redis, global_first=True)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._step if self._cluster else self._watched, name)

    async def execute(self) -> None:
        if self._cluster:
            await self._step.execute()


@contextlib.asynccontextmanager
async def global_step(redis: aioredis.Redis, watched: Any) -> AsyncIterator[_GlobalStep]:
    yield _GlobalStep(redis, watched)
