"""What an agent's config says about how its tasks run (docs/contract.md section 2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.infra.settings import Settings

#: docs/contract.md section 2: failed model or tool steps retried before the failure policy applies.
DEFAULT_MAX_RETRIES = 2


@dataclass(frozen=True)
class AgentPolicy:
    config: dict[str, Any]
    system_prompt: str
    model: Any
    output_schema: dict[str, Any] | None
    max_retries: int
    on_failure: str
    disable_ask_user: bool
    review_tools: frozenset[str]
    spend_cap_usd: float | None
    #: Budget of the whole task tree this agent starts (actors.tree_budget); None: no budget.
    tree_spend_cap_usd: float | None
    keep_citations: bool
    #: Tokens (input plus output, every purpose) a task may use before it pauses; a default stops a
    #: runaway whatever the model's price.
    max_tokens: int
    data_fields: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(
        cls, config: dict[str, Any], output_config: dict[str, Any] | None, settings: Settings
    ) -> AgentPolicy:
        agent_settings = config.get("settings") or {}
        output_config = output_config or {}
        prompt = str(config.get("system_prompt") or "")
        if output_config.get("instructions"):
            prompt = f"{prompt}\n\n{output_config['instructions']}".strip()
        schema = output_config.get("output_schema") or config.get("output_schema")
        retries = agent_settings.get("max_retries")
        cap = agent_settings.get("spend_cap_usd")
        token_cap = agent_settings.get("max_tokens_per_task")
        tree_cap = agent_settings.get("tree_spend_cap_usd")
        on_failure = config.get("on_failure")
        return cls(
            config=config,
            system_prompt=prompt,
            model=config.get("model"),
            output_schema=schema if isinstance(schema, dict) else None,
            max_retries=retries if isinstance(retries, int) and retries >= 0 else DEFAULT_MAX_RETRIES,
            # The agent's own value always wins over the platform default (docs/spec.md, Agent config).
            on_failure=on_failure if on_failure in ("fail", "ask_user") else settings.default_on_failure,
            disable_ask_user=bool(agent_settings.get("disable_ask_user")),
            review_tools=frozenset(config.get("review_tools") or ()),
            spend_cap_usd=float(cap) if isinstance(cap, int | float) and not isinstance(cap, bool) else None,
            tree_spend_cap_usd=float(tree_cap)
            if isinstance(tree_cap, int | float) and not isinstance(tree_cap, bool)
            else None,
            keep_citations=bool(config.get("structured_output_citations")),
            max_tokens=token_cap
            if isinstance(token_cap, int) and not isinstance(token_cap, bool) and token_cap > 0
            else settings.max_tokens_per_task,
            data_fields=[f for f in config.get("data_fields") or [] if isinstance(f, dict) and f.get("key")],
        )

    def pauses_on_failure(self, source: str) -> bool:
        """`ask_user` pauses on failure, except for spawned tasks and agents that run unattended."""
        return self.on_failure == "ask_user" and source != "spawned" and not self.disable_ask_user
