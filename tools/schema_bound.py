"""A JSON Schema check that a user's regex cannot stall: schemas come from users (an agent's output
schema) and from remote servers (an MCP tool's parameters), and a `pattern` runs in Python `re`,
which can backtrack for ever (`(a+)+$` on `aaaa…!`) while holding the GIL, so a thread with a
deadline would still stall every task of a pooled host. A schema that holds a regex is checked in
a child process (`tools.schema_child`) killed at its bound; one without runs no user regex and is
checked in process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from tools import schema_child
from tools.schema_child import ENDLESS, validation_errors

#: Keywords whose values are data, not subschemas: a `$ref` or `pattern` inside is not one.
DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})


class CheckFailed(Exception):
    """The check itself could not finish: past its time bound, or a schema that loops on itself."""


def holds_regex(node: Any) -> bool:
    """Whether a user regex (`pattern`, `patternProperties`) is anywhere in the schema."""
    if isinstance(node, list):
        return any(holds_regex(item) for item in node)
    if not isinstance(node, dict):
        return False
    if isinstance(node.get("pattern"), str) or isinstance(node.get("patternProperties"), dict):
        return True
    return any(holds_regex(value) for key, value in node.items() if key not in DATA_KEYWORDS)


async def schema_errors(
    schema: dict[str, Any], instance: Any, *, seconds: float, what: str, schema_name: str
) -> list[str]:
    """Why `instance` does not match `schema`, as `<path>: <what is wrong>` (empty when it does); in
    a child process killed after `seconds` when the schema holds a regex. The `CheckFailed` message
    names the check (`what`: "the answer against the output schema") and the schema
    (`schema_name`: "the output schema")."""
    if not holds_regex(schema):
        errors = validation_errors(schema, instance)
        if errors is None:
            raise CheckFailed(ENDLESS.replace("the output schema", schema_name))
        return errors
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        str(Path(schema_child.__file__)),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    job = json.dumps({"schema": schema, "instance": instance}).encode()
    try:
        out, _ = await asyncio.wait_for(child.communicate(job), seconds)
    except TimeoutError:
        raise CheckFailed(
            f"checking {what} took over {seconds:g} s (a `pattern` that backtracks without end?)"
        ) from None
    finally:
        if child.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                child.kill()
            await child.wait()
    try:
        verdict = json.loads(out)
    except ValueError:
        raise CheckFailed(f"checking {what} stopped without an answer") from None
    if "unusable" in verdict:
        raise CheckFailed(str(verdict["unusable"]).replace("the output schema", schema_name))
    return [str(error) for error in verdict["errors"]]
