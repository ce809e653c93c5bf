"""Lua scripts behind every task state change: each is one atomic step that checks before it writes.

Feed items are passed in as JSON objects without their `seq`; the script numbers them from the
task's counter, so items are numbered in commit order whoever writes them.

A delegated child's items are also mirrored into its parent's stream in the same step, as entries
with the fields `child` and `child_item` instead of `seq` and `item`: the parent's live event stream
shows them, and every feed reader skips them (`core.tasks.read_feed` reads only `item` entries).

One body per step serves one Redis server and a Redis Cluster alike. On a cluster a script runs on
one hash slot only (CROSSSLOT), while some task steps also write `{global}` keys (the live-task set,
the runtime event stream, the webhook outbox): there the caller passes the task's own key in their
place and the flag that says so, and the script leaves those writes to `core.tasks.cluster`:

- `TRANSITION` and `COMPLETE` write their global step into the task's journal (in the workspace's
  slot, in the same script) instead of applying it. `APPLY_JOURNAL` applies one entry in the
  `{global}` slot, once: the caller runs it next, and the reconciler for the entries of a caller
  that died first. So nothing is lost between the two steps.
- `ADMIT`'s task joins the live-task set before the script.
- A task entering a live status (pending, queued, running) is added to the live-task set *before*
  its workspace step: should the step be refused or the caller die, the set holds a task that is
  not live, which the reconciler drops. A terminal task leaves it in its journalled global step:
  terminal statuses are sinks, so no later move can need the member back. A task pausing
  (waiting_for_input, awaiting_review) keeps its member until the reconciler's next pass drops it,
  as a resume that races the pause could otherwise find its member removed.
"""

from __future__ import annotations

# Shared helpers: append pre-serialised feed items with the next seq numbers (mirrored into the
# parent's stream when `parent_feed` is not ''), set and drop hash fields.
_APPEND = """
local function append_items(task_key, feed_key, items, parent_feed, child_id)
  local last = 0
  for _, item in ipairs(items) do
    last = redis.call('HINCRBY', task_key, 'feed_seq', 1)
    local numbered = '{"seq":' .. last .. ',' .. string.sub(item, 2)
    redis.call('XADD', feed_key, '*', 'seq', last, 'item', numbered)
    if parent_feed ~= '' then
      redis.call('XADD', parent_feed, '*', 'child', child_id, 'child_item', numbered)
    end
  end
  return last
end
local function set_fields(task_key, fields, drop)
  local flat = {}
  for k, v in pairs(fields) do
    flat[#flat + 1] = k
    flat[#flat + 1] = v
  end
  if #flat > 0 then redis.call('HSET', task_key, unpack(flat)) end
  if #drop > 0 then redis.call('HDEL', task_key, unpack(drop)) end
end
"""

#: A state change's global step: what it writes under the `{global}` tag (the live-task set, the
#: runtime event stream, the webhook outbox), described by an entry (a table, JSON in a journal):
#: `member`, `ws`, `task_id`, `leave_live` (1: the task leaves the live set), `parent` (a delegated
#: child's parent to signal, or ''), `drain` (the agent whose queue to drain, or ''), and `webhook`
#: (absent, or the event's `type`, `from`, `at`, `error`, `pause`). `settle` applies it in the same
#: script on one server (`inline`); on a Redis Cluster, where the script may only touch the
#: workspace's slot, it writes it to the task's journal and returns it, for the caller to apply
#: next and the reconciler should the caller die first (`core.tasks.cluster`, `APPLY_JOURNAL`).
_EFFECTS = """
local function apply_effects(e, live_key, events_key, outbox_key)
  if e['leave_live'] == 1 then redis.call('SREM', live_key, e['member']) end
  if e['parent'] ~= '' then
    redis.call('XADD', events_key, '*', 'kind', 'child_task', 'ws', e['ws'], 'child', e['task_id'],
      'parent', e['parent'])
  end
  if e['drain'] ~= '' then
    redis.call('XADD', events_key, '*', 'kind', 'drain_queue', 'ws', e['ws'], 'group', e['drain'])
  end
  local hook = e['webhook']
  if type(hook) == 'table' then
    redis.call('XADD', outbox_key, '*', 'type', hook['type'], 'ws', e['ws'], 'task_id', e['task_id'],
      'from', hook['from'], 'at', hook['at'], 'error', hook['error'], 'pause', hook['pause'])
  end
end
local function settle(e, inline, journal_key, live_key, events_key, outbox_key)
  if e['leave_live'] ~= 1 and e['parent'] == '' and e['drain'] == '' and e['webhook'] == nil then
    return ''
  end
  if inline then
    apply_effects(e, live_key, events_key, outbox_key)
    return ''
  end
  local entry = cjson.encode(e)
  redis.call('HSET', journal_key, e['id'], entry)
  return entry
end
"""

#: KEYS: task hash, feed stream, live set, the agent's running set, the runtime event stream, the
#: webhook outbox, the workspace's webhook index, the task's journal, (a child only) the parent's
#: feed. ARGV: transition table JSON, target status, now (ISO), fields to set (JSON object of
#: strings), fields to drop (JSON list), extra feed items (JSON list of JSON object strings),
#: channel, live-set member, expected current status ("" = any allowed), task id, workspace id, the
#: parent's live-set member ("" = no parent), the webhook event of the target status ("" = none),
#: '1' on one server ('0' on a Redis Cluster: the global keys 3, 5 and 6 are then the task's own key,
#: unused, and the global step is journalled, see `_EFFECTS`).
#: Leaving `running` frees the task's slot in the agent's running set. The global step: a delegated
#: child reaching a terminal state signals its parent (`child_task`), the webhook event is written
#: when the workspace has a subscription, a terminal task leaves the live set; so none of them can
#: be lost. On one server a task entering a live status joins the live set here and a paused one
#: leaves it; on a cluster the caller adds the one before and the reconciler drops the other.
#: Returns {1, previous status, the journal entry ('' = none)} when applied, {0, current status}
#: when refused.
TRANSITION = (
    _APPEND
    + _EFFECTS
    + """
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return {0, ''} end
if ARGV[9] ~= '' and current ~= ARGV[9] then return {0, current} end
local table_ = cjson.decode(ARGV[1])
local target = ARGV[2]
local allowed = false
for _, to in ipairs(table_[current] or {}) do
  if to == target then allowed = true end
end
if not allowed then return {0, current} end
redis.call('HSET', KEYS[1], 'status', target, 'updated_at', ARGV[3])
local fields = cjson.decode(ARGV[4])
set_fields(KEYS[1], fields, cjson.decode(ARGV[5]))
local items = cjson.decode(ARGV[6])
table.insert(items, 1, '{"type":"status_changed","from":"' .. current .. '","to":"' .. target
  .. '","created_at":"' .. ARGV[3] .. '"}')
local seq = append_items(KEYS[1], KEYS[2], items, KEYS[9] or '', ARGV[10])
local inline = ARGV[14] == '1'
local live = target == 'pending' or target == 'queued' or target == 'running'
local terminal = target == 'completed' or target == 'failed' or target == 'stopped'
if inline and live then redis.call('SADD', KEYS[3], ARGV[8]) end
if inline and not live and not terminal then redis.call('SREM', KEYS[3], ARGV[8]) end
if target ~= 'running' then redis.call('SREM', KEYS[4], ARGV[10]) end
local e = {id = tostring(seq), member = ARGV[8], ws = ARGV[11], task_id = ARGV[10], leave_live = 0,
  parent = '', drain = ''}
if terminal then
  e['leave_live'] = 1
  e['parent'] = redis.call('HGET', KEYS[1], 'parent_task_id') or ''
end
if ARGV[13] ~= '' and redis.call('ZCARD', KEYS[7]) > 0 then
  e['webhook'] = {type = ARGV[13], from = current, at = ARGV[3], error = fields['error'] or '',
    pause = fields['pause'] or ''}
end
local entry = settle(e, inline, KEYS[8], KEYS[3], KEYS[5], KEYS[6])
redis.call('PUBLISH', ARGV[7], ARGV[8] .. '|' .. target)
if ARGV[12] ~= '' then redis.call('PUBLISH', ARGV[7], ARGV[12] .. '|child') end
return {1, current, entry}
"""
)

#: Record one piece of a step exactly once. KEYS: task hash, feed stream, steps hash, (a child only)
#: the parent's feed, then the ancestors' hashes whose tree totals roll the record's cost up.
#: ARGV: marker field, marker value, allowed statuses (JSON list), fields
#: (JSON object), drop (JSON list), feed items (JSON list), increments (JSON object field -> number),
#: now, channel, member, further step markers written with it (JSON object marker -> value), task id,
#: the parent's live-set member ("" = no parent), the reviewed call the task must be paused on ("" =
#: any; else JSON `{call_id, arguments_sha256}`, compared with the `pause` field's `pending_tool_call`,
#: whose digest older records keep only under `binding`), the increments added to each ancestor's hash
#: (JSON object; an ancestor deleted meanwhile is not recreated), the number of ancestors' keys.
#: One script, so a sibling reserving from the tree never sees a cost on the child but not yet on
#: its parent (actors.tree_budget).
#: Returns 1 when written, 0 when the marker was already there, -1 when the status forbids it, -2
#: when the task is paused on another call than the one named.
RECORD = (
    _APPEND
    + """
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
local status = redis.call('HGET', KEYS[1], 'status')
local ok = false
for _, s in ipairs(cjson.decode(ARGV[3])) do
  if s == status then ok = true end
end
if not ok then return -1 end
if ARGV[14] ~= '' then
  local want = cjson.decode(ARGV[14])
  local pause = cjson.decode(redis.call('HGET', KEYS[1], 'pause') or 'null')
  local pending = type(pause) == 'table' and pause['pending_tool_call'] or nil
  if type(pending) ~= 'table' then return -2 end
  local digest = pending['arguments_sha256']
  if digest == nil and type(pending['binding']) == 'table' then digest = pending['binding']['arguments_sha256'] end
  if pending['call_id'] ~= want['call_id'] or digest ~= want['arguments_sha256'] then return -2 end
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
for k, v in pairs(cjson.decode(ARGV[11])) do
  redis.call('HSET', KEYS[3], k, v)
end
set_fields(KEYS[1], cjson.decode(ARGV[4]), cjson.decode(ARGV[5]))
for k, v in pairs(cjson.decode(ARGV[7])) do
  redis.call('HINCRBYFLOAT', KEYS[1], k, v)
end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[8])
local ancestors = tonumber(ARGV[16])
if ancestors > 0 then
  local rollup = cjson.decode(ARGV[15])
  for i = #KEYS - ancestors + 1, #KEYS do
    if redis.call('EXISTS', KEYS[i]) == 1 then
      for k, v in pairs(rollup) do redis.call('HINCRBYFLOAT', KEYS[i], k, v) end
    end
  end
end
local items = cjson.decode(ARGV[6])
append_items(KEYS[1], KEYS[2], items, KEYS[4] or '', ARGV[12])
redis.call('PUBLISH', ARGV[9], ARGV[10] .. '|' .. status)
if ARGV[13] ~= '' and #items > 0 then redis.call('PUBLISH', ARGV[9], ARGV[13] .. '|child') end
return 1
"""
)

#: Admission per agent. KEYS: running set, queue list, task hash, feed, live set, and (a child only)
#: the parent's feed. ARGV: limit, task id, transition table, now, channel, member, from status, the
#: parent's live-set member ("" = no parent), '1' on one server ('0' on a Redis Cluster: KEYS[5] is
#: then the task's own key, unused, as the caller adds the task to the live set before the script,
#: every outcome of an admission being a live status).
#: Returns 'running' or 'queued' (or '' when the task left `from status` meanwhile).
ADMIT = (
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
local inline = ARGV[9] == '1'
if inline then redis.call('SADD', KEYS[5], ARGV[6]) end
redis.call('PUBLISH', ARGV[5], ARGV[6] .. '|' .. target)
if ARGV[8] ~= '' then redis.call('PUBLISH', ARGV[5], ARGV[8] .. '|child') end
return target
"""
)

#: A running task's completion. KEYS: task hash, feed stream, the agent's running set, the task's
#: lease, the workspace's webhook index, the agent's queue, the task's journal, the live set, the
#: runtime event stream, the webhook outbox, and (a child only) the parent's feed. ARGV: now, fields
#: to set (JSON object of strings), fields to drop (JSON list), channel, live-set member, task id,
#: the parent's live-set member ("" = no parent), the lease holder (its lease is released when it
#: still holds it), workspace id, the agent's group id, the `task.completed` event name, '1' on one
#: server ('0' on a Redis Cluster: KEYS 8 to 10 are then the task's own key and the global step is
#: journalled, see `_EFFECTS`).
#: Frees the task's running slot and releases its lease in the same step. The global step: the task
#: leaves the live set, a delegated child signals its parent, the agent's queue is drained when
#: tasks wait in it, and the webhook event is written when the workspace has a subscription.
#: Returns {1, 'running', the journal entry ('' = none)} when applied, {0, current status} when the
#: task was not running.
COMPLETE = (
    _APPEND
    + _EFFECTS
    + """
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return {0, ''} end
if current ~= 'running' then return {0, current} end
redis.call('HSET', KEYS[1], 'status', 'completed', 'updated_at', ARGV[1])
set_fields(KEYS[1], cjson.decode(ARGV[2]), cjson.decode(ARGV[3]))
local seq = append_items(KEYS[1], KEYS[2], {'{"type":"status_changed","from":"running","to":"completed",'
  .. '"created_at":"' .. ARGV[1] .. '"}'}, KEYS[11] or '', ARGV[6])
redis.call('SREM', KEYS[3], ARGV[6])
if redis.call('GET', KEYS[4]) == ARGV[8] then redis.call('DEL', KEYS[4]) end
local e = {id = tostring(seq), member = ARGV[5], ws = ARGV[9], task_id = ARGV[6], leave_live = 1,
  parent = redis.call('HGET', KEYS[1], 'parent_task_id') or '', drain = ''}
if redis.call('LLEN', KEYS[6]) > 0 then e['drain'] = ARGV[10] end
if redis.call('ZCARD', KEYS[5]) > 0 then
  e['webhook'] = {type = ARGV[11], from = 'running', at = ARGV[1], error = '', pause = ''}
end
local entry = settle(e, ARGV[12] == '1', KEYS[7], KEYS[8], KEYS[9], KEYS[10])
redis.call('PUBLISH', ARGV[4], ARGV[5] .. '|completed')
if ARGV[7] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[7] .. '|child') end
return {1, 'running', entry}
"""
)

#: A new top-level task, created and admitted in one step within its workspace's hash slot (its
#: `{global}` facts, the owner and the live-set member, are written just before: `core.tasks.create`).
#: KEYS: task hash, feed stream, the workspace's task index, the agent's running set, its queue.
#: ARGV: the hash's fields (JSON object), the first feed item (JSON, seq 1), index member, the
#: agent's running-slot limit, task id, now, channel, live-set member, fields set when it is admitted
#: to run (JSON object: where its runner goes). Returns 'running' or 'queued'.
CREATE_ADMIT = (
    _APPEND
    + """
set_fields(KEYS[1], cjson.decode(ARGV[1]), {})
redis.call('XADD', KEYS[2], '*', 'seq', 1, 'item', ARGV[2])
redis.call('ZADD', KEYS[3], 0, ARGV[3])
local target = 'queued'
if redis.call('SCARD', KEYS[4]) < tonumber(ARGV[4]) then target = 'running' end
redis.call('HSET', KEYS[1], 'status', target, 'updated_at', ARGV[6])
if target == 'running' then
  redis.call('SADD', KEYS[4], ARGV[5])
  set_fields(KEYS[1], cjson.decode(ARGV[9]), {})
else
  redis.call('RPUSH', KEYS[5], ARGV[5])
end
append_items(KEYS[1], KEYS[2], {'{"type":"status_changed","from":"pending","to":"' .. target
  .. '","created_at":"' .. ARGV[6] .. '"}'}, '', ARGV[5])
redis.call('PUBLISH', ARGV[7], ARGV[8] .. '|' .. target)
return target
"""
)

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
