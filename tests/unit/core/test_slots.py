"""The key layout keeps a workspace in one Redis Cluster hash slot and the global facts in another.

Every key builder of `core.infra.keys` (and the modules that build their own kinds with `keys.ws` and
`keys.glob`) is called for many workspace ids: a workspace key lands in its workspace's slot, a
global key in the global slot. No module spells an `ag:` key by hand, so there is no key these
checks miss. The scripts' KEYS are checked at run time by the store tests on the local cluster,
where redis-py refuses a cross-slot EVAL or MULTI before sending it.
"""

from __future__ import annotations

import ast
import inspect
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from redis.crc import key_slot

from core.infra import keys, slots
from core.stores import configs, files
from core.tasks import lua
from extraction.jobs import store as job_store

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("core", "actors", "serve", "extraction", "tools")
WORKSPACES = [str(uuid.uuid4()) for _ in range(50)] + ["ws-1", "a:b", "Ω"]
#: Builders that take a workspace id but name a global fact (the workspace's own record, found by id).
GLOBAL_OF_A_WORKSPACE = {"keys.workspace"}


def _slot_of(tag: str) -> int:
    return int(key_slot(("{" + tag + "}").encode()))


def _builders() -> list[tuple[str, Callable[..., str]]]:
    """Every function that returns a key: those of core.infra.keys and the kinds other modules add."""
    found = [
        (f"keys.{name}", fn)
        for name, fn in inspect.getmembers(keys, inspect.isfunction)
        if fn.__module__ == keys.__name__ and name not in {"ws", "glob"}
    ]
    found += [
        ("files.file_key", files.file_key),
        ("files.files_index", files.files_index),
        ("files.tagged_files_index", files.tagged_files_index),
        ("configs.config_key", configs.config_key),
        ("configs.configs_index", configs.configs_index),
        ("jobs.job_key", job_store.job_key),
        ("jobs.result_key", job_store.result_key),
        ("jobs.batch_key", job_store.batch_key),
    ]
    return found


def _call(fn: Callable[..., str], workspace: str) -> str:
    params = list(inspect.signature(fn).parameters)
    args = [workspace if p == "workspace_id" else f"{p}-{uuid.uuid4().hex[:6]}" for p in params]
    return fn(*args)


@pytest.mark.parametrize(("name", "builder"), _builders(), ids=[n for n, _ in _builders()])
def test_each_key_is_in_its_workspace_slot_or_the_global_one(name: str, builder: Callable[..., str]) -> None:
    per_workspace = (
        "workspace_id" in inspect.signature(builder).parameters and name not in GLOBAL_OF_A_WORKSPACE
    )
    for workspace in WORKSPACES:
        key = _call(builder, workspace)
        assert key.startswith("ag:{"), (name, key)
        want = _slot_of(workspace) if per_workspace else slots.GLOBAL_SLOT
        assert slots.slot(key) == want, (name, workspace, key)


def test_a_workspace_named_global_is_not_possible_to_confuse() -> None:
    # Workspace ids are UUIDs (core.stores.apikeys): none can be the global tag.
    assert not re.fullmatch(r"[0-9a-f-]{36}", keys.GLOBAL)


def test_no_module_spells_a_key_by_hand() -> None:
    """`ag:` string literals outside core.infra.keys are pub/sub channels only (never keys of data)."""
    channels = {keys.TASK_EVENTS_CHANNEL, keys.KEY_REVOCATIONS_CHANNEL, "ag:drain"}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path == ROOT / "core" / "keys.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and node.value.startswith("ag:")
                ):
                    assert node.value in channels, (path, node.value)


def _key_refs(script: str) -> set[int]:
    return {int(n) for n in re.findall(r"KEYS\[(\d+)\]", script)}


def test_the_global_keys_of_the_task_scripts_are_written_on_one_server_only() -> None:
    """On a cluster their global KEYS are the task's own key: only the one-server (`inline`) branch
    and `settle` (which journals them on a cluster) may name them."""
    for script, global_keys in ((lua.TRANSITION, {3, 5, 6}), (lua.COMPLETE, {8, 9, 10}), (lua.ADMIT, {5})):
        assert global_keys <= _key_refs(script)
        for line in script.splitlines():
            if _key_refs(line) & global_keys:
                assert line.lstrip().startswith(("if inline", "local entry = settle(")), line


def test_no_lua_is_copied_between_task_scripts() -> None:
    """One body per step for one server and a cluster alike: no run of four lines of one task
    script appears in another, besides the shared helpers every script starts with."""
    helpers = {line for part in (lua._APPEND, lua._EFFECTS) for line in part.splitlines()}
    scripts = {
        name: [line.strip() for line in value.splitlines() if line.strip() and line not in helpers]
        for name, value in vars(lua).items()
        if name.isupper() and isinstance(value, str) and "redis.call" in value
    }
    assert {"TRANSITION", "ADMIT", "COMPLETE", "RECORD", "APPLY_JOURNAL"} <= set(scripts)
    seen: dict[tuple[str, ...], str] = {}
    for name, lines in scripts.items():
        for i in range(len(lines) - 3):
            window = tuple(lines[i : i + 4])
            assert seen.setdefault(window, name) == name, f"{name} copies {seen[window]}: {window}"
