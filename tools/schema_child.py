"""Checking one instance against a JSON Schema: in the process that asks (a schema with no user
regex), or as a script in a child process it can kill (`tools.schema_bound`): a task's answer
against its output schema, a model's arguments against a remote tool's parameters schema.

Run as a script it reads `{"schema", "instance"}` on stdin and writes `{"errors"}` or
`{"unusable"}` on stdout. It imports nothing of ours, so the child needs only the virtualenv.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import jsonschema
from jsonschema_specifications import REGISTRY

#: Validation errors reported per answer (quoted to the model in the repair turn).
MAX_ERRORS = 5

#: Why a schema whose `$ref`s loop without stepping into the answer cannot check one.
ENDLESS = "the output schema refers to itself without end"


def validation_errors(schema: dict[str, Any], instance: Any) -> list[str] | None:
    """Why `instance` does not match `schema`, as `<path in the answer>: <what is wrong>` (empty
    when it does); None when the schema loops on itself. References resolve only to the schema
    itself and the JSON Schema meta-schemas: nothing is ever fetched."""
    validator = jsonschema.Draft202012Validator(schema, registry=REGISTRY)
    try:
        found = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    except RecursionError:
        return None
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in found[:MAX_ERRORS]
    ]


def main() -> None:
    job = json.load(sys.stdin)
    errors = validation_errors(job["schema"], job["instance"])
    json.dump({"unusable": ENDLESS} if errors is None else {"errors": errors}, sys.stdout)


if __name__ == "__main__":
    main()
