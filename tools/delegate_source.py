"""Source mode of `delegate_tasks`: the service pages a source tool and starts one child per item.

The model supplies intent only (which source, which agent, what prompt); the item list comes from
the source tool, so nothing is invented, dropped or truncated: a missing key or an exceeded cap
fails the whole batch.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from core import tasks
from core.infra import keys
from core.infra.errors import BadRequest
from core.infra.ids import new_id, now_iso
from core.stores import files
from core.stores.file_filter import FileFilter
from core.tasks import delegation
from tools.context import ToolContext
from tools.delegate_guards import (
    TITLE_CHARS,
    check_count,
    check_target,
    load_parent,
    source_mode_enabled,
    step_of,
    timeout_seconds,
)
from tools.errors import ToolError
from tools.signals import PauseForChildren

#: docs/spec.md, Limits: source mode pages and items.
DEFAULT_MAX_PAGES = 100
DEFAULT_MAX_ITEMS = 250
HARD_MAX_ITEMS = delegation.HARD_MAX_CHILDREN_PER_CALL
#: Items a source tool returns per page.
SOURCE_PAGE_SIZE = 100

SourcePage = dict[str, Any]
SourceTool = Callable[[dict[str, Any], str, ToolContext], Awaitable[SourcePage]]


async def list_files_source(arguments: dict[str, Any], cursor: str, ctx: ToolContext) -> SourcePage:
    """The built-in source: the workspace's uploaded files, newest first, those the arguments select
    (`name` pattern, `tag` given at upload, `uploaded_after` / `uploaded_before`; core.stores.file_filter)."""
    try:
        selected = FileFilter.of(arguments)
    except BadRequest as exc:
        raise ToolError(f"list_files: {exc.message}") from None
    page = await files.list_files(
        ctx.redis, ctx.workspace_id, cursor=cursor or None, limit=SOURCE_PAGE_SIZE, tag=selected.tag
    )
    items = [f for f in page.data if selected.matches(f)]
    # Newest first: once a page reaches files older than the range, no later page can match.
    done = any(selected.past_range(f) for f in page.data)
    return {"items": items, "next_cursor": "" if done else page.next_cursor}


SOURCE_TOOLS: dict[str, SourceTool] = {"list_files": list_files_source}


class BatchFailed(ToolError):
    """The whole batch failed; no child was started."""


async def _fail(ctx: ToolContext, batch_key: str, message: str) -> BatchFailed:
    await ctx.redis.hset(batch_key, mapping={"status": "failed", "error": message, "finished_at": now_iso()})
    return BatchFailed(f"source batch failed: {message}")


async def run_source_batch(source: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    if not source_mode_enabled(ctx):
        raise ToolError(
            "source mode is not enabled for this agent (settings.delegate_source_mode, batch fan-out)"
        )
    parent = await load_parent(ctx)
    target = await check_target(ctx, parent, source["agent_group_id"])
    tool = SOURCE_TOOLS.get(source["tool"])
    if tool is None:
        raise ToolError(f"unknown source tool {source['tool']!r}; available: {', '.join(SOURCE_TOOLS)}")
    max_pages = int(source.get("max_pages") or DEFAULT_MAX_PAGES)
    max_items = min(int(source.get("max_items") or DEFAULT_MAX_ITEMS), HARD_MAX_ITEMS)
    key_field = source["item_key_field"]
    batch_id = new_id()
    batch_key = keys.batch_run(ctx.workspace_id, batch_id)
    async with ctx.redis.pipeline(transaction=True) as pipe:
        pipe.hset(
            batch_key,
            mapping={
                "batch_id": batch_id,
                "parent_task_id": parent.id,
                "status": "running",
                "source_tool": source["tool"],
                "total_items": 0,
                "created_children": 0,
                "skipped_count": 0,
                "attached_count": 0,
                "pages_fetched": 0,
                "created_at": now_iso(),
            },
        )
        # `GET /api/v1/tasks/{id}/batch` finds the parent's batches here.
        pipe.rpush(keys.task_batches(ctx.workspace_id, parent.id), batch_id)
        await pipe.execute()
    items: list[Any] = []
    cursor = ""
    pages = 0
    while True:
        if pages >= max_pages:
            raise await _fail(ctx, batch_key, f"the source has more than max_pages={max_pages} pages")
        try:
            page = await tool(source.get("arguments") or {}, cursor, ctx)
        except ToolError as exc:
            raise await _fail(ctx, batch_key, exc.message) from None
        pages += 1
        items += page.get("items") or []
        await ctx.redis.hset(batch_key, mapping={"pages_fetched": pages, "total_items": len(items)})
        if len(items) > max_items:
            raise await _fail(ctx, batch_key, f"the source has more than max_items={max_items} items")
        cursor = str(page.get("next_cursor") or "")
        if not cursor:
            break
    item_keys: list[str] = []
    for index, item in enumerate(items):
        value = item.get(key_field) if isinstance(item, dict) else None
        if value is None or str(value).strip() == "":
            raise await _fail(ctx, batch_key, f"item {index} has no value for item_key_field {key_field!r}")
        item_keys.append(str(value))
    if len(set(item_keys)) != len(item_keys):
        raise await _fail(ctx, batch_key, f"item keys from {key_field!r} are not unique")
    check_count(len(items), ctx)
    if not items:
        await ctx.redis.hset(batch_key, mapping={"status": "enqueued", "finished_at": now_iso()})
        return {"status": "batch_no_items", "batch_id": batch_id, "total_items": 0}
    earlier: dict[str, str] = await ctx.redis.hgetall(keys.task_items(ctx.workspace_id, parent.id))
    new: list[tuple[str, Any]] = []
    attached: list[str] = []
    skipped = 0
    for item_key, item in zip(item_keys, items, strict=True):
        child = (
            await tasks.find_task(ctx.redis, ctx.workspace_id, earlier[item_key])
            if item_key in earlier
            else None
        )
        if child is None:
            new.append((item_key, item))
        elif child.terminal:
            skipped += 1
        else:
            # Still running from an earlier run of this parent: this run waits on it instead.
            attached.append(child.id)
    counts = {
        "total_items": len(items),
        "created_children": len(new),
        "skipped_count": skipped,
        "attached_count": len(attached),
    }
    if not new and not attached:
        await ctx.redis.hset(batch_key, mapping=counts | {"status": "enqueued", "finished_at": now_iso()})
        return {"status": "batch_already_complete", "batch_id": batch_id} | counts
    placement = tasks.placement_for(target.version.config, ctx.settings.task_placement)
    children = []
    for item_key, item in new:
        prompt = source["prompt"].replace("{{item}}", json.dumps(item, default=str))
        if "{{item}}" not in source["prompt"]:
            prompt = f"{prompt}\n\n{json.dumps(item, default=str)}"
        title = (
            source["title"].replace("{{item}}", item_key)
            if source.get("title")
            else prompt.strip()[:TITLE_CHARS]
        )
        children.append(
            delegation.child_spec(
                parent,
                target,
                prompt=prompt,
                title=title,
                step_id=ctx.step_id,
                placement=placement,
                item_key=item_key,
            )
        )
    group_id = await delegation.spawn(
        ctx.redis,
        parent,
        children,
        call_id=ctx.call_id,
        step=step_of(ctx),
        timeout_seconds=timeout_seconds({}),
        attach=attached,
        batch_id=batch_id,
    )
    await ctx.redis.hset(batch_key, mapping=counts | {"status": "enqueued", "group_id": group_id or ""})
    raise PauseForChildren(group_id or "")
