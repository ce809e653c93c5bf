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
    #: A review decision on a call (the call id follows).
    REVIEW = "review"
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


def reply_marker(feed_seq: str) -> str:
    """The marker of a reply to the pause the task's feed ends at: a second reply finds it."""
    return f"reply:{feed_seq}"
