"""What a runner keeps instead of reading back: a task after its own record, and the version cache;
and the rule that the scripts of one step touch only the keys they are given."""

from __future__ import annotations

import re

from core import tasks
from core.infra.models import AgentVersion
from core.stores import agents
from core.tasks import lua


def _task(**raw: str) -> tasks.Task:
    spec = tasks.new_spec(
        {
            "task_id": "t1",
            "workspace_id": "w1",
            "agent_id": "a1",
            "agent_group_id": "g1",
            "version_number": 1,
            "agent_name": "A",
        }
    )
    return tasks.parse_task({"spec": spec.model_dump_json(), "status": "running", **raw})


def test_with_increments_adds_to_counters_and_sets_fields() -> None:
    task = _task(input_tokens="5", cost_usd="0.5", model_calls="1")
    after = tasks.with_increments(
        task,
        {"input_tokens": 3, "output_tokens": 2, "cost_usd": 0.25, "model_calls": 1, "tree_cost_usd": 0.25},
        {"structured": '{"a":1}'},
    )
    assert (after.input_tokens, after.output_tokens, after.cost_usd, after.model_calls) == (8, 2, 0.75, 2)
    assert after.has_structured and after.structured == {"a": 1}
    assert float(after.raw["tree_cost_usd"]) == 0.25
    assert task.input_tokens == 5  # the task as read is left as it was


def test_version_cache_keeps_a_bounded_number_by_workspace_and_id() -> None:
    version = AgentVersion(
        id="v-cache-1",
        agent_group_id="g1",
        version_number=1,
        status="published",
        config={"k": 1},
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-01T00:00:00Z",
    )
    agents.remember_version("w-cache", version)
    assert agents.cached_version("w-cache", "v-cache-1") is version
    assert agents.cached_version("another", "v-cache-1") is None
    for i in range(agents.VERSION_CACHE_SIZE):
        agents.remember_version("w-fill", version.model_copy(update={"id": f"fill-{i}"}))
    assert agents.cached_version("w-cache", "v-cache-1") is None


def test_new_scripts_name_no_key_of_their_own() -> None:
    # On a Redis Cluster a script may touch only the keys it is given (one hash slot per script).
    for script in (lua.COMPLETE, lua.CREATE_ADMIT):
        assert "ag:" not in script
        assert not re.search(r"redis\.call\('\w+', '", script)
