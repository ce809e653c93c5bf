"""The webhook dispatcher: a named, detached actor that delivers webhook events.

It reads the outbox with a consumer group, fans each event out to the workspace's subscriptions
that want it, and POSTs every due delivery, signed, to its URL. Everything it works from is in
Redis (`core.stores.webhook_delivery`): Ray restarts it after a crash, its loop starts in the constructor,
unacknowledged outbox entries are read again and claimed deliveries come due again after their
lease, so a restart loses no event.

Each attempt checks the URL with the guard of extraction inputs as it resolves at that moment and
connects to the address it checked (no DNS rebinding), follows no redirect, and counts only a 2xx
answer as delivered.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from typing import Any

import httpx
import ray

from actors.names import NAMESPACE
from core import tasks
from core.infra import keys
from core.infra.cancellation import raise_if_cancelled
from core.infra.errors import AgentryError
from core.infra.ids import utcnow
from core.infra.secretbox import SealedValueError
from core.infra.settings import Settings, get_settings
from core.infra.store import StoreOutage, async_client, resolve_redis_url
from core.infra.url_guard import checked_address, parse_url, pinned
from core.stores import webhook_delivery, webhooks
from extraction.jobs import store as job_store

log = logging.getLogger(__name__)

DISPATCHER_NAME = "webhook-dispatcher"
CONSUMER = "dispatcher"
#: Outbox entries read per round trip, and how long one read blocks waiting for new ones.
OUTBOX_BATCH = 100
OUTBOX_BLOCK_MS = 500
#: Deliveries attempted at once; a slow receiver holds one slot for at most the attempt timeout.
MAX_IN_FLIGHT = 32
#: One attempt, connection and answer included.
ATTEMPT_TIMEOUT_SECONDS = 10.0
#: How often outbox entries left unacknowledged by a failed fan-out are read again.
BACKLOG_SECONDS = 30.0
USER_AGENT = "Agentry-Webhooks/1"


def task_data(task: tasks.Task, fields: dict[str, str]) -> dict[str, Any]:
    """The task as the task list shows it (`serve.task_views.list_item`, in the same order), at the
    transition the event reports, with its `error` and `pause`."""
    s = task.spec
    return {
        "task_id": s.task_id,
        "agent_id": s.agent_id,
        "status": fields["type"].removeprefix("task."),
        "title": s.title,
        "agent_name": s.agent_name,
        "created_at": s.created_at,
        "updated_at": fields["at"],
        "source": s.source,
        "parent_task_id": s.parent_task_id,
        "parent_step_id": s.parent_step_id,
        "spawn_depth": s.spawn_depth,
        "error": fields.get("error") or None,
        "pause": json.loads(fields["pause"]) if fields.get("pause") else None,
    }


async def event_data(redis: Any, fields: dict[str, str]) -> dict[str, Any] | None:
    """The `data` of an outbox event: the task or job as the API shows it (None when it is gone).

    A task event carries the status, time, error and pause of its transition, so `data` describes
    the task at that moment even when it has moved on since; the rest of the record never changes.
    Results, summaries and document text are not sent: the receiver reads them with its API key.
    """
    ws = fields["ws"]
    if "task_id" in fields:
        task = await tasks.find_task(redis, ws, fields["task_id"])
        if task is None:
            return None
        return task_data(task, fields)
    job = await job_store.load_job(redis, ws, fields["job_id"])
    if job is None:
        return None
    return {
        "record_id": job.id,
        "kind": job.kind,
        "status": job.status,
        "file_id": job.file_id,
        "filename": job.filename,
        "file_size": job.file_size,
        "format": job.format,
        "config_id": job.config_id,
        "batch_id": job.batch_id,
        "output_format": job.output_format,
        "created_at": job.created_at,
        "finished_at": job.finished_at,
        "processing_time": job.processing_time,
    }


class Dispatcher:
    def __init__(self, redis: Any, settings: Settings) -> None:
        self.redis = redis
        self.settings = settings
        self.box = webhooks.secret_box(settings)
        self.http = httpx.AsyncClient(
            trust_env=False, follow_redirects=False, timeout=httpx.Timeout(ATTEMPT_TIMEOUT_SECONDS)
        )
        self.in_flight: set[asyncio.Task[None]] = set()

    async def fan_out(self, entry_id: str, fields: dict[str, str]) -> None:
        ws, event_type = fields["ws"], fields["type"]
        hooks = await webhooks.subscribers(self.redis, ws, event_type)
        data = await event_data(self.redis, fields) if hooks else None
        await webhook_delivery.fan_out(
            self.redis,
            entry_id,
            workspace_id=ws,
            event_type=event_type,
            created_at=fields["at"],
            data=data,
            webhook_ids=[hook.id for hook in hooks],
        )

    async def consume(self, *, backlog: bool) -> int:
        """Fan out one batch; `backlog` re-reads entries a failed fan-out or a dead incarnation left."""
        streams = await self.redis.xreadgroup(
            keys.WEBHOOKS_GROUP,
            CONSUMER,
            {keys.webhook_outbox(): "0" if backlog else ">"},
            count=OUTBOX_BATCH,
            block=None if backlog else OUTBOX_BLOCK_MS,
        )
        handled = 0
        for _, entries in streams or []:
            for entry_id, fields in entries:
                try:
                    await self.fan_out(entry_id, fields)
                except Exception:
                    log.exception("webhook event %s could not be fanned out; retried later", entry_id)
                    continue
                handled += 1
        return handled

    async def dispatch_due(self) -> None:
        free = MAX_IN_FLIGHT - len(self.in_flight)
        if free <= 0:
            return
        for member in await webhook_delivery.claim_due(self.redis, count=free):
            job = asyncio.create_task(self.attempt(member))
            self.in_flight.add(job)
            job.add_done_callback(self.in_flight.discard)

    async def attempt(self, member: str) -> None:
        ws, delivery_id = webhook_delivery.split_due_member(member)
        try:
            delivery = await webhook_delivery.load_delivery(self.redis, ws, delivery_id)
            hook = await webhooks.find_webhook(self.redis, ws, delivery.webhook_id) if delivery else None
            if delivery is None or hook is None:
                await webhook_delivery.drop(self.redis, ws, delivery_id)
                return
            started = utcnow()
            clock = time.perf_counter()
            status_code, error = await self.post(hook, delivery)
            outcome, attempt = await webhook_delivery.record_attempt(
                self.redis,
                delivery,
                started=started,
                duration_ms=round((time.perf_counter() - clock) * 1000),
                status_code=status_code,
                error=error,
                base_seconds=self.settings.webhook_retry_base_seconds,
            )
            log.info("webhook delivery %s attempt %d: %s", delivery.id, attempt["attempt"], outcome)
        except Exception:
            # The claim's lease runs out and the delivery is tried again.
            log.exception("webhook delivery %s could not be attempted", delivery_id)

    async def post(
        self, hook: webhooks.WebhookRecord, delivery: webhook_delivery.Delivery
    ) -> tuple[int | None, str | None]:
        """(HTTP status, None) when the receiver answered, else (None, why not)."""
        try:
            secret = self.box.open(hook.secret_sealed)
        except SealedValueError:
            return None, "the signing secret cannot be opened: the service secret changed"
        timestamp = int(time.time())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-Agentry-Event": delivery.event_type,
            "X-Agentry-Delivery": delivery.id,
            "X-Agentry-Timestamp": str(timestamp),
            "X-Agentry-Signature": webhooks.sign(secret, timestamp, delivery.body),
        }
        name = webhooks.URL_NAME
        try:
            url = parse_url(hook.url, what=name)
            address = await checked_address(url, allow_private=self.settings.allow_private_urls, what=name)
        except AgentryError as exc:
            return None, exc.message
        target, pin_headers, extensions = pinned(url, address)
        request = self.http.build_request(
            "POST",
            target,
            content=delivery.body.encode(),
            headers=pin_headers | headers,
            extensions=extensions,
        )
        try:
            async with asyncio.timeout(ATTEMPT_TIMEOUT_SECONDS):
                response = await self.http.send(request, stream=True)
                await response.aclose()
        except TimeoutError:
            return None, f"no answer within {ATTEMPT_TIMEOUT_SECONDS:g} s"
        except httpx.HTTPError as exc:
            return None, f"the request failed ({type(exc).__name__})"
        return response.status_code, None


async def run_dispatcher() -> None:
    settings = get_settings()
    url, _ = resolve_redis_url(settings)
    redis = async_client(url)
    dispatcher = Dispatcher(redis, settings)
    outage = StoreOutage("the webhook dispatcher", log)
    # Each round checks for a cancel that a store call swallowed (`core.infra.cancellation`), as the
    # lease keeper does: otherwise a stop asked while a read was in flight is lost and the loop runs on.
    # Also when the store is down as the dispatcher starts: it waits for it instead of ending its thread.
    while True:
        raise_if_cancelled()
        try:
            await webhook_delivery.ensure_group(redis)
            while await dispatcher.consume(backlog=True):
                pass
            break
        except Exception as exc:
            await outage.pause(exc)
    outage.over()
    last_backlog = time.monotonic()
    while True:
        raise_if_cancelled()
        try:
            await dispatcher.consume(backlog=False)
            await dispatcher.dispatch_due()
            if time.monotonic() - last_backlog >= BACKLOG_SECONDS:
                last_backlog = time.monotonic()
                await dispatcher.consume(backlog=True)
            outage.over()
        except Exception as exc:
            await outage.pause(exc)


@ray.remote(num_cpus=0, max_restarts=-1)
class WebhookDispatcher:
    """Runs `run_dispatcher` on its own thread from the moment it is constructed (also after a restart).

    It waits on Redis and receivers, so it reserves no CPU (as the scheduler).
    """

    def __init__(self) -> None:
        self._thread = threading.Thread(
            target=asyncio.run, args=(run_dispatcher(),), daemon=True, name="webhook-dispatcher"
        )
        self._thread.start()

    def alive(self) -> bool:
        return self._thread.is_alive()


def ensure_webhook_dispatcher() -> Any:
    """Get or create the dispatcher (one per cluster) without waiting for it to start."""
    return WebhookDispatcher.options(  # type: ignore[attr-defined]
        name=DISPATCHER_NAME, namespace=NAMESPACE, lifetime="detached", get_if_exists=True
    ).remote()


def start_webhook_dispatcher() -> Any:
    """Get or create the dispatcher and wait until it runs."""
    handle = ensure_webhook_dispatcher()
    ray.get(handle.alive.remote())
    return handle
