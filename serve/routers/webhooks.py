"""/api/v1/webhooks: a workspace's webhook subscriptions and the attempts to deliver to them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from core.infra.models import PageOf
from core.stores import webhook_delivery, webhooks
from serve.deps import PrincipalDep, RedisDep, SettingsDep
from serve.openapi_params import WebhookIdPath
from serve.paging import PagingDep
from serve.webhooks import subscribe

router = APIRouter(prefix="/api/v1/webhooks", tags=["webhooks"])


class WebhookBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        description="http(s) URL that receives the signed POSTs.",
        json_schema_extra={
            "format": "uri",
            "maxLength": webhooks.MAX_URL_CHARS,
            "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://",
        },
    )
    # Checked by `core.stores.webhooks.check_events` (its message names the known events).
    events: list[str] = Field(
        description=f"Any of {', '.join(webhooks.EVENTS)}.",
        json_schema_extra={"minItems": 1, "items": {"type": "string", "enum": list(webhooks.EVENTS)}},
    )
    description: str | None = Field(None, json_schema_extra={"maxLength": webhooks.MAX_DESCRIPTION_CHARS})


@router.post("", status_code=201)
async def create_webhook(
    body: WebhookBody, principal: PrincipalDep, redis: RedisDep, settings: SettingsDep
) -> dict[str, Any]:
    """Subscribe a URL to events; the reply holds the signing `secret`, shown only this once."""
    record, secret = await subscribe(
        redis,
        settings,
        principal.workspace_id,
        url=body.url,
        events=body.events,
        description=body.description,
    )
    return record.resource() | {"secret": secret}


@router.get("", response_model=PageOf)
async def list_webhooks(principal: PrincipalDep, redis: RedisDep, paging: PagingDep) -> PageOf:
    """The workspace's subscriptions, newest first."""
    return paging.signed(
        await webhooks.list_webhooks(redis, principal.workspace_id, cursor=paging.cursor, limit=paging.limit)
    )


@router.get("/{webhook_id}")
async def get_webhook(webhook_id: WebhookIdPath, principal: PrincipalDep, redis: RedisDep) -> dict[str, Any]:
    """One subscription (without its secret)."""
    return (await webhooks.get_webhook(redis, principal.workspace_id, webhook_id)).resource()


@router.delete("/{webhook_id}")
async def delete_webhook(
    webhook_id: WebhookIdPath, principal: PrincipalDep, redis: RedisDep
) -> dict[str, Any]:
    """Remove a subscription; deliveries still pending for it are dropped."""
    record = await webhooks.get_webhook(redis, principal.workspace_id, webhook_id)
    await webhooks.delete_webhook(redis, record)
    return {"id": record.id, "deleted": True}


@router.get("/{webhook_id}/deliveries", response_model=PageOf)
async def list_deliveries(
    webhook_id: WebhookIdPath,
    principal: PrincipalDep,
    redis: RedisDep,
    paging: PagingDep,
) -> PageOf:
    """Every delivery attempt to the subscription, newest first."""
    record = await webhooks.get_webhook(redis, principal.workspace_id, webhook_id)
    page = await webhook_delivery.list_attempts(
        redis, record.workspace_id, record.id, cursor=paging.cursor, limit=paging.limit
    )
    return paging.signed(page)
