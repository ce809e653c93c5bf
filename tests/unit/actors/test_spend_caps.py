import pytest

from actors.spend_caps import caps_set, unpriced_text

pytestmark = pytest.mark.unit


def test_the_caps_an_agent_sets_are_named_as_settings() -> None:
    assert caps_set({"settings": {"spend_cap_usd": 1, "tree_spend_cap_usd": 0.5}}) == [
        "settings.spend_cap_usd",
        "settings.tree_spend_cap_usd",
    ]
    # Only numbers are caps (AgentPolicy reads them the same way).
    assert caps_set({"settings": {"spend_cap_usd": True, "tree_spend_cap_usd": "1"}}) == []
    assert caps_set({"settings": None}) == [] and caps_set({}) == []


def test_the_refusal_names_the_model_the_caps_and_the_way_to_a_price() -> None:
    text = unpriced_text("openai:my-local-llama", ["settings.spend_cap_usd"])
    assert text.startswith("the model openai:my-local-llama has no known price, so settings.spend_cap_usd")
    assert "PUT /api/v1/integrations/models/{name}" in text and '"price"' in text
    assert "the task tree's spend budget cannot be enforced" in unpriced_text("openai:m", [])
