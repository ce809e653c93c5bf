"""A spend budget for a whole task tree: `settings.tree_spend_cap_usd` on the agent that starts it.

Every model call a task pays for is added, in the same script that records the call, to the
`tree_*` fields of the task and of each of its ancestors (shown as `usage.tree`: what a task and
everything below it spent).

The root's budget is its agent's cap (read at each check, so raising it applies at once). A child
reserves its budget from what its parent has left when it starts (`tree_budget_usd` on the child's
hash): the parent's budget, less what the parent's subtree has spent, less what its other live
children reserved and have not spent yet; a child whose own agent sets a tree cap takes at most
that. Reading the parent's remainder and writing the child's reservation is one Lua script, so two
siblings starting together cannot both take the same money.

A task pauses before its next model call, as over its own spend cap (reason
`tree_spend_cap_exceeded`), when it or any of its ancestors has spent more than its budget.
Replying to that pause resumes the task; a task that was over its own reservation then tops it up
from what its parent has free (for example after the root's cap was raised). Per-task caps keep
working beside it.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from actors.policy import AgentPolicy
from core import tasks
from core.infra import keys
from core.infra.settings import Settings
from core.stores import agents
from core.tasks import Task, delegation
from core.tasks.state_machine import TERMINAL_STATUSES

#: Parents followed at most to find a tree's root (delegation depth is bounded far below this).
MAX_TREE_DEPTH = 64

TREE_FIELDS = ("input_tokens", "output_tokens", "cost_usd")
#: Set on a task paused for being over its own reservation: its next check (after a reply) tops it up.
_TOP_UP_FIELD = "tree_top_up"

#: KEYS: the child's hash, its parent's, and the parent's other children's. ARGV: the parent's
#: budget when it is the root ('' otherwise: the parent's own reservation is read), the child's own
#: agent's tree cap (''), mode `reserve` (once) or `top_up`, the terminal statuses (JSON).
#: Returns the child's budget as text ('' when the tree has none).
_RESERVE = """
local function num(key, field) return tonumber(redis.call('HGET', key, field) or '') end
local mine = num(KEYS[1], 'tree_budget_usd')
if ARGV[3] == 'reserve' and mine then return tostring(mine) end
local own = tonumber(ARGV[2])
local budget = tonumber(ARGV[1]) or num(KEYS[2], 'tree_budget_usd')
if not budget then
  -- '' records that the tree had no budget when the child started, so it is not asked again.
  redis.call('HSET', KEYS[1], 'tree_budget_usd', own or '')
  return own and tostring(own) or ''
end
local ended = {}
for _, status in ipairs(cjson.decode(ARGV[4])) do ended[status] = true end
local free = budget - (num(KEYS[2], 'tree_cost_usd') or 0)
for i = 3, #KEYS do
  local held = num(KEYS[i], 'tree_budget_usd')
  if held and not ended[redis.call('HGET', KEYS[i], 'status') or 'completed'] then
    free = free - math.max(held - (num(KEYS[i], 'tree_cost_usd') or 0), 0)
  end
end
local spent = num(KEYS[1], 'tree_cost_usd') or 0
local granted = spent + math.max(free, 0)
if ARGV[3] == 'top_up' and free <= 0 and mine then granted = mine end
if own and own < granted then granted = own end
redis.call('HSET', KEYS[1], 'tree_budget_usd', granted)
return tostring(granted)
"""


async def lineage(redis: aioredis.Redis, task: Task) -> list[Task]:
    """`task`, its parent, and so on up to the root of its tree."""
    chain = [task]
    for _ in range(MAX_TREE_DEPTH):
        parent_id = chain[-1].spec.parent_task_id
        parent = await tasks.find_task(redis, chain[-1].workspace_id, parent_id) if parent_id else None
        if parent is None:
            break
        chain.append(parent)
    return chain


async def root_of(redis: aioredis.Redis, task: Task) -> Task:
    """The task that started `task`'s tree (`task` itself when it has no parent)."""
    return (await lineage(redis, task))[-1]


def _key(task: Task) -> str:
    return keys.task(task.workspace_id, task.id)


def tree_increments(
    input_tokens: int, output_tokens: int, cost_usd: float, *, cost_known: bool = True
) -> dict[str, float]:
    """One model call added to tree totals: the task's own, written with the call's record, and
    each ancestor's, in the same script (`ancestor_keys`)."""
    added: dict[str, float] = {
        "tree_input_tokens": input_tokens,
        "tree_output_tokens": output_tokens,
        "tree_cost_usd": cost_usd,
    }
    if not cost_known:
        added["tree_unpriced_calls"] = 1
    return added


async def ancestor_keys(redis: aioredis.Redis, task: Task) -> list[str]:
    """The hashes of `task`'s ancestors, parent first: what a model call of `task` rolls up into.
    No round trip for a root task."""
    if not task.spec.parent_task_id:
        return []
    return [_key(t) for t in (await lineage(redis, task))[1:]]


async def _agent_cap(redis: aioredis.Redis, settings: Settings, task: Task) -> float | None:
    """The tree cap of `task`'s agent, as its latest version sets it."""
    try:
        group = await agents.load_group(redis, task.agent_workspace_id, task.spec.agent_group_id)
        latest = await agents.latest(redis, task.agent_workspace_id, group)
    except Exception:
        return None
    return AgentPolicy.of(latest.config, None, settings).tree_spend_cap_usd


async def _reserve(
    redis: aioredis.Redis, settings: Settings, chain: list[Task], root_cap: float | None, mode: str
) -> None:
    """Reserve (or top up) the budget of `chain[0]` from its parent `chain[1]`."""
    child, parent = chain[0], chain[1]
    siblings = [
        keys.task(parent.workspace_id, sibling)
        for sibling in await delegation.children_of(redis, parent.workspace_id, parent.id)
        if sibling != child.id
    ]
    own = await _agent_cap(redis, settings, child)
    parent_budget = root_cap if parent is chain[-1] else None
    ended = tasks.dumps(sorted(s.value for s in TERMINAL_STATUSES))
    script_keys = [_key(child), _key(parent), *siblings]
    await redis.eval(
        _RESERVE,
        len(script_keys),
        *script_keys,
        "" if parent_budget is None else parent_budget,
        "" if own is None else own,
        mode,
        ended,
    )


def _budget(task: Task, root_cap: float | None, is_root: bool) -> float | None:
    if is_root:
        return root_cap
    raw = task.raw.get("tree_budget_usd")
    return float(raw) if raw not in (None, "") else None


def _spent(task: Task) -> float:
    return float(task.raw.get("tree_cost_usd") or 0.0)


async def over_budget(
    redis: aioredis.Redis, settings: Settings, task: Task, latest: AgentPolicy | None = None
) -> bool:
    """Whether `task` or one of its ancestors has spent more than its tree budget; reserves the
    task's budget from its parent on its first check. `latest`: the policy of the task's agent's
    latest version when the caller has it (a root task's cap is then not read again)."""
    chain = await lineage(redis, task)
    root_cap = (
        latest.tree_spend_cap_usd
        if latest is not None and len(chain) == 1
        else await _agent_cap(redis, settings, chain[-1])
    )
    if len(chain) > 1 and "tree_budget_usd" not in chain[0].raw:
        await _reserve(redis, settings, chain, root_cap, "reserve")
        chain[0] = await tasks.find_task(redis, task.workspace_id, task.id) or chain[0]
    own_budget = _budget(chain[0], root_cap, len(chain) == 1)
    if len(chain) > 1 and own_budget is not None and _spent(chain[0]) > own_budget:
        if chain[0].raw.get(_TOP_UP_FIELD):
            # Resumed after pausing here: take what the parent has free now.
            await _reserve(redis, settings, chain, root_cap, "top_up")
            await redis.hdel(_key(task), _TOP_UP_FIELD)
            chain[0] = await tasks.find_task(redis, task.workspace_id, task.id) or chain[0]
            own_budget = _budget(chain[0], root_cap, False)
        if own_budget is not None and _spent(chain[0]) > own_budget:
            await redis.hset(_key(task), _TOP_UP_FIELD, "1")
            return True
    # A root is checked against its agent's cap; a child (checked above) also against each ancestor's.
    for member in chain[1:] if len(chain) > 1 else chain:
        budget = _budget(member, root_cap, member is chain[-1])
        if budget is not None and _spent(member) > budget:
            return True
    return False


async def budgeted(redis: aioredis.Redis, settings: Settings, task: Task) -> bool:
    """Whether a tree budget applies to `task`: its root's agent sets a tree cap, or the task or one
    of its ancestors holds a reservation (read after `over_budget` made the task's own)."""
    chain = await lineage(redis, task)
    if await _agent_cap(redis, settings, chain[-1]) is not None:
        return True
    chain[0] = await tasks.find_task(redis, task.workspace_id, task.id) or chain[0]
    return any(_budget(member, None, False) is not None for member in chain[:-1])
