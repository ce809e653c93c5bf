import pytest

from core.stores.agent_needs import AgentNeeds, missing_text, needs_of

pytestmark = pytest.mark.unit


def test_a_connection_model_and_named_servers_are_needs() -> None:
    config = {
        "model": {"connection": " brain ", "name": "m"},
        "mcp_servers": [{"server": "orders"}, {"server": "crm", "require_approval": "none"}],
    }
    assert needs_of(config) == AgentNeeds("brain", ("orders", "crm"))


@pytest.mark.parametrize(
    "model",
    [
        None,
        "scripted",
        "openai:gpt-4o-mini",
        {"provider": "openai", "name": "gpt-4o-mini"},
        # The scripted model never reads a connection, whatever else the object says.
        {"provider": "scripted", "connection": "brain"},
        # Malformed names are the model resolution's to refuse, with its own message.
        {"connection": ""},
        {"connection": 7},
    ],
)
def test_models_that_name_no_connection_need_none(model: object) -> None:
    assert needs_of({"model": model}).connection is None


def test_malformed_mcp_servers_are_left_to_their_own_check() -> None:
    assert needs_of({"mcp_servers": "orders"}).mcp_servers == ()
    assert needs_of({"mcp_servers": [{"server": 1}, "x", {"server": "ok"}]}).mcp_servers == ("ok",)


def test_the_text_names_every_missing_thing_and_how_to_make_it() -> None:
    assert missing_text("Helper", None, []) is None
    text = missing_text("Helper", "brain", ["orders", "crm"])
    assert text is not None and text.startswith("agent 'Helper' needs what this workspace does not have")
    assert "model connection 'brain' (create it with PUT /api/v1/integrations/models/brain)" in text
    assert "MCP server 'orders'" in text and "MCP server 'crm'" in text
    assert "public agent" not in text
    public = missing_text("Helper", None, ["orders"], public=True)
    assert public is not None and "model connection '" not in public
    assert (
        "a public agent runs on the model connection and MCP servers of the workspace that runs it" in public
    )
