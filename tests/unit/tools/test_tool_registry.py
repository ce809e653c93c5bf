import asyncio
from typing import Any

import pytest

from tools.ask_user import ASK_USER
from tools.context import ToolContext
from tools.errors import ToolArgumentError, ToolError, UnknownToolError
from tools.registry import MAX_REPORTED_ARGUMENT_ERRORS, ToolRegistry, ToolSpec
from tools.signals import PauseForInput, ToolSignal

pytestmark = pytest.mark.unit

CTX = ToolContext(workspace_id="w", task_id="t", step_id="s", call_id="c", injected={"access_token": "tok"})

SAVE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "account_id": {"type": "string"},
        "dob": {"type": "string"},
        "count": {"type": "integer", "minimum": 1},
        "access_token": {"type": "string"},
        "client_secret": {"type": "string"},
    },
    "required": ["account_id", "access_token", "client_secret"],
    "additionalProperties": False,
}


async def echo(arguments: dict[str, Any], ctx: ToolContext) -> Any:
    return {"arguments": arguments, "token": ctx.injected.get("access_token")}


def save_spec() -> ToolSpec:
    return ToolSpec(
        name="practice_save_patient",
        description="Save a patient.",
        parameters=SAVE_PARAMETERS,
        handler=echo,
        injected=frozenset({"access_token", "client_secret"}),
        mutating=True,
    )


def registry() -> ToolRegistry:
    return ToolRegistry([ASK_USER, save_spec()])


def test_model_schema_hides_injected_arguments() -> None:
    (schema,) = registry().model_schemas(["practice_save_patient"])
    assert schema["name"] == "practice_save_patient"
    assert schema["description"] == "Save a patient."
    assert set(schema["parameters"]["properties"]) == {"account_id", "dob", "count"}
    assert schema["parameters"]["required"] == ["account_id"]
    # The spec's own schema is left whole: the runtime still knows every argument.
    assert "access_token" in SAVE_PARAMETERS["properties"]
    assert "access_token" in SAVE_PARAMETERS["required"]


def test_model_schemas_keep_the_order_asked_and_refuse_unknown_names() -> None:
    tools = registry()
    names = [s["name"] for s in tools.model_schemas(["practice_save_patient", "ask_user"])]
    assert names == ["practice_save_patient", "ask_user"]
    with pytest.raises(UnknownToolError):
        tools.model_schemas(["ask_user", "nope"])


def test_model_schema_is_a_copy() -> None:
    tools = registry()
    tools.model_schemas(["ask_user"])[0]["parameters"]["properties"].clear()
    assert "question" in tools.model_schemas(["ask_user"])[0]["parameters"]["properties"]


def test_valid_arguments_pass() -> None:
    registry().validate("practice_save_patient", {"account_id": "a1", "count": 2})


@pytest.mark.parametrize(
    ("arguments", "fragments"),
    [
        ({}, ["$: 'account_id' is a required property"]),
        ({"account_id": 7}, ["$.account_id: 7 is not of type 'string'"]),
        ({"account_id": "a", "count": 0}, ["$.count: 0 is less than the minimum of 1"]),
        ({"account_id": "a", "extra": 1}, ["'extra' was unexpected"]),
        (
            {"account_id": "a", "access_token": "forged"},
            ["$.access_token: this argument is set by the workspace and cannot be supplied"],
        ),
        ("not an object", ["must be a JSON object"]),
    ],
)
def test_invalid_arguments_give_a_message_the_model_can_act_on(arguments: Any, fragments: list[str]) -> None:
    with pytest.raises(ToolArgumentError) as info:
        registry().validate("practice_save_patient", arguments)
    message = info.value.message
    assert message.startswith("invalid arguments for practice_save_patient") or "JSON object" in message
    for fragment in fragments:
        assert fragment in message
    assert isinstance(info.value, ToolError)
    assert info.value.retryable is False


def test_many_problems_are_capped_and_counted() -> None:
    properties = {f"p{i}": {"type": "integer"} for i in range(8)}
    spec = ToolSpec("wide", "w", {"type": "object", "properties": properties}, echo)
    with pytest.raises(ToolArgumentError) as info:
        ToolRegistry([spec]).validate("wide", {f"p{i}": "x" for i in range(8)})
    assert info.value.message.count("is not of type") == MAX_REPORTED_ARGUMENT_ERRORS
    assert f"and {8 - MAX_REPORTED_ARGUMENT_ERRORS} more" in info.value.message


def test_long_values_are_shortened_in_messages() -> None:
    with pytest.raises(ToolArgumentError) as info:
        registry().validate("practice_save_patient", {"account_id": ["x" * 5000]})
    assert len(info.value.message) < 600


def test_unknown_tool_is_a_tool_error_naming_the_tools() -> None:
    with pytest.raises(UnknownToolError) as info:
        registry().validate("delete_everything", {})
    assert "delete_everything" in info.value.message and "ask_user" in info.value.message
    with pytest.raises(UnknownToolError):
        registry().get("delete_everything")


def test_registration_rules() -> None:
    tools = registry()
    assert "ask_user" in tools and "nope" not in tools
    assert list(tools) == ["ask_user", "practice_save_patient"]
    with pytest.raises(ValueError, match="already registered"):
        tools.register(ASK_USER)
    with pytest.raises(ValueError, match="must match"):
        ToolSpec("bad name", "d", {"type": "object"}, echo)
    with pytest.raises(ValueError, match="type object"):
        ToolSpec("t", "d", {"type": "string"}, echo)
    with pytest.raises(ValueError, match="not a valid JSON Schema"):
        ToolSpec("t", "d", {"type": "object", "properties": {"a": {"type": "nonsense"}}}, echo)


def test_spec_fields() -> None:
    spec = save_spec()
    assert spec.display_name == "Practice Save Patient"
    assert spec.mutating is True
    assert ASK_USER.display_name == "Ask User"
    assert ASK_USER.mutating is False
    assert ASK_USER.injected == frozenset()


async def test_call_validates_then_runs_the_handler_with_the_context() -> None:
    tools = registry()
    output = await tools.call("practice_save_patient", {"account_id": "a1"}, CTX)
    assert output == {"arguments": {"account_id": "a1"}, "token": "tok"}
    with pytest.raises(ToolArgumentError):
        await tools.call("practice_save_patient", {"account_id": 1}, CTX)


async def test_ask_user_pauses_with_the_question() -> None:
    with pytest.raises(PauseForInput) as info:
        await registry().call("ask_user", {"question": "  Which account?  "}, CTX)
    assert info.value.question == "Which account?"


@pytest.mark.parametrize("arguments", [{}, {"question": ""}, {"question": "   "}, {"question": "q", "x": 1}])
def test_ask_user_needs_a_real_question(arguments: dict[str, Any]) -> None:
    with pytest.raises(ToolArgumentError):
        registry().validate("ask_user", arguments)


async def test_pause_signals_are_not_swallowed_by_except_exception() -> None:
    async def careless_tool(arguments: dict[str, Any], ctx: ToolContext) -> Any:
        try:
            return await ASK_USER.handler({"question": "really?"}, ctx)
        except Exception:
            return "swallowed"

    spec = ToolSpec("careless", "c", {"type": "object"}, careless_tool)
    with pytest.raises(PauseForInput):
        await ToolRegistry([spec]).call("careless", {}, CTX)
    assert not issubclass(ToolSignal, Exception)


async def test_a_pause_in_one_of_parallel_calls_reaches_the_caller() -> None:
    tools = registry()
    with pytest.raises(PauseForInput):
        await asyncio.gather(
            tools.call("practice_save_patient", {"account_id": "a"}, CTX),
            tools.call("ask_user", {"question": "q?"}, CTX),
        )
    results = await asyncio.gather(
        tools.call("practice_save_patient", {"account_id": "a"}, CTX),
        tools.call("ask_user", {"question": "q?"}, CTX),
        return_exceptions=True,
    )
    assert isinstance(results[1], PauseForInput)


def test_tool_error_carries_retry_and_payload() -> None:
    error = ToolError("upstream said no", retryable=True, payload={"response_code": 1013})
    assert (error.message, error.retryable, error.payload) == (
        "upstream said no",
        True,
        {"response_code": 1013},
    )
    assert ToolError("x").payload == {}


async def test_preview_validates_then_asks_the_tool_and_is_none_without_one() -> None:
    async def preview(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return {"would_send": arguments["account_id"], "task": ctx.task_id}

    spec = ToolSpec(
        name="write_thing",
        description="Write.",
        parameters={
            "type": "object",
            "properties": {"account_id": {"type": "string"}},
            "required": ["account_id"],
        },
        handler=echo,
        mutating=True,
        review_preview=preview,
    )
    tools = ToolRegistry([ASK_USER, spec])
    assert await tools.preview("write_thing", {"account_id": "a1"}, CTX) == {"would_send": "a1", "task": "t"}
    assert await tools.preview("ask_user", {"question": "?"}, CTX) is None
    with pytest.raises(ToolArgumentError):
        await tools.preview("write_thing", {}, CTX)
    with pytest.raises(UnknownToolError):
        await tools.preview("nope", {}, CTX)


def test_a_remote_ref_in_a_tool_schema_is_never_fetched() -> None:
    import http.server
    import threading

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/internal.json"
        parameters = {"type": "object", "properties": {"a": {"$ref": url}}}
        registry = ToolRegistry(
            [ToolSpec(name="remote_ref", description="d", parameters=parameters, handler=echo)]
        )
        with pytest.raises(ToolError, match=r"refers to 'http://127\.0\.0\.1:"):
            registry.validate("remote_ref", {"a": "x"})
    finally:
        server.shutdown()
        server.server_close()
    assert hits == []


def regex_spec() -> ToolSpec:
    """A remote tool whose parameters schema holds a pattern that backtracks without end on 'aaa…!'."""
    parameters = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}, "token": {"type": "string"}},
        "required": ["code"],
    }
    return ToolSpec(
        name="remote_lookup",
        description="d",
        parameters=parameters,
        handler=echo,
        injected=frozenset({"token"}),
    )


def test_a_backtracking_pattern_in_a_tool_schema_cannot_stall_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("tools.registry.ARGUMENT_CHECK_SECONDS", 1.0)
    registry = ToolRegistry([regex_spec()])

    async def main() -> tuple[float, int]:
        # The loop keeps turning while the check runs: a ticker counts its turns.
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        beat = asyncio.create_task(ticker())
        started = asyncio.get_running_loop().time()
        with pytest.raises(ToolError, match=r"took over 1 s"):
            await registry.call("remote_lookup", {"code": "a" * 64 + "!"}, CTX)
        beat.cancel()
        return asyncio.get_running_loop().time() - started, ticks

    elapsed, ticks = asyncio.run(main())
    assert elapsed < 5
    assert ticks > 20


def test_arguments_against_a_regex_schema_are_still_checked() -> None:
    registry = ToolRegistry([regex_spec()])
    assert asyncio.run(registry.call("remote_lookup", {"code": "aaa"}, CTX))["arguments"] == {"code": "aaa"}
    with pytest.raises(ToolArgumentError, match=r"code: 'b' does not match"):
        asyncio.run(registry.call("remote_lookup", {"code": "b"}, CTX))
    with pytest.raises(ToolArgumentError, match=r"\$\.token: this argument is set by the workspace"):
        asyncio.run(registry.call("remote_lookup", {"code": "aaa", "token": "x"}, CTX))
