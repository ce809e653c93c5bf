"""Subscribing a workspace to webhooks: the URL guard of extraction inputs, then the store."""

from __future__ import annotations

import redis.asyncio as aioredis

from core.infra.errors import BadRequest
from core.infra.settings import Settings
from core.infra.url_guard import checked_address, parse_url
from core.stores import webhooks


async def check_url(url: str, *, allow_private: bool) -> str:
    """The URL, once it passed the guard extraction inputs pass: http(s), no credentials, and a host
    that resolves to no private, loopback, link-local or metadata address (unless `allow_private`).
    Deliveries check it again, as resolved then (`actors.webhook_dispatcher`)."""
    text = url.strip()
    if not text or len(text) > webhooks.MAX_URL_CHARS:
        raise BadRequest(f"url must be 1 to {webhooks.MAX_URL_CHARS} characters")
    name = webhooks.URL_NAME
    await checked_address(parse_url(text, what=name), allow_private=allow_private, what=name)
    return text


async def subscribe(
    redis: aioredis.Redis,
    settings: Settings,
    workspace_id: str,
    *,
    url: str,
    events: list[str],
    description: str | None,
) -> tuple[webhooks.WebhookRecord, str]:
    """A new subscription and its signing secret (shown once)."""
    webhooks.check_events(events)
    checked = await check_url(url, allow_private=settings.allow_private_urls)
    return await webhooks.create_webhook(
        redis, settings, workspace_id, url=checked, events=events, description=description
    )
