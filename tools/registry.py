"""The one registry of native tools: what each tool is, what the model sees of it, how it is called."""

from __future__ import annotations

import copy
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema_specifications import REGISTRY as SPECIFICATIONS
from referencing.exceptions import Unresolvable

from tools.context import ToolContext
from tools.errors import ToolArgumentError, ToolError, UnknownToolError
from tools.schema_bound import CheckFailed, holds_regex, schema_errors

#: A tool's name, as chat-completions function names allow it.
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

#: Argument problems reported to the model per call; the rest add nothing it can act on first.
MAX_REPORTED_ARGUMENT_ERRORS = 5

#: Longest check of a model's arguments against a parameters schema that holds a regex.
ARGUMENT_CHECK_SECONDS = 5.0

#: Longest text of one argument problem; a value quoted in it may be large.
MAX_ARGUMENT_ERROR_CHARS = 200

ToolHandler = Callable[[dict[str, Any], ToolContext], Awaitable[Any]]
ReviewPreview = Callable[[dict[str, Any], ToolContext], Awaitable[dict[str, Any]]]
ReviewBinding = Callable[[dict[str, Any], ToolContext], Awaitable[dict[str, Any]]]
#: Adjusts a tool's model-facing schema for one task (a roster in the description, say).
SchemaCustomizer = Callable[[dict[str, Any], ToolContext], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ToolSpec:
    """A native tool.

    `parameters` is the JSON Schema of the tool's arguments; properties named in `injected` are
    filled from the workspace into `ToolContext.injected` and removed from what the model sees.
    `handler(arguments, ctx)` runs the call with the model's (validated) arguments; it returns the
    tool's output, raises `ToolError` for a failure the model should see, or a `ToolSignal`.
    `mutating` marks tools that change something outside the task. `display_name` defaults to the
    name in title case. `review_preview(arguments, ctx)`, when set, tells a reviewer what an approved
    call would do (for example the exact request it would send); the runtime shows it with a call
    paused by the agent's `review_tools`. It runs nothing outside the task and raises `ToolError`
    when the arguments cannot be previewed. `review_binding(arguments, ctx)`, when set, names what the
    previewed call would reach (a connector, its environment and URL): an approval is refused while
    it differs from what the preview saw, and the approved call runs only against it.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    handler: ToolHandler
    injected: frozenset[str] = frozenset()
    mutating: bool = False
    display_name: str = ""
    customize: SchemaCustomizer | None = None
    review_preview: ReviewPreview | None = None
    review_binding: ReviewBinding | None = None

    def __post_init__(self) -> None:
        if not TOOL_NAME_PATTERN.fullmatch(self.name):
            raise ValueError(f"tool name {self.name!r} must match {TOOL_NAME_PATTERN.pattern}")
        if self.parameters.get("type") != "object":
            raise ValueError(f"tool {self.name}: parameters must be a JSON Schema of type object")
        try:
            jsonschema.Draft202012Validator.check_schema(self.parameters)
        except SchemaError as exc:
            raise ValueError(
                f"tool {self.name}: parameters are not a valid JSON Schema: {exc.message}"
            ) from exc
        if not self.display_name:
            object.__setattr__(self, "display_name", self.name.replace("_", " ").title())

    def model_schema(self) -> dict[str, Any]:
        """`{name, description, parameters}` as the model sees it: injected arguments left out."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": _without(self.parameters, self.injected),
        }


class ToolRegistry:
    """Tools by name. Registration is done once at start-up; lookups are read-only afterwards."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._validators: dict[str, jsonschema.Draft202012Validator] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ToolSpec) -> None:
        """Add a tool; a second tool with the same name is a ValueError."""
        if spec.name in self._specs:
            raise ValueError(f"tool {spec.name} is already registered")
        self._specs[spec.name] = spec
        # Only the schema itself and the JSON Schema meta-schemas: jsonschema's default registry
        # fetches any other `$ref` URL (an MCP server's schema could name an internal address).
        self._validators[spec.name] = jsonschema.Draft202012Validator(
            spec.model_schema()["parameters"], registry=SPECIFICATIONS
        )

    def with_tools(self, specs: Iterable[ToolSpec]) -> ToolRegistry:
        """A new registry holding these tools and `specs` (one task's remote MCP tools, say)."""
        return ToolRegistry([*self._specs.values(), *specs])

    def get(self, name: str) -> ToolSpec:
        """The tool called `name`; `UnknownToolError` (which the model can be shown) when none is."""
        try:
            return self._specs[name]
        except KeyError:
            known = ", ".join(sorted(self._specs)) or "none"
            raise UnknownToolError(f"there is no tool named {name!r}; the tools are: {known}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def model_schemas(self, names: Iterable[str]) -> list[dict[str, Any]]:
        """The model-facing schemas of `names`, in that order; an unknown name is UnknownToolError."""
        return [self.get(name).model_schema() for name in names]

    async def model_schemas_for(self, names: Iterable[str], ctx: ToolContext) -> list[dict[str, Any]]:
        """`model_schemas`, with each tool's `customize` applied for the task in `ctx`."""
        schemas = []
        for name in names:
            spec = self.get(name)
            schema = spec.model_schema()
            schemas.append(await spec.customize(schema, ctx) if spec.customize else schema)
        return schemas

    def validate(self, name: str, arguments: Any) -> None:
        """Check the model's arguments for tool `name` against its model-facing schema.

        Raises `ToolArgumentError` whose message lists what is wrong (at most
        `MAX_REPORTED_ARGUMENT_ERRORS` problems, each with its JSON path), including an attempt to
        supply an injected argument, and `UnknownToolError` for an unknown tool.
        """
        spec = self.get(name)
        if not isinstance(arguments, dict):
            raise ToolArgumentError(f"arguments for {name} must be a JSON object")
        problems = _injected(spec, arguments)
        try:
            errors = sorted(self._validators[name].iter_errors(arguments), key=lambda error: error.json_path)
        except Unresolvable as exc:
            raise ToolError(
                f"the parameters schema of {name} refers to {exc.ref!r}, which it does not hold"
            ) from None
        _refuse(name, problems + [f"{error.json_path}: {_shorten(error.message)}" for error in errors])

    async def preview(self, name: str, arguments: Any, ctx: ToolContext) -> dict[str, Any] | None:
        """What a reviewer is shown of this call: the tool's `review_preview`, or None when it has none.

        The arguments are validated first, so the preview sees what the handler would; raises
        `ToolError` (including `ToolArgumentError`) when the call cannot be previewed.
        """
        spec = self.get(name)
        if spec.review_preview is None:
            return None
        await self.check(name, arguments)
        return await spec.review_preview(arguments, ctx)

    async def binding(self, name: str, arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any] | None:
        """What a reviewed call of `name` is bound to now (`review_binding`), or None when nothing is."""
        spec = self.get(name)
        return None if spec.review_binding is None else await spec.review_binding(arguments, ctx)

    async def check(self, name: str, arguments: Any) -> None:
        """`validate`, with a parameters schema that holds a regex (a remote MCP server's, say)
        checked in a child process under `ARGUMENT_CHECK_SECONDS` (`tools.schema_bound`), so a
        pattern that backtracks for ever cannot stall the host running this task beside others."""
        schema = self.get(name).model_schema()["parameters"]
        if not holds_regex(schema) or not isinstance(arguments, dict):
            self.validate(name, arguments)
            return
        try:
            errors = await schema_errors(
                schema,
                arguments,
                seconds=ARGUMENT_CHECK_SECONDS,
                what=f"the arguments against the parameters schema of {name}",
                schema_name=f"the parameters schema of {name}",
            )
        except CheckFailed as exc:
            raise ToolError(str(exc)) from None
        _refuse(name, _injected(self.get(name), arguments) + [_shorten(error) for error in errors])

    async def call(self, name: str, arguments: Any, ctx: ToolContext) -> Any:
        """Check the arguments, then run the tool's handler and return its output."""
        await self.check(name, arguments)
        return await self.get(name).handler(arguments, ctx)


def _without(parameters: Mapping[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    schema = copy.deepcopy(dict(parameters))
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema["properties"] = {key: value for key, value in properties.items() if key not in hidden}
    required = schema.get("required")
    if isinstance(required, list):
        schema["required"] = [key for key in required if key not in hidden]
    return schema


def _injected(spec: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    return [
        f"$.{key}: this argument is set by the workspace and cannot be supplied"
        for key in sorted(spec.injected & arguments.keys())
    ]


def _refuse(name: str, problems: list[str]) -> None:
    """ToolArgumentError listing the first problems, when there are any."""
    if not problems:
        return
    shown = "; ".join(problems[:MAX_REPORTED_ARGUMENT_ERRORS])
    more = len(problems) - MAX_REPORTED_ARGUMENT_ERRORS
    if more > 0:
        shown += f"; and {more} more"
    raise ToolArgumentError(
        f"invalid arguments for {name}: {shown}. Call {name} again with arguments that match its parameters schema."
    )


def _shorten(message: str) -> str:
    if len(message) <= MAX_ARGUMENT_ERROR_CHARS:
        return message
    return message[: MAX_ARGUMENT_ERROR_CHARS - 3] + "..."
