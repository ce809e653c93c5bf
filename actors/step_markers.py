"""The markers a task's step pieces are recorded under, in its steps hash.

Every piece of a decision step is recorded once under its marker (`s<step>:model`,
`s<step>:tool:<call id>`, ...): a runner started again finds what is recorded and does not redo it,
and a reply, a review or a child group's end writes the marker of the call it answers.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Piece(StrEnum):
    #: The step's model call (its response).
    MODEL = "model"
    #: A failed model call, one per attempt (the task's model call count follows).
    MODEL_ERROR = "model-error"
    #: One tool call's result (the call id follows).
    TOOL = "tool"
    #: A round of retryable tool failures (the task's retries used follows).
    TOOL_FAILURE = "tool-failure"
    #: A review decision on a call (the call id follows; from its second approval on, the number).
    REVIEW = "review"
    #: An approval of a reviewed call spent: written before the approved call is sent, so one
    #: approval sends it at most once (the call id and the approval's number follow).
    ATTEMPT = "attempt"
    #: How a sent reviewed call failed without a result (the call id and approval number follow).
    ATTEMPT_FAILED = "attempt-failed"
    #: The step is over; the task moved to the next one.
    DONE = "done"


def step_marker(step: Any, piece: Piece, detail: Any = None) -> str:
    """The marker of `piece` of step `step`, with its call id or attempt number when it has one."""
    marker = f"s{step}:{piece.value}"
    return marker if detail is None else f"{marker}:{detail}"


def model_step(marker: str) -> int | None:
    """The step a model call marker belongs to; None for any other marker."""
    step, _, piece = marker.partition(":")
    if piece != Piece.MODEL.value or not step.startswith("s") or not step[1:].isdigit():
        return None
    return int(step[1:])


def review_marker(step: Any, call_id: Any, approval: int) -> str:
    """The marker of the review that gives (or refuses) a call its `approval`-th approval (1-based);
    the first keeps the plain `s<step>:review:<call id>`."""
    return step_marker(step, Piece.REVIEW, call_id if approval <= 1 else f"{call_id}:{approval}")


def attempt_marker(step: Any, call_id: Any, approval: int, *, failed: bool = False) -> str:
    """The marker of the send that spent a reviewed call's `approval`-th approval (or of its failure)."""
    return step_marker(step, Piece.ATTEMPT_FAILED if failed else Piece.ATTEMPT, f"{call_id}:{approval}")


def spent_approvals(steps: dict[str, Any], step: Any, call_id: Any) -> int:
    """How many approvals of reviewed call `call_id` were spent on a send (each sends it once)."""
    spent = 0
    while attempt_marker(step, call_id, spent + 1) in steps:
        spent += 1
    return spent


def tool_failure_round(steps: dict[str, Any], step: Any) -> int:
    """The number of the next round of retryable tool failures of `step` (0-based): the rounds are
    counted, not keyed by the retry budget, which a reply resets."""
    rounds = 0
    while step_marker(step, Piece.TOOL_FAILURE, rounds) in steps:
        rounds += 1
    return rounds


def reply_marker(feed_seq: str) -> str:
    """The marker of a reply to the pause the task's feed ends at: a second reply finds it."""
    return f"reply:{feed_seq}"
