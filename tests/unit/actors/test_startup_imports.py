"""A task actor starts like a bare Ray actor (issue 29): what Ray imports to create it, and what its
first step loads, leave the heavy parts (field reading, the job service, model SDKs, practice
tools, delegation) to their first use. Checked in a fresh interpreter, by what is in sys.modules
afterwards, not by timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

#: Loaded on first use by a task that needs them, never by every task.
ON_FIRST_USE = (
    "extraction.fields",
    "extraction.jobs.service",
    "extraction.jobs.coordinator",
    "fsspec",
    "rapidfuzz",
    "openai",
    "anthropic",
    "genai_prices",
)
#: Also absent from the actor's module itself: a spare or a task's own actor loads these on its
#: first `run` (or warm-up), not when Ray creates it.
ON_FIRST_RUN = (
    "actors.runner",
    "tools.builtin",
    "tools.practice",
    "tools.delegate",
    "httpx",
    "cryptography",
    "redis",
)


def loaded_after(statement: str, names: tuple[str, ...]) -> list[str]:
    code = (
        f"import json, sys; {statement}; print(json.dumps([n for n in {list(names)!r} if n in sys.modules]))"
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_task_actor_module_imports_only_ray_and_its_own_small_parts() -> None:
    assert loaded_after("import ray; import actors.hosts", ON_FIRST_USE + ON_FIRST_RUN) == []


def test_the_first_step_loads_no_extraction_and_no_model_sdk() -> None:
    statement = "import ray; import actors.hosts; import actors.runner; import tools.builtin"
    assert loaded_after(statement, ON_FIRST_USE) == []
