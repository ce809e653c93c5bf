"""A saved extract config read from notebooks and scripts (`extract_many`, `extract_dataset`).

Outside the HTTP service there is no caller's workspace, so the caller names it with one of its
API keys: the config is read in the key's workspace only, as `/api/v2` would read it, with the
examples taught on it (core.examples), from the store of the `agentry up` on this data dir (or
`REDIS_URL`).
"""

from __future__ import annotations

from typing import Any

from core import apikeys, configs, examples
from core.settings import Settings
from core.store import async_client, resolve_redis_url


async def saved_extract_params(settings: Settings, config_id: str, api_key: str) -> dict[str, Any]:
    """The job params of the saved extract config `config_id` (its examples included); raises the
    store's `AgentryError` (401 for the key, 403/404 for the config) or `ValueError` for a config
    of another type."""
    url, _ = resolve_redis_url(settings, start=False)
    redis = async_client(url)
    try:
        principal = await apikeys.authenticate(redis, f"Bearer {api_key}")
        config = await configs.get_config(redis, principal.workspace_id, config_id)
        if config.type != "extract":
            raise ValueError(f"config {config.config_id} is a {config.type} config, not an extract config")
        taught = await examples.examples_for_job(redis, settings, principal.workspace_id, config)
    finally:
        await redis.aclose()
    return examples.with_examples(config.params, taught)
