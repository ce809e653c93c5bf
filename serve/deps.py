"""FastAPI dependencies as `Annotated` aliases: the edge's only way to reach settings and the store.

Every dependency is `async def`, even those that do no I/O: FastAPI runs a plain `def` dependency in
its thread pool, a thread hop per dependency per request (the replica's profile showed threads being
started and woken on every GET).
"""

from __future__ import annotations

from typing import Annotated

import redis.asyncio as aioredis
from fastapi import Depends, Request, Security
from fastapi.security import HTTPBearer

from core.infra import keys
from core.infra.errors import RateLimited
from core.infra.settings import Settings, parse_rate
from core.stores.apikeys import Principal
from serve.state import EdgeState, edge_state
from serve.waiters import Waiters


async def get_edge() -> EdgeState:
    return edge_state()


EdgeDep = Annotated[EdgeState, Depends(get_edge)]


async def get_settings_dep(edge: EdgeDep) -> Settings:
    return edge.settings


async def get_redis(edge: EdgeDep) -> aioredis.Redis:
    return edge.redis


async def get_waiters(edge: EdgeDep) -> Waiters:
    return edge.waiters


class BearerKey(HTTPBearer):
    """Declares the `Authorization: Bearer <API_KEY>` scheme in OpenAPI and hands over the raw header.

    `core.stores.apikeys` judges the header itself, so its 401 messages (missing, malformed,
    unknown, revoked) are the same whichever route asks.
    """

    async def __call__(self, request: Request) -> str | None:  # type: ignore[override]
        return request.headers.get("Authorization")


bearer_key = BearerKey(
    scheme_name="ApiKey", description="A workspace API key: `agk_<key_id>_<secret>`.", auto_error=False
)
AuthorizationDep = Annotated[str | None, Security(bearer_key)]

SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
WaitersDep = Annotated[Waiters, Depends(get_waiters)]
RedisDep = Annotated[aioredis.Redis, Depends(get_redis)]


async def principal_of(edge: EdgeState, authorization: str | None) -> Principal:
    """Authenticate, then charge the key's rate limit: one budget across the whole /api/v1 surface.

    A plain function, so the polled route's own dispatch (`serve.task_poll`) calls it as it is.
    """
    principal = await edge.api_keys.authenticate(authorization)
    rate = parse_rate(principal.rate_limit) if principal.rate_limit else edge.settings.rate_limit_per_period
    if rate is not None:
        requests, period = rate
        decision = await edge.limiter.hit(
            keys.rate_limit(principal.workspace_id, principal.key_id),
            requests=requests,
            period_seconds=period,
        )
        if not decision.allowed:
            raise RateLimited(
                f"rate limit of {requests} requests per {period} s exceeded for this API key",
                retry_after=decision.retry_after_seconds,
            )
    return principal


async def agents_principal(edge: EdgeDep, authorization: AuthorizationDep) -> Principal:
    return await principal_of(edge, authorization)


PrincipalDep = Annotated[Principal, Depends(agents_principal)]
