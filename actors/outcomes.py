"""What a runner's step and each of its tool calls come to."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class StepOutcome(Enum):
    #: The step (or a model call attempt) is over: the runner goes on.
    CONTINUE = "continue"
    #: The task left `running` (paused, ended, stopped meanwhile): the runner stops.
    STOP = "stop"
    #: A tool call failed with retries left: run the same step again (its unrecorded calls rerun).
    RETRY = "retry"


@dataclass(frozen=True)
class Recorded:
    """The call's result (its output, or an error the model is shown) is recorded in the feed."""


@dataclass(frozen=True)
class Failed:
    """The call failed and may succeed if tried again; nothing was recorded."""

    error: str


@dataclass(frozen=True)
class AskUser:
    """The tool asks the user: the task pauses in `waiting_for_input` with this question."""

    question: str


@dataclass(frozen=True)
class Delegated:
    """The tool started children: the task pauses until await group `group_id` completes."""

    group_id: str


@dataclass(frozen=True)
class Stopped:
    """The result was not recorded: the task left `running` meanwhile."""


CallOutcome = Recorded | Failed | AskUser | Delegated | Stopped
