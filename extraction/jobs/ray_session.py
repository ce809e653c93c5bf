"""Which Ray a batch run uses: `RAY_ADDRESS`'s cluster, the running `agentry up`'s, or one of its own.

`agentry up` records the address of the Ray it runs on in its data dir (`ray.json`), beside its
dev key, and removes it when it stops. A batch run on the same machine (`extract_many`, the Ray
Data helpers, `agentry extract`) joins that Ray rather than starting a second one beside it: two
Rays on a small machine fight over its cores and memory. It starts a private one only when no
service is running.

Joining by address needs Ray's token authentication set up by hand (Ray enables it on its own only
for `address="auto"`); `join_ray` does it whenever a token is at hand, as `auto` would.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.infra import process_records
from core.infra.settings import Settings

log = logging.getLogger(__name__)

RECORD_FILE = "ray.json"
#: Ray's own variables for token authentication (Ray's docs: "token-auth").
AUTH_MODE_ENV = "RAY_AUTH_MODE"
AUTH_TOKEN_PATH_ENV = "RAY_AUTH_TOKEN_PATH"
#: How long a recorded cluster's GCS gets to accept a connection before it counts as gone.
PROBE_SECONDS = 2.0


@dataclass(frozen=True)
class RayRecord:
    """What `agentry up` writes about its Ray; nothing secret (the token stays where Ray keeps it)."""

    address: str
    pid: int
    dashboard_url: str | None = None
    auth_mode: str | None = None
    token_path: str | None = None


def record_path(data_dir: Path) -> Path:
    return data_dir / RECORD_FILE


def record_running_ray(data_dir: Path, dashboard_url: str | None = None) -> RayRecord:
    """Write this process's Ray (already initialized) as the one batch runs should join."""
    import ray

    record = RayRecord(
        address=ray.get_runtime_context().gcs_address,
        pid=os.getpid(),
        dashboard_url=dashboard_url,
        auth_mode=os.environ.get(AUTH_MODE_ENV),
        token_path=os.environ.get(AUTH_TOKEN_PATH_ENV),
    )
    process_records.write(record_path(data_dir), record)
    return record


def forget_running_ray(data_dir: Path) -> None:
    """Remove the record if this process wrote it (a newer service's record stays)."""
    process_records.forget_own(record_path(data_dir), RayRecord)


def read_record(data_dir: Path) -> RayRecord | None:
    return process_records.read(record_path(data_dir), RayRecord)


def running_service_ray(data_dir: Path) -> RayRecord | None:
    """The recorded Ray, when the service that recorded it still runs and its GCS answers."""
    record = read_record(data_dir)
    if record is None or not process_records.process_alive(record.pid) or not _answers(record.address):
        return None
    return record


def _answers(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=PROBE_SECONDS):
            return True
    except (OSError, ValueError):
        return False


def choose_address(settings: Settings) -> tuple[str, RayRecord | None]:
    """The address to give `ray.init`, and the service record it came from (if it did).

    `RAY_ADDRESS` first; then the running service's Ray; else "local", which starts a private Ray
    even when another one (`ray start`, another user's) runs on this machine, where a bare
    `ray.init()` would join it.
    """
    if settings.ray_address:
        return settings.ray_address, None
    record = running_service_ray(settings.data_dir)
    if record is not None:
        return record.address, record
    return "local", None


def enable_token_auth(record: RayRecord | None) -> None:
    """Token authentication for a join by address, as Ray sets it up for `address="auto"`."""
    if record is not None and record.token_path and AUTH_TOKEN_PATH_ENV not in os.environ:
        os.environ[AUTH_TOKEN_PATH_ENV] = record.token_path
    if record is not None and record.auth_mode and AUTH_MODE_ENV not in os.environ:
        os.environ[AUTH_MODE_ENV] = record.auth_mode
    # Ray's helper for `auto` (pinned Ray version): turns token mode on when RAY_AUTH_MODE is unset
    # and a token is found (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token), and makes
    # this process's Ray config see the mode either way.
    from ray._private.authentication.authentication_token_setup import (
        maybe_enable_token_auth_if_token_available,
    )

    if os.environ.get(AUTH_MODE_ENV, "").lower() == "token":
        from ray._raylet import Config  # type: ignore[attr-defined]

        Config.initialize("")
    else:
        maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def _init(settings: Settings) -> str:
    import ray

    address, record = choose_address(settings)
    if address != "local":
        enable_token_auth(record)
        log.info("joining the Ray cluster at %s", address)
    ray.init(address=address, logging_level=logging.WARNING, include_dashboard=False)
    return str(ray.get_runtime_context().gcs_address)


def ensure_ray(settings: Settings | None = None) -> str:
    """Ray, initialized for the rest of this process (a notebook's session) unless it already is;
    the GCS address in use."""
    import ray

    if ray.is_initialized():
        return str(ray.get_runtime_context().gcs_address)
    from core.infra.settings import get_settings

    return _init(settings or get_settings())


@contextlib.contextmanager
def joined_ray(settings: Settings) -> Iterator[str]:
    """Ray, initialized for the block: the one already initialized in this process, or the one
    `choose_address` names. Shuts down only what it initialized; yields the GCS address in use."""
    import ray

    if ray.is_initialized():
        yield str(ray.get_runtime_context().gcs_address)
        return
    address = _init(settings)
    try:
        yield address
    finally:
        ray.shutdown()
