"""The task state machine and its scripts: records, status changes, usage, feeds, creation and
completion, queries, live events, delegation's awaits and signals, results.

May import `core.stores` and `core.infra`. This package's public names are re-exported here, so
callers write `from core import tasks` and `tasks.transition(...)`; its own modules import each
other directly, never through this facade.
"""

from core.tasks.changes import WEBHOOK_EVENTS, admit, queued_heads, record, transition
from core.tasks.feed import feed_items, read_feed, read_steps, step_records
from core.tasks.records import (
    Task,
    TaskSpec,
    add_create,
    count_created,
    create_task,
    created_fields,
    dumps,
    find_task,
    first_item,
    live_member,
    load_task,
    mirror,
    new_spec,
    parse_task,
    placement_for,
)
from core.tasks.usage import (
    UNPRICED_CALLS,
    all_priced,
    tree_usage,
    usage_by_purpose,
    usage_increments,
    with_increments,
)

__all__ = [
    "UNPRICED_CALLS",
    "WEBHOOK_EVENTS",
    "Task",
    "TaskSpec",
    "add_create",
    "admit",
    "all_priced",
    "count_created",
    "create_task",
    "created_fields",
    "dumps",
    "feed_items",
    "find_task",
    "first_item",
    "live_member",
    "load_task",
    "mirror",
    "new_spec",
    "parse_task",
    "placement_for",
    "queued_heads",
    "read_feed",
    "read_steps",
    "record",
    "step_records",
    "transition",
    "tree_usage",
    "usage_by_purpose",
    "usage_increments",
    "with_increments",
]
