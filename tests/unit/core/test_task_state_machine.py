import itertools
import json

import pytest

from core.infra.errors import AgentryError, IllegalTransition
from core.tasks.state_machine import (
    ACTIVE_STATUSES,
    TERMINAL_STATUSES,
    TRANSITIONS,
    TaskStatus,
    Trigger,
    allowed_targets,
    can_transition,
    check_transition,
    transition_table_json,
)

pytestmark = pytest.mark.unit

# Written out independently of the module so that a change to the table has to change this too.
EXPECTED = {
    "pending": {"running", "queued", "stopped", "failed"},
    "queued": {"running", "stopped", "failed"},
    "running": {"waiting_for_input", "awaiting_review", "completed", "failed", "stopped", "queued"},
    "waiting_for_input": {"running", "stopped", "queued"},
    "awaiting_review": {"running", "stopped", "queued"},
    "completed": set(),
    "failed": set(),
    "stopped": set(),
}

ALL_PAIRS = list(itertools.product(list(TaskStatus), repeat=2))


def test_statuses_are_the_eight_of_the_spec() -> None:
    assert [s.value for s in TaskStatus] == list(EXPECTED)
    assert TaskStatus("running") is TaskStatus.RUNNING
    assert isinstance(TaskStatus.RUNNING, str) and f"{TaskStatus.RUNNING}" == "running"


def test_terminal_and_active_partition_the_statuses() -> None:
    assert {s.value for s in TERMINAL_STATUSES} == {"completed", "failed", "stopped"}
    assert frozenset(TaskStatus) == ACTIVE_STATUSES | TERMINAL_STATUSES
    assert not ACTIVE_STATUSES & TERMINAL_STATUSES


@pytest.mark.parametrize(("src", "dst"), ALL_PAIRS, ids=[f"{a}->{b}" for a, b in ALL_PAIRS])
def test_every_pair_follows_the_table(src: TaskStatus, dst: TaskStatus) -> None:
    allowed = dst.value in EXPECTED[src.value]
    assert can_transition(src, dst) is allowed
    assert can_transition(src.value, dst.value) is allowed
    if allowed:
        check_transition(src, dst)
    else:
        with pytest.raises(IllegalTransition) as info:
            check_transition(src, dst)
        assert (info.value.src, info.value.dst) == (src.value, dst.value)


def test_terminal_statuses_are_sinks() -> None:
    for status in TERMINAL_STATUSES:
        assert allowed_targets(status) == frozenset()
        for dst in TaskStatus:
            assert not can_transition(status, dst)


def test_no_status_moves_to_itself() -> None:
    assert all(src != dst for src, dst in TRANSITIONS)


def test_every_active_status_can_be_cancelled_to_stopped() -> None:
    for status in ACTIVE_STATUSES:
        assert Trigger.CANCEL in TRANSITIONS[(status, TaskStatus.STOPPED)]


def test_every_transition_names_a_trigger() -> None:
    assert all(triggers for triggers in TRANSITIONS.values())
    assert TRANSITIONS[(TaskStatus.RUNNING, TaskStatus.WAITING_FOR_INPUT)] == {
        Trigger.ASK_USER,
        Trigger.FAILURE_PAUSE,
        Trigger.DELEGATE,
    }
    assert TRANSITIONS[(TaskStatus.AWAITING_REVIEW, TaskStatus.RUNNING)] == {Trigger.APPROVE, Trigger.REJECT}


def test_allowed_targets_matches_table() -> None:
    for src in TaskStatus:
        assert {s.value for s in allowed_targets(src)} == EXPECTED[src.value]


def test_json_table_is_the_same_table() -> None:
    decoded = json.loads(transition_table_json())
    assert list(decoded) == list(EXPECTED)
    assert {k: set(v) for k, v in decoded.items()} == EXPECTED
    assert transition_table_json() == transition_table_json()


def test_illegal_transition_is_a_conflict_error() -> None:
    with pytest.raises(IllegalTransition) as info:
        check_transition("completed", "running")
    assert isinstance(info.value, AgentryError)
    assert info.value.status_code == 409
    assert "completed" in info.value.message and "running" in info.value.message


def test_unknown_status_is_a_value_error_not_a_refusal() -> None:
    with pytest.raises(ValueError):
        can_transition("running", "bogus")
    with pytest.raises(ValueError):
        check_transition("bogus", "running")
    with pytest.raises(ValueError):
        allowed_targets("bogus")
