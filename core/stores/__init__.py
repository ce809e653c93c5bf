"""Resource stores of a workspace: agents, API keys, audit, saved configs, files, MCP servers, model connections, webhooks. May import core.infra."""
