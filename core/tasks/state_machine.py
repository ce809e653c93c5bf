"""The one state machine of a task: its statuses, the moves between them, and what causes each move.

The table is data so that two places check the same rules: Python code calls `check_transition`
before it asks the store to move a task, and the store's Lua script receives
`transition_table_json()` and refuses, atomically, any move the table does not hold.

Decisions beyond docs/spec.md "States and transitions" (which leaves moves out of pending and queued,
into queued, and into or out of awaiting_review unshown):

- Admission control sits between "may run" and "runs": a task leaving pending, or resuming after a
  pause (reply, children done, review decision), goes to `running` when the agent and the node have
  a free slot, else to `queued`; `queued` goes to `running` when a slot frees.
- `running -> queued` (trigger `requeue`): the scheduler found the task's actor gone (process or
  node lost) or its host draining. The task gives up its slot and waits for admission like any
  other; the new actor resumes after the last recorded step, so no recorded side effect repeats.
- `pending -> failed` and `queued -> failed`: the task cannot start at all (for example its agent
  version can no longer be loaded).
- A review is asked for only by a running step, and both decisions resume the task: approve runs the
  pending call, reject hands the model a tool error.
- No status moves to itself. SPEC's "reply while the cause persists: waiting_for_input ->
  waiting_for_input" happens as two moves, `reply` to running and `failure_pause` back, because the
  reply is recorded and a step runs that finds the cause still there.
- Terminal statuses are sinks. Cancelling a terminal task is answered by the caller as an
  idempotent no-op with the current record; it is not a transition.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

from core.infra.errors import IllegalTransition


class TaskStatus(StrEnum):
    PENDING = "pending"
    QUEUED = "queued"
    RUNNING = "running"
    WAITING_FOR_INPUT = "waiting_for_input"
    AWAITING_REVIEW = "awaiting_review"
    COMPLETED = "completed"
    FAILED = "failed"
    STOPPED = "stopped"


class Trigger(StrEnum):
    """What causes a move; recorded for readers of the table and of `status_changed` feed items."""

    ADMIT = "admit"  #: the scheduler gives the task a slot and starts its actor
    HOLD = "hold"  #: admission control holds the task: its agent or node is at its limit
    REQUEUE = "requeue"  #: the task's actor was lost or its host is draining
    COMPLETE = "complete"  #: the model wrote its final answer
    FAIL = "fail"  #: an error the failure policy does not pause on, or the task cannot start
    ASK_USER = "ask_user"  #: the agent called `ask_user`
    FAILURE_PAUSE = "failure_pause"  #: an error under on_failure `ask_user`, or the spend cap
    DELEGATE = "delegate"  #: a synchronous `delegate_tasks` call waits for its children
    REQUEST_REVIEW = "request_review"  #: a call of one of the agent's `review_tools`
    REPLY = "reply"  #: `POST /tasks/{id}/message`
    CHILDREN_DONE = "children_done"  #: every awaited child is terminal (`await_completed`)
    APPROVE = "approve"  #: review decision `approve`
    REJECT = "reject"  #: review decision `reject`
    CANCEL = "cancel"  #: `POST /tasks/{id}/cancel`, or a cascade from the parent


_S = TaskStatus
_T = Trigger

#: Statuses a task never leaves (docs/spec.md, "Task status values", column Terminal).
TERMINAL_STATUSES: frozenset[TaskStatus] = frozenset({_S.COMPLETED, _S.FAILED, _S.STOPPED})

#: Every non-terminal status: the tasks that a cancel stops and a cascade walks.
ACTIVE_STATUSES: frozenset[TaskStatus] = frozenset(TaskStatus) - TERMINAL_STATUSES

_RESUME_FROM_INPUT = frozenset({_T.REPLY, _T.CHILDREN_DONE})
_RESUME_FROM_REVIEW = frozenset({_T.APPROVE, _T.REJECT})

#: Every allowed move, `(from, to)`, with the triggers that cause it. A pair not here is refused.
TRANSITIONS: Mapping[tuple[TaskStatus, TaskStatus], frozenset[Trigger]] = MappingProxyType(
    {
        (_S.PENDING, _S.RUNNING): frozenset({_T.ADMIT}),
        (_S.PENDING, _S.QUEUED): frozenset({_T.HOLD}),
        (_S.PENDING, _S.FAILED): frozenset({_T.FAIL}),
        (_S.PENDING, _S.STOPPED): frozenset({_T.CANCEL}),
        (_S.QUEUED, _S.RUNNING): frozenset({_T.ADMIT}),
        (_S.QUEUED, _S.FAILED): frozenset({_T.FAIL}),
        (_S.QUEUED, _S.STOPPED): frozenset({_T.CANCEL}),
        (_S.RUNNING, _S.WAITING_FOR_INPUT): frozenset({_T.ASK_USER, _T.FAILURE_PAUSE, _T.DELEGATE}),
        (_S.RUNNING, _S.AWAITING_REVIEW): frozenset({_T.REQUEST_REVIEW}),
        (_S.RUNNING, _S.COMPLETED): frozenset({_T.COMPLETE}),
        (_S.RUNNING, _S.FAILED): frozenset({_T.FAIL}),
        (_S.RUNNING, _S.STOPPED): frozenset({_T.CANCEL}),
        (_S.RUNNING, _S.QUEUED): frozenset({_T.REQUEUE}),
        (_S.WAITING_FOR_INPUT, _S.RUNNING): _RESUME_FROM_INPUT,
        (_S.WAITING_FOR_INPUT, _S.QUEUED): _RESUME_FROM_INPUT,
        (_S.WAITING_FOR_INPUT, _S.STOPPED): frozenset({_T.CANCEL}),
        (_S.AWAITING_REVIEW, _S.RUNNING): _RESUME_FROM_REVIEW,
        (_S.AWAITING_REVIEW, _S.QUEUED): _RESUME_FROM_REVIEW,
        (_S.AWAITING_REVIEW, _S.STOPPED): frozenset({_T.CANCEL}),
    }
)


def allowed_targets(src: TaskStatus | str) -> frozenset[TaskStatus]:
    """The statuses a task in `src` may move to; empty for a terminal status.

    Raises ValueError when `src` is not a task status.
    """
    origin = TaskStatus(src)
    return frozenset(dst for (frm, dst) in TRANSITIONS if frm is origin)


def can_transition(src: TaskStatus | str, dst: TaskStatus | str) -> bool:
    """Whether the table allows moving a task from `src` to `dst`.

    Raises ValueError when either value is not a task status: that is corrupt data, not a refusal.
    """
    return (TaskStatus(src), TaskStatus(dst)) in TRANSITIONS


def check_transition(src: TaskStatus | str, dst: TaskStatus | str) -> None:
    """Raise `IllegalTransition` unless the table allows moving a task from `src` to `dst`."""
    if not can_transition(src, dst):
        raise IllegalTransition(TaskStatus(src).value, TaskStatus(dst).value)


def transition_table_json() -> str:
    """The table as JSON `{from: [to, ...]}`, every status a key (terminal ones map to `[]`).

    Statuses appear in declaration order, so the text is stable and can be compared or cached.
    """
    table = {src.value: [dst.value for dst in TaskStatus if (src, dst) in TRANSITIONS] for src in TaskStatus}
    return json.dumps(table, separators=(",", ":"))
