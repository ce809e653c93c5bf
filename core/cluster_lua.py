"""The scripts a Redis Cluster needs beside those of `core.lua`, where every script runs on one slot
(CROSSSLOT) while some task steps write both the workspace's keys and `{global}` ones (the live-task
set, the runtime event stream, the webhook outbox).

- `lua.TRANSITION` and `lua.COMPLETE` are the same scripts on a cluster: called with their global
  KEYS filled with the task's own key, they write their global step into the task's journal (in
  the workspace's slot, in the same script) instead of applying it. `APPLY_JOURNAL` applies one
  entry in the `{global}` slot, once: the caller runs it next, and the reconciler for the entries
  of a caller that died first (`core.cluster_tasks`). So nothing is lost between the two steps.
- `lua.ADMIT` runs as its workspace part here, the live-task set written before it
  (`core.cluster_tasks`).
- A task entering a live status (pending, queued, running) is added to the live-task set *before*
  its workspace step: should the step be refused or the caller die, the set holds a task that is
  not live, which the reconciler drops. A terminal task leaves it in its journalled global step:
  terminal statuses are sinks, so no later move can need the member back. A task pausing
  (waiting_for_input, awaiting_review) keeps its member until the reconciler's next pass drops it,
  as a resume that races the pause could otherwise find its member removed.
"""

from __future__ import annotations

from core.lua import _APPEND, _EFFECTS

#: One journal entry's global step, applied at most once (the marker is set with it).
#: KEYS: the entry's applied-marker, the live set, the runtime event stream, the webhook outbox.
#: ARGV: the entry (JSON, see `lua._EFFECTS`), the marker's lifetime in seconds.
#: Returns 1 when applied, 0 when it had been already.
APPLY_JOURNAL = (
    _EFFECTS
    + """
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', tonumber(ARGV[2])) then return 0 end
apply_effects(cjson.decode(ARGV[1]), KEYS[2], KEYS[3], KEYS[4])
return 1
"""
)

#: Drop a member of the journals' index unless a step that may journal began for it after the
#: cutoff. KEYS: the index. ARGV: member, cutoff (ms). Returns 1 when dropped.
FORGET_JOURNAL = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""

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
