"""Agents (`/api/v1/agents`): create, read, change and delete."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import Agent, DeletedAgent
from ..protocol import Call, Context, Flow, fetch
from .common import V1, segment


def create_agent(
    ctx: Context, *, name: str | None, config: Mapping[str, Any] | None, is_active: bool, is_public: bool
) -> Flow[Agent]:
    body: dict[str, Any] = {"is_active": is_active, "is_public": is_public}
    if name is not None:
        body["name"] = name
    if config is not None:
        body["config"] = dict(config)
    return fetch(ctx, Call("POST", f"{V1}/agents", json=body), Agent)


def get_agent(ctx: Context, agent_id: str) -> Flow[Agent]:
    return fetch(ctx, Call("GET", f"{V1}/agents/{segment(agent_id)}", idempotent=True), Agent)


def agent_changes(
    *, name: str | None, config: Mapping[str, Any] | None, is_active: bool | None, is_public: bool | None
) -> dict[str, Any]:
    """The PATCH body: only what is given changes."""
    changes: dict[str, Any] = {"name": name, "config": None if config is None else dict(config)}
    changes |= {"is_active": is_active, "is_public": is_public}
    return {k: v for k, v in changes.items() if v is not None}


def update_agent(ctx: Context, agent_id: str, changes: Mapping[str, Any]) -> Flow[Agent]:
    # A body with `config` publishes a new version each time it is applied, so only a change
    # without one may be resent after a broken connection.
    call = Call(
        "PATCH", f"{V1}/agents/{segment(agent_id)}", json=dict(changes), idempotent="config" not in changes
    )
    return fetch(ctx, call, Agent)


def delete_agent(ctx: Context, agent_id: str) -> Flow[DeletedAgent]:
    return fetch(ctx, Call("DELETE", f"{V1}/agents/{segment(agent_id)}", idempotent=True), DeletedAgent)
