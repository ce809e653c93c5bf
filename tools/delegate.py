"""`delegate_tasks` (display name Delegate to Agents): child tasks on other agents.

The tool writes children, awaits and `new_message` events through the store (core.tasks.delegation);
the scheduler starts the children and resumes the parent. It never imports the runtime.
"""

from __future__ import annotations

import json
from typing import Any

from core import tasks
from core.tasks import TaskSpec, delegation
from core.tasks.delegation import Target
from tools.context import ToolContext
from tools.delegate_guards import (
    NAME,
    TITLE_CHARS,
    allowed_group_ids,
    check_count,
    check_target,
    load_parent,
    source_mode_enabled,
    step_of,
    timeout_seconds,
)
from tools.delegate_source import run_source_batch
from tools.errors import ToolError
from tools.registry import ToolSpec
from tools.signals import PauseForChildren

TASK_ENTRY = {
    "type": "object",
    "properties": {
        "agent_group_id": {"type": "string", "description": "The agent to delegate to (from the roster)."},
        "prompt": {
            "type": "string",
            "description": "The child's first message; {{item}} is replaced per input.",
        },
        "title": {"type": "string"},
        "inputs": {"type": "array", "description": "Fan-out: one child per value."},
    },
    "required": ["agent_group_id", "prompt"],
    "additionalProperties": False,
}

SOURCE = {
    "type": "object",
    "description": "Source mode: the service pages a source tool and starts exactly one child per item.",
    "properties": {
        "tool": {"type": "string", "description": "The source tool, e.g. list_files."},
        "arguments": {"type": "object"},
        "item_key_field": {"type": "string"},
        "agent_group_id": {"type": "string"},
        "prompt": {"type": "string", "description": "{{item}} is replaced by the item as JSON."},
        "title": {"type": "string"},
        "max_pages": {"type": "integer", "minimum": 1},
        "max_items": {"type": "integer", "minimum": 1},
    },
    "required": ["tool", "item_key_field", "agent_group_id", "prompt"],
    "additionalProperties": False,
}

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tasks": {"type": "array", "items": TASK_ENTRY, "minItems": 1},
        "timeout_minutes": {"type": "integer", "minimum": 1},
        "async": {"type": "boolean", "description": "Start the children and continue without their results."},
        "source": SOURCE,
    },
    "additionalProperties": False,
}

DESCRIPTION = (
    "Delegate work to other agents of this workspace. Each task entry starts one child task (or one per "
    "value of `inputs`). Without `async` you wait until every child has finished and receive their "
    "outputs; with `async: true` they start and you continue at once."
)


async def model_schema(schema: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    """The roster goes into the description; `source` is shown only where source mode is on."""
    task = await tasks.find_task(ctx.redis, ctx.workspace_id, ctx.task_id)
    caller_group = task.spec.agent_group_id if task else ""
    entries = await delegation.roster(ctx.redis, ctx.workspace_id, caller_group)
    allowed = set(allowed_group_ids(ctx))
    if allowed:
        entries = [e for e in entries if e["agent_group_id"] in allowed]
    lines = [
        f"- {e['name']}{' [public]' if e['public'] else ''} (agent_group_id {e['agent_group_id']}): {e['description']}"
        + (f" Example input: {e['example_input']}" if e["example_input"] else "")
        for e in entries
    ]
    roster = "\n".join(lines) if lines else "(no agents are available for delegation)"
    parameters = json.loads(json.dumps(schema["parameters"]))
    if not source_mode_enabled(ctx):
        parameters["properties"].pop("source", None)
    return schema | {
        "description": f"{schema['description']}\n\nAgents you can delegate to:\n{roster}",
        "parameters": parameters,
    }


def substitute(text: str, item: Any) -> str:
    value = item if isinstance(item, str) else json.dumps(item)
    return text.replace("{{item}}", value)


async def delegate_tasks(arguments: dict[str, Any], ctx: ToolContext) -> Any:
    if "source" in arguments:
        if "tasks" in arguments or "async" in arguments:
            raise ToolError("source mode cannot be combined with tasks or async")
        return await run_source_batch(arguments["source"], ctx)
    entries = arguments.get("tasks") or []
    if not entries:
        raise ToolError("give at least one task entry (agent_group_id and prompt)")
    parent = await load_parent(ctx)
    is_async = bool(arguments.get("async"))
    earlier = await delegation.previous_call(ctx.redis, parent, ctx.call_id)
    if earlier is not None:
        # This call already spawned its children before its runner died: never spawn them twice.
        if earlier["group_id"]:
            raise PauseForChildren(earlier["group_id"])
        return {"status": "spawned_async", "group_id": "", "strategy": "", "children": earlier["children"]}
    planned: list[tuple[Target, str, str | None]] = []
    for entry in entries:
        target = await check_target(ctx, parent, entry["agent_group_id"])
        inputs = entry.get("inputs")
        if inputs is None:
            planned.append((target, entry["prompt"], entry.get("title")))
            continue
        for item in inputs:
            prompt = entry["prompt"]
            prompt = (
                substitute(prompt, item)
                if "{{item}}" in prompt
                else f"{prompt}\n\n{substitute('{{item}}', item)}"
            )
            title = substitute(entry["title"], item) if entry.get("title") else None
            planned.append((target, prompt, title))
    check_count(len(planned), ctx)
    step_id = ctx.step_id
    children: list[TaskSpec] = [
        delegation.child_spec(
            parent,
            target,
            prompt=prompt,
            title=title or prompt.strip()[:TITLE_CHARS] or None,
            step_id=step_id,
            placement=tasks.placement_for(target.version.config, ctx.settings.task_placement),
        )
        for target, prompt, title in planned
    ]
    group_id = await delegation.spawn(
        ctx.redis,
        parent,
        children,
        call_id=ctx.call_id,
        step=step_of(ctx),
        timeout_seconds=None if is_async else timeout_seconds(arguments),
    )
    if is_async or group_id is None:
        return {
            "status": "spawned_async",
            "group_id": "",
            "strategy": "",
            "children": [{"task_id": c.task_id, "title": c.title} for c in children],
        }
    raise PauseForChildren(group_id)


DELEGATE_TASKS = ToolSpec(
    name=NAME,
    description=DESCRIPTION,
    parameters=PARAMETERS,
    handler=delegate_tasks,
    display_name="Delegate to Agents",
    customize=model_schema,
)
