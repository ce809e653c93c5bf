"""First start on an empty store: workspace `default` and a dev key written to the data dir."""

from __future__ import annotations

from pathlib import Path

import redis.asyncio as aioredis

from core.infra import keys
from core.stores.apikeys import create_key, get_or_create_workspace

DEFAULT_WORKSPACE = "default"
DEV_KEY_FILE = "dev-api-key"


async def ensure_dev_key(redis: aioredis.Redis, data_dir: Path) -> str | None:
    """Create workspace `default` and a key when no workspace exists yet; returns the new key."""
    if await redis.hlen(keys.workspace_by_name()):
        return None
    workspace = await get_or_create_workspace(redis, DEFAULT_WORKSPACE)
    issued = await create_key(redis, workspace.id, label="dev key (first start)")
    write_dev_key(data_dir, issued.key)
    return issued.key


def write_dev_key(data_dir: Path, key: str) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / DEV_KEY_FILE
    path.write_text(key + "\n")
    path.chmod(0o600)
