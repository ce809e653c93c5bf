"""The task scripts of `core.lua` split per hash slot, for a Redis Cluster.

`lua.TRANSITION` and `lua.ADMIT` write the task's workspace keys and, in the same step, three
`{global}` keys (the live-task set, the runtime event stream, the webhook outbox). A cluster runs a
script on one slot only (CROSSSLOT), so there each runs as its workspace part here, one script that
checks and changes the task exactly as the original does, and the global part around it
(`core.tasks`), in an order that keeps every reader right:

- The live-task set is the reconciler's list of tasks that may need a runner. A task entering a
  live status (pending, queued, running) is added *before* the workspace step: should the step be
  refused or the caller die, the set holds a task that is not live, which the reconciler drops. A
  task reaching a terminal status is removed *after*: terminal statuses are sinks, so no later
  move can need the member back; a crash between leaves a member the reconciler drops. A task
  pausing (waiting_for_input, awaiting_review) keeps its member until the reconciler's next pass
  drops it, as a resume that races the pause could otherwise find its member removed.
- The child_task signal and the webhook event are appended *after* the workspace step, from what it
  returns, so only an applied change is reported. Unlike on one server, a caller that dies between
  the two steps loses them (docs/architecture.md, "Redis Cluster").

KEYS keep their positions in the original scripts; the global positions are filled with the task's
own key (unused here), so every key of the call is in the workspace's slot.
"""

from __future__ import annotations

from core.lua import _APPEND, _TRANSITION_APPLY

#: `lua.TRANSITION` without its global writes. Returns {1, previous status, 1 when the workspace has a
#: webhook subscription, the parent task id or ''} when applied, {0, current status} when refused.
TRANSITION_WORKSPACE = (
    _TRANSITION_APPLY
    + """
local subscribed = 0
if ARGV[13] ~= '' and redis.call('ZCARD', KEYS[7]) > 0 then subscribed = 1 end
if target ~= 'running' then redis.call('SREM', KEYS[4], ARGV[10]) end
local parent = ''
if target == 'completed' or target == 'failed' or target == 'stopped' then
  parent = redis.call('HGET', KEYS[1], 'parent_task_id') or ''
end
redis.call('PUBLISH', ARGV[7], ARGV[8] .. '|' .. target)
if ARGV[12] ~= '' then redis.call('PUBLISH', ARGV[7], ARGV[12] .. '|child') end
return {1, current, subscribed, parent}
"""
)

#: `lua.ADMIT` without adding the task to the live-task set (done before it, see above).
ADMIT_WORKSPACE = (
    _APPEND
    + """
local status = redis.call('HGET', KEYS[3], 'status')
if status ~= ARGV[7] then return '' end
local target = 'queued'
if redis.call('SCARD', KEYS[1]) < tonumber(ARGV[1]) then target = 'running' end
if target == 'queued' and status == 'queued' then return 'queued' end
redis.call('HSET', KEYS[3], 'status', target, 'updated_at', ARGV[4])
if target == 'running' then
  redis.call('SADD', KEYS[1], ARGV[2])
  redis.call('LREM', KEYS[2], 0, ARGV[2])
else
  redis.call('RPUSH', KEYS[2], ARGV[2])
end
append_items(KEYS[3], KEYS[4], {'{"type":"status_changed","from":"' .. status .. '","to":"' .. target
  .. '","created_at":"' .. ARGV[4] .. '"}'}, KEYS[6] or '', ARGV[2])
redis.call('PUBLISH', ARGV[5], ARGV[6] .. '|' .. target)
if ARGV[8] ~= '' then redis.call('PUBLISH', ARGV[5], ARGV[8] .. '|child') end
return target
"""
)
