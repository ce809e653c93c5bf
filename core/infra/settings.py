"""Every setting of the service, read from the environment by one object.

Nothing else in the code base reads `os.environ`: components receive a `Settings` (or the values
they need from it). An invalid value stops start-up with a message that names the variable.
"""

from __future__ import annotations

import os
import re
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.infra.errors import SettingsError

_RATE_RE = re.compile(r"^\s*(\d+)\s*/\s*(second|minute|hour|day)\s*$")
_PERIOD_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def _env(name: str) -> AliasChoices:
    return AliasChoices(name)


class Settings(BaseSettings):
    """The settings of docs/contract.md section 0, plus a few operational knobs with safe defaults."""

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", populate_by_name=True)

    redis_url: str | None = Field(
        None, validation_alias=_env("REDIS_URL"), description="External Redis; unset: the embedded one."
    )
    #: The embedded server's `appendfsync`: `always` makes every acknowledged write survive a crash.
    redis_appendfsync: Literal["always", "everysec", "no"] = Field(
        "always", validation_alias=_env("AGENTRY_REDIS_APPENDFSYNC")
    )
    ray_address: str | None = Field(
        None, validation_alias=_env("RAY_ADDRESS"), description="Join this Ray cluster; unset: local."
    )
    host: str = Field("127.0.0.1", validation_alias=_env("AGENTRY_HOST"))
    port: int = Field(8000, ge=1, le=65535, validation_alias=_env("AGENTRY_PORT"))
    data_dir: Path = Field(Path(".agentry"), validation_alias=_env("AGENTRY_DATA_DIR"))
    blob_url: str | None = Field(
        None, validation_alias=_env("AGENTRY_BLOB_URL"), description="fsspec URL; default under data_dir."
    )
    secret: str | None = Field(
        None, validation_alias=_env("AGENTRY_SECRET"), description="HMAC/encryption key; generated once."
    )
    default_on_failure: Literal["fail", "ask_user"] = Field(
        "fail", validation_alias=_env("ORCHESTRATOR_DEFAULT_ON_FAILURE")
    )
    sync_budget_seconds: int = Field(300, ge=0, le=3600, validation_alias=_env("AGENTRY_SYNC_BUDGET_SECONDS"))
    sync_enabled: bool = Field(True, validation_alias=_env("AGENTRY_SYNC_ENABLED"))
    sync_result_cap_bytes: int = Field(
        1024 * 1024, gt=0, validation_alias=_env("AGENTRY_SYNC_RESULT_CAP_BYTES")
    )
    rate_limit: str = Field("1200/minute", validation_alias=_env("AGENTRY_RATE_LIMIT"))
    agent_concurrency: int = Field(8, ge=1, validation_alias=_env("AGENTRY_AGENT_CONCURRENCY"))
    max_upload_mb: int = Field(50, ge=1, validation_alias=_env("AGENTRY_MAX_UPLOAD_MB"))
    #: A JSON request body longer than this is refused (413) before it is parsed; uploads have their own cap.
    max_json_body_bytes: int = Field(
        1024 * 1024, ge=1024, le=64 * 1024 * 1024, validation_alias=_env("AGENTRY_MAX_JSON_BODY_BYTES")
    )
    allow_private_urls: bool = Field(False, validation_alias=_env("AGENTRY_ALLOW_PRIVATE_URLS"))
    practice_staging_url: str | None = Field(None, validation_alias=_env("AGENTRY_PRACTICE_STAGING_URL"))
    practice_production_url: str | None = Field(
        None, validation_alias=_env("AGENTRY_PRACTICE_PRODUCTION_URL")
    )
    default_model: str = Field("scripted", validation_alias=_env("AGENTRY_DEFAULT_MODEL"))
    openai_api_key: str | None = Field(None, validation_alias=_env("OPENAI_API_KEY"), repr=False)
    openai_base_url: str | None = Field(None, validation_alias=_env("OPENAI_BASE_URL"))
    max_tokens_per_task: int = Field(2_000_000, ge=1, validation_alias=_env("AGENTRY_MAX_TOKENS_PER_TASK"))
    anthropic_api_key: str | None = Field(None, validation_alias=_env("ANTHROPIC_API_KEY"), repr=False)
    anthropic_base_url: str | None = Field(None, validation_alias=_env("ANTHROPIC_BASE_URL"))
    batch_fanout_enabled: bool = Field(True, validation_alias=_env("AGENTRY_BATCH_FANOUT_ENABLED"))
    #: docs/spec.md `max_children_per_call`: children one delegate_tasks call may start (source mode
    #: included); 0 means no limit below the hard cap of 1000 (core.tasks.delegation).
    max_children_per_call: int = Field(
        250, ge=0, le=1000, validation_alias=_env("AGENTRY_MAX_CHILDREN_PER_CALL")
    )
    task_placement: Literal["dedicated", "pooled"] = Field(
        "dedicated", validation_alias=_env("AGENTRY_TASK_PLACEMENT")
    )
    max_live_tasks_per_node: int = Field(32, ge=1, validation_alias=_env("AGENTRY_MAX_LIVE_TASKS_PER_NODE"))
    #: Warm idle task actors kept per node for dedicated tasks (actors.spares): a run or a resume
    #: is handed to a running process instead of waiting for a new one; 0 turns them off.
    spare_task_actors: int = Field(2, ge=0, le=64, validation_alias=_env("AGENTRY_SPARE_TASK_ACTORS"))
    #: While dedicated tasks arrive in a burst, a node keeps up to this many spares (within its free
    #: task slots), shrinking back to `spare_task_actors` once they are idle (actors.spares).
    max_spare_task_actors: int = Field(8, ge=0, le=64, validation_alias=_env("AGENTRY_MAX_SPARE_TASK_ACTORS"))
    #: A task runner's lease; a runner that stops renewing it is presumed dead after this long.
    task_lease_seconds: float = Field(6.0, gt=0, validation_alias=_env("AGENTRY_TASK_LEASE_SECONDS"))
    #: A task whose runner died this many times in a row (no step completed between) fails rather
    #: than being started again (actors.runner_deaths).
    max_runner_failures: int = Field(3, ge=1, le=100, validation_alias=_env("AGENTRY_MAX_RUNNER_FAILURES"))
    #: How often the reconciler looks for tasks without a live runner.
    reconcile_seconds: float = Field(2.0, gt=0, validation_alias=_env("AGENTRY_RECONCILE_SECONDS"))
    #: Replicas of the HTTP ingress; each holds up to `ingress_max_ongoing` requests (held sync runs count).
    #: Unset: one per core of this machine (a replica runs its requests on one core).
    ingress_replicas: int | None = Field(None, ge=1, validation_alias=_env("AGENTRY_INGRESS_REPLICAS"))
    #: What answers HTTP in front of the replicas: Serve's HAProxy ingress (`haproxy`, requests go
    #: straight to a replica's own HTTP server) or Serve's Python proxy (`proxy`).
    ingress: Literal["haproxy", "proxy"] = Field("haproxy", validation_alias=_env("AGENTRY_INGRESS"))
    ingress_max_ongoing: int = Field(500, ge=1, validation_alias=_env("AGENTRY_INGRESS_MAX_ONGOING"))
    #: Our app runs on each ingress replica's own event loop, the one its HTTP server runs on
    #: (Serve's same-loop flags), instead of a second loop on a thread of its own that every
    #: request hops to and back from. Our handlers never block their loop (file I/O goes to threads).
    ingress_same_loop: bool = Field(True, validation_alias=_env("AGENTRY_INGRESS_SAME_LOOP"))
    #: Longest one document task (a parse, an extraction step) may run before it is stopped and
    #: its document fails: the API's jobs and batch extraction alike.
    document_timeout_seconds: float = Field(
        120.0, gt=0, le=86400, validation_alias=_env("AGENTRY_DOCUMENT_TIMEOUT_SECONDS")
    )
    #: First wait before a failed webhook delivery is tried again; it doubles per attempt (capped).
    webhook_retry_base_seconds: float = Field(
        10.0, gt=0, le=3600, validation_alias=_env("AGENTRY_WEBHOOK_RETRY_BASE_SECONDS")
    )
    #: First wait before a task's failed model call or tool call is tried again; it doubles per
    #: attempt up to `retry_cap_seconds`, with jitter (core.infra.backoff).
    retry_base_seconds: float = Field(1.0, gt=0, le=3600, validation_alias=_env("AGENTRY_RETRY_BASE_SECONDS"))
    #: Longest wait before a task's retry.
    retry_cap_seconds: float = Field(60.0, gt=0, le=3600, validation_alias=_env("AGENTRY_RETRY_CAP_SECONDS"))
    #: Longest one call to a remote MCP server may take (connect, initialize, the call) before it
    #: is a retryable tool failure; listing a server's tools has the same limit.
    mcp_call_timeout_seconds: float = Field(
        30.0, gt=0, le=3600, validation_alias=_env("AGENTRY_MCP_CALL_TIMEOUT_SECONDS")
    )
    #: Largest answer read from a remote MCP server (each tools/list page, a call's answer; counted
    #: while it arrives, so a larger one is never held whole), largest tool list (all its pages) and
    #: largest tool result (its JSON) a task records. Past it: a tool error the model sees, or a 502
    #: on `POST /api/v1/mcp-servers/{id}/test`, and nothing of the answer is kept.
    mcp_max_result_bytes: int = Field(
        1024 * 1024, ge=1024, le=64 * 1024 * 1024, validation_alias=_env("AGENTRY_MCP_MAX_RESULT_BYTES")
    )
    #: How extraction reads a numeric date whose day and month could swap (12/03/2001), unless a
    #: request's `extraction_config.date_order` says otherwise. Unset, each document's own dates and
    #: locale decide, month first when they say nothing (extraction/fields/reading/date_locale.py).
    date_order: Literal["MDY", "DMY", "YMD"] | None = Field(None, validation_alias=_env("AGENTRY_DATE_ORDER"))
    #: The console marks an extracted value whose confidence is below this for a person to check.
    #: 0.9 from the calibration (bench/README.md, corpus_quality, 2026-11-26): of 975 values, the
    #: 767 at or above 0.9 were right 0.997 of the time, the 208 below it 0.73 (151), so the values
    #: under 0.9 are the ones worth a reviewer's look.
    review_confidence: float = Field(0.9, ge=0.0, le=1.0, validation_alias=_env("AGENTRY_REVIEW_CONFIDENCE"))
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "INFO", validation_alias=_env("AGENTRY_LOG_LEVEL")
    )

    @field_validator("rate_limit")
    @classmethod
    def _check_rate(cls, value: str) -> str:
        if value.strip().lower() == "off" or _RATE_RE.match(value.lower()):
            return value.strip().lower()
        raise ValueError("expected 'N/second', 'N/minute', 'N/hour', 'N/day' or 'off'")

    @field_validator("data_dir")
    @classmethod
    def _absolute_dir(cls, value: Path) -> Path:
        # Ray workers run in other directories: every process must see the same absolute path.
        return value.expanduser().resolve()

    @property
    def rate_limit_per_period(self) -> tuple[int, int] | None:
        """(requests, period seconds), or None when rate limiting is off."""
        return parse_rate(self.rate_limit)

    @property
    def resolved_ingress_replicas(self) -> int:
        # The cores this process may use (a container's share), not the machine's count.
        return self.ingress_replicas or len(os.sched_getaffinity(0)) or 1

    @property
    def redis_dir(self) -> Path:
        return self.data_dir / "redis"

    @property
    def redis_socket(self) -> Path:
        return self.redis_dir / "redis.sock"

    @property
    def resolved_blob_url(self) -> str:
        return self.blob_url or f"file://{self.data_dir / 'blobs'}"

    @property
    def max_upload_bytes(self) -> int:
        return self.max_upload_mb * 1024 * 1024

    def resolved_secret(self) -> str:
        """The configured secret, or the one generated into the data dir on first use."""
        if self.secret:
            return self.secret
        path = self.data_dir / "secret"
        if path.exists():
            return path.read_text().strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        value = secrets.token_urlsafe(48)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(value)
        tmp.chmod(0o600)
        try:
            # A second process racing us keeps whichever secret landed first.
            path.hardlink_to(tmp)
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
        return path.read_text().strip()

    def worker_env(self, *, redis_url: str) -> dict[str, str]:
        """Environment that makes another process (a Ray worker) resolve the same settings."""
        env = {
            "REDIS_URL": redis_url,
            "AGENTRY_DATA_DIR": str(self.data_dir),
            "AGENTRY_SECRET": self.resolved_secret(),
        }
        for name, field in type(self).model_fields.items():
            alias = field.validation_alias
            if not isinstance(alias, AliasChoices) or name in {"redis_url", "data_dir", "secret"}:
                continue
            value = getattr(self, name)
            if value is None:
                continue
            env_name = str(alias.choices[0])
            env[env_name] = str(value).lower() if isinstance(value, bool) else str(value)
        return env


def parse_rate(value: str) -> tuple[int, int] | None:
    value = value.strip().lower()
    if value == "off":
        return None
    match = _RATE_RE.match(value)
    if not match:
        raise ValueError(f"invalid rate {value!r}")
    return int(match.group(1)), _PERIOD_SECONDS[match.group(2)]


def load_settings() -> Settings:
    """Read the environment; an invalid value raises `SettingsError` naming the variable."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            name = ".".join(str(part) for part in err["loc"]) or "settings"
            problems.append(f"{name}: {err['msg']} (got {err.get('input')!r})")
        raise SettingsError("invalid setting: " + "; ".join(problems)) from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()
