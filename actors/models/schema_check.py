"""An output schema compiled before it is saved or run, and answers checked against it without
letting it stall the process (docs/contract.md section 2, "Structured output").

Valid against the meta-schema is not enough: `"pattern": "("` or a `$ref` to nowhere passes the
meta-schema and only raises once an answer is checked. So a schema is compiled when it is saved or
run: every regex (`pattern`, `patternProperties`), every format the meta-schema asserts (a `$ref`
is a URI reference) and every reference, which must resolve inside the schema itself or to a
JSON Schema meta-schema (nothing is ever fetched).

A user's regex runs in Python `re`, which can backtrack for ever (`(a+)+$` on `aaaa…!`) while
holding the GIL, so a thread with a deadline would still stall every task of a pooled host. An
answer checked against a schema that holds a regex is therefore checked in a child process that
is killed at `CHECK_SECONDS`; a schema without one runs no user regex and is checked in process.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import referencing.exceptions
from jsonschema.exceptions import best_match
from jsonschema_specifications import REGISTRY
from referencing.jsonschema import DRAFT202012

from tools.schema_bound import DATA_KEYWORDS, CheckFailed, schema_errors

#: Longest check of one answer against a schema that holds a user regex.
CHECK_SECONDS = 5.0


_META = jsonschema.Draft202012Validator(
    jsonschema.Draft202012Validator.META_SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)


class UnusableSchema(Exception):
    """An output schema that cannot check an answer (saved before schemas were compiled, or a
    regex past its time bound): no other answer would fare better, so the call is not retried."""


def _dotted(path: Any) -> str:
    return ".".join(str(part) for part in path)


def schema_problem(schema: Any) -> tuple[str, str] | None:
    """Why `schema` cannot be an output schema: the dotted path inside it ('' for the whole schema)
    and what is wrong there; None when it is a JSON Schema object (Draft 2020-12) that compiles."""
    if not isinstance(schema, dict):
        return "", "an output schema must be a JSON Schema object"
    error = best_match(_META.iter_errors(schema))
    if error is not None:
        cause = f" ({error.cause})" if error.cause is not None else ""
        path = list(error.absolute_path)
        if "propertyNames" in error.absolute_schema_path:
            path.append(error.instance)  # the bad key itself (a `patternProperties` regex)
        return _dotted(path), error.message + cause
    resource = DRAFT202012.create_resource(schema)
    base = resource.id() or ""
    return _unresolved(schema, REGISTRY.with_resource(base, resource).resolver(base_uri=base), [])


def _unresolved(node: Any, resolver: Any, path: list[Any]) -> tuple[str, str] | None:
    """The first `$ref` / `$dynamicRef` under `node` that resolves to nothing, with its path."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            if (found := _unresolved(item, resolver, [*path, index])) is not None:
                return found
        return None
    if not isinstance(node, dict):
        return None
    if path and isinstance(node.get("$id"), str):
        resolver = resolver.in_subresource(DRAFT202012.create_resource(node))
    for keyword in ("$ref", "$dynamicRef"):
        ref = node.get(keyword)
        if isinstance(ref, str):
            try:
                resolver.lookup(ref)
            except referencing.exceptions.Unresolvable:
                return _dotted([*path, keyword]), f"{ref!r} resolves to nothing in the schema"
    for key, value in node.items():
        if key not in DATA_KEYWORDS and (found := _unresolved(value, resolver, [*path, key])) is not None:
            return found
    return None


def _compiled(schema: dict[str, Any]) -> None:
    problem = schema_problem(schema)
    if problem is not None:
        # Only a schema saved before schemas were compiled can get here.
        raise UnusableSchema(f"the output schema does not compile ({problem[0] or '(root)'}: {problem[1]})")


async def answer_errors(
    schema: dict[str, Any], instance: Any, *, seconds: float = CHECK_SECONDS
) -> list[str]:
    """Why `instance` does not match `schema`, as `<path in the answer>: <what is wrong>` (empty
    when it does); checked in a child process killed after `seconds` when `schema` holds a user
    regex (`tools.schema_bound`). UnusableSchema when the schema does not compile or the check ran
    past its bound."""
    _compiled(schema)
    try:
        return await schema_errors(
            schema,
            instance,
            seconds=seconds,
            what="the answer against the output schema",
            schema_name="the output schema",
        )
    except CheckFailed as exc:
        raise UnusableSchema(str(exc)) from None
