"""The paged list endpoints: one page, and the queries that filter them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ..models import Page
from ..protocol import Call, Context, Flow, fetch


def page(
    ctx: Context, path: str, params: Mapping[str, str], item: type[BaseModel], cursor: str | None
) -> Flow[Page[Any]]:
    """One page of a list endpoint, its items parsed as `item`."""
    query = dict(params)
    if cursor:
        query["cursor"] = cursor
    return fetch(ctx, Call("GET", path, params=query, idempotent=True), Page[item])  # type: ignore[valid-type]


def task_filters(
    *,
    agent_group_id: str | None = None,
    agent_id: str | None = None,
    status: str | Sequence[str] | None = None,
    created_after: str | None = None,
    created_before: str | None = None,
    title: str | None = None,
    bucket: str | None = None,
    include_data_fields: bool = False,
    limit: int | None = None,
) -> dict[str, str]:
    """The query of `GET /api/v1/tasks` (docs/contract.md section 3); `status` may be a list."""
    params = {
        "agent_group_id": agent_group_id,
        "agent_id": agent_id,
        "status": status if status is None or isinstance(status, str) else ",".join(status),
        "created_after": created_after,
        "created_before": created_before,
        "title": title,
        "bucket": bucket,
        "limit": None if limit is None else str(limit),
    }
    query = {k: v for k, v in params.items() if v is not None}
    if include_data_fields:
        query["include_data_fields"] = "true"
    return query


def limit_param(limit: int | None) -> dict[str, str]:
    return {} if limit is None else {"limit": str(limit)}
