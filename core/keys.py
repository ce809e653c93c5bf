"""The Redis key layout (docs/architecture.md, Redis conventions).

Keys are `ag:{workspace}:<kind>:<id>`: the braces make one workspace one Redis Cluster hash slot, so
multi-key scripts over a workspace stay legal on a cluster. Facts that must be found without knowing
the workspace (an API key, who owns an id) live under the `{global}` tag.
"""

from __future__ import annotations

GLOBAL = "global"


def ws(workspace_id: str, kind: str, *parts: str) -> str:
    return ":".join(["ag", "{" + workspace_id + "}", kind, *parts])


def glob(kind: str, *parts: str) -> str:
    return ":".join(["ag", "{" + GLOBAL + "}", kind, *parts])


# Global facts.
def api_key(key_id: str) -> str:
    return glob("apikey", key_id)


def workspace_by_name() -> str:
    return glob("workspaces")


def workspace(workspace_id: str) -> str:
    return glob("workspace", workspace_id)


def owner(resource_id: str) -> str:
    """Which workspace an agent, agent group or task id belongs to: tells 403 from 404."""
    return glob("owner", resource_id)


def public_agent_groups() -> str:
    return glob("public_agent_groups")


# Per-workspace facts.
def workspace_keys(workspace_id: str) -> str:
    return ws(workspace_id, "apikeys")


def agent(workspace_id: str, agent_id: str) -> str:
    return ws(workspace_id, "agent", agent_id)


def agent_group(workspace_id: str, group_id: str) -> str:
    return ws(workspace_id, "agentgroup", group_id)


def agent_group_versions(workspace_id: str, group_id: str) -> str:
    return ws(workspace_id, "agentgroup", group_id, "versions")


def agent_groups_index(workspace_id: str) -> str:
    return ws(workspace_id, "agentgroups")


def untitled_counter(workspace_id: str) -> str:
    return ws(workspace_id, "counter", "untitled_agent")


def rate_limit(workspace_id: str, key_id: str) -> str:
    return ws(workspace_id, "ratelimit", key_id)


def audit_log(workspace_id: str) -> str:
    return ws(workspace_id, "audit")


def audit_entry(workspace_id: str, entry_id: str) -> str:
    return ws(workspace_id, "audit", entry_id)


# Integrations.
def practice_connection(workspace_id: str) -> str:
    """The workspace's practice-management connector (a hash; secrets sealed)."""
    return ws(workspace_id, "integration", "practice")


def model_connection(workspace_id: str, name: str) -> str:
    """One of the workspace's named model connections (a hash; the API key sealed)."""
    return ws(workspace_id, "integration", "model", name)


def practice_token_lock(workspace_id: str) -> str:
    """Held while the connector's access token is minted, so concurrent calls mint it once."""
    return ws(workspace_id, "integration", "practice", "token-lock")


def practice_record_lock(record_digest: str) -> str:
    """Held during a write to one external patient record, named by a digest of its host, account and key.

    Global: the record lives in the external system, which two workspaces may both reach.
    """
    return glob("practice-record-lock", record_digest)


# Tasks.
def task(workspace_id: str, task_id: str) -> str:
    return ws(workspace_id, "task", task_id)


def task_feed(workspace_id: str, task_id: str) -> str:
    """The task's ordered, numbered event log (a stream); the feed is read from it.

    Entries are the task's own feed items (`seq`, `item`) and the items its delegated children
    mirror into it (`child`, `child_item`), which only the live event stream reads. Never trimmed:
    the log lives as long as the task.
    """
    return ws(workspace_id, "task", task_id, "feed")


def task_steps(workspace_id: str, task_id: str) -> str:
    """What each step recorded (model responses, tool results), so nothing recorded runs twice."""
    return ws(workspace_id, "task", task_id, "steps")


def task_documents(workspace_id: str, task_id: str) -> str:
    """The documents the task's tools processed and the citations their results gave."""
    return ws(workspace_id, "task", task_id, "documents")


def task_lease(workspace_id: str, task_id: str) -> str:
    return ws(workspace_id, "task", task_id, "lease")


def task_journal(workspace_id: str, task_id: str) -> str:
    """A task's global steps not yet applied on a Redis Cluster (a hash: entry id -> the step as JSON),
    written by the workspace step that owes them (core.cluster_tasks)."""
    return ws(workspace_id, "task", task_id, "journal")


def tasks_index(workspace_id: str) -> str:
    return ws(workspace_id, "tasks")


def agent_running(workspace_id: str, group_id: str) -> str:
    return ws(workspace_id, "agentgroup", group_id, "running")


def agent_queue(workspace_id: str, group_id: str) -> str:
    return ws(workspace_id, "agentgroup", group_id, "queue")


def live_tasks() -> str:
    """Every task that should have a runner or be waiting for one: pending, queued, running."""
    return glob("live_tasks")


def task_journals() -> str:
    """Live-set members (`<ws>|<task id>`) whose task journal may hold a step, scored by when (ms) a
    step that may journal last began: the reconciler's list of journals to apply (core.cluster_tasks)."""
    return glob("task_journals")


def journal_applied(member: str, entry_id: str) -> str:
    """Marks one journal entry's global step as applied, so whoever applies it again writes nothing."""
    return glob("journal_applied", member, entry_id)


#: Pub/sub channel that wakes waiters on any task change; never a source of facts.
TASK_EVENTS_CHANNEL = "ag:task-events"
#: Pub/sub channel carrying the id of each revoked API key, so edges drop it from their caches.
KEY_REVOCATIONS_CHANNEL = "ag:key-revocations"


# Delegation.
def task_children(workspace_id: str, task_id: str) -> str:
    return ws(workspace_id, "task", task_id, "children")


def task_awaits(workspace_id: str, task_id: str) -> str:
    """The await groups a parent task opened, so stopping it can cancel them."""
    return ws(workspace_id, "task", task_id, "awaits")


def task_items(workspace_id: str, task_id: str) -> str:
    """Source mode: item key -> child task id, for every batch the parent ran."""
    return ws(workspace_id, "task", task_id, "items")


def task_batches(workspace_id: str, task_id: str) -> str:
    """Source mode: the ids of the batches the parent ran, oldest first."""
    return ws(workspace_id, "task", task_id, "batches")


def task_delegations(workspace_id: str, task_id: str) -> str:
    """Call id -> what that delegate_tasks call spawned, so a re-run call never spawns twice."""
    return ws(workspace_id, "task", task_id, "delegations")


def await_group(workspace_id: str, group_id: str) -> str:
    return ws(workspace_id, "await", group_id)


def await_pending(workspace_id: str, group_id: str) -> str:
    return ws(workspace_id, "await", group_id, "pending")


def child_await(workspace_id: str, child_id: str) -> str:
    return ws(workspace_id, "task", child_id, "await")


def signal_seen(workspace_id: str, child_id: str) -> str:
    return ws(workspace_id, "task", child_id, "signaled")


def batch_run(workspace_id: str, batch_id: str) -> str:
    return ws(workspace_id, "batch", batch_id)


def runtime_events() -> str:
    """Durable runtime events (new_message, child_task, await_completed, drain_queue), read by the scheduler."""
    return glob("events")


def gauges() -> str:
    """The last snapshot of the operators' gauges (core.gauges), written by the reconciler."""
    return glob("gauges")


def await_timers() -> str:
    """Await groups by resume time (a sorted set), checked by the reconciler."""
    return glob("await_timers")


#: Consumer group of the scheduler on the runtime event stream.
EVENTS_GROUP = "scheduler"


# Webhooks.
def webhooks_index(workspace_id: str) -> str:
    """The workspace's webhook subscriptions, newest first; the transition script reads its size."""
    return ws(workspace_id, "webhooks")


def webhook(workspace_id: str, webhook_id: str) -> str:
    return ws(workspace_id, "webhook", webhook_id)


def webhook_attempts(workspace_id: str, webhook_id: str) -> str:
    """Every delivery attempt to one subscription (a stream, newest read first)."""
    return ws(workspace_id, "webhook", webhook_id, "attempts")


def webhook_delivery(workspace_id: str, delivery_id: str) -> str:
    """One event's delivery to one subscription: its body and where its retries stand."""
    return ws(workspace_id, "webhook-delivery", delivery_id)


def webhook_outbox() -> str:
    """Events to deliver (a stream), appended in the same atomic step as the change they report."""
    return glob("webhooks", "outbox")


def webhook_due() -> str:
    """Deliveries by the time their next attempt is due (a sorted set of `<ws>|<delivery id>`)."""
    return glob("webhooks", "due")


#: Consumer group of the webhook dispatcher on the outbox.
WEBHOOKS_GROUP = "webhooks"


# Task runtime.
def spare_task_actors(node_id: str) -> str:
    """Idle warm task actors of one node (a list of their Ray names), each handed to one task."""
    return glob("spare-task-actors", node_id)


# MCP servers (core.mcp_servers).
def mcp_server(workspace_id: str, server_id: str) -> str:
    """One of the workspace's remote MCP servers (JSON; its headers sealed)."""
    return ws(workspace_id, "mcp-server", server_id)


def mcp_server_names(workspace_id: str) -> str:
    """Server name -> id, so names stay unique in a workspace and agent configs can name servers."""
    return ws(workspace_id, "mcp-servers", "names")


def mcp_servers_index(workspace_id: str) -> str:
    return ws(workspace_id, "mcp-servers")


def mcp_server_tools(workspace_id: str, server_id: str) -> str:
    """The tools the server offered when last listed, so a task still knows them while it is down."""
    return ws(workspace_id, "mcp-server", server_id, "tools")


# Examples of saved extract configs (core.examples).
def config_example(workspace_id: str, config_uuid: str, example_id: str) -> str:
    """One example of a saved extract config (JSON; the values and the taught layout sealed)."""
    return ws(workspace_id, "config", config_uuid, "example", example_id)


def config_examples(workspace_id: str, config_uuid: str) -> str:
    """The config's examples, newest first (a sorted set of `core.ids.sort_key` members)."""
    return ws(workspace_id, "config", config_uuid, "examples")
