"""The `agentry` command: `up`, `down`, `keys`, and the tools that ship with the service."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shutil
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import redis.asyncio as aioredis

from core.infra.errors import AgentryError, SettingsError
from core.infra.settings import Settings, load_settings
from core.infra.store import async_client, resolve_redis_url
from core.stores import apikeys
from core.stores.bootstrap import DEV_KEY_FILE
from serve import up_record
from tools.practice.sandbox import add_arguments as add_sandbox_arguments
from tools.practice.sandbox import run_from_args as run_sandbox_from_args

if TYPE_CHECKING:
    from serve.service import RunningService

T = TypeVar("T")

#: How long `agentry down` waits for the service to stop: its drain, Serve, Ray and Redis.
DOWN_TIMEOUT_SECONDS = 120.0

#: Ray's switch for token authentication (`token` or `disabled`).
RAY_AUTH_MODE_ENV = "RAY_AUTH_MODE"


def _with_store(settings: Settings, work: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
    url, embedded = resolve_redis_url(settings)

    async def run() -> T:
        client = async_client(url)
        try:
            return await work(client)
        finally:
            await client.aclose()

    try:
        return asyncio.run(run())
    finally:
        if embedded is not None:
            embedded.stop()


def cmd_up(settings: Settings, args: argparse.Namespace) -> int:
    from serve.service import start_service, stop_service

    if args.host:
        settings.host = args.host
    if args.port:
        settings.port = args.port
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        stop.set()

    # `agentry down` finds this process by its record (serve/up_record.py); while it starts, the
    # record says so, and `down` waits for it to serve rather than cut its start short.
    up_record.write_record(settings.data_dir)
    try:
        service = start_service(settings)
        # ray.init installs its own SIGTERM handler, which would exit without cleaning up: ours goes last.
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        up_record.write_record(settings.data_dir, service.url)
        try:
            print(start_banner(service, settings), flush=True)
            print(f"Press Ctrl-C (or run `{agentry_command()} down`) to stop.", flush=True)
            while not stop.wait(0.5):
                pass
            print("Stopping...", flush=True)
        finally:
            stop_service(service, settings)
    finally:
        up_record.forget_record(settings.data_dir)
    return 0


def cmd_down(settings: Settings, args: argparse.Namespace) -> int:
    """Stop the `agentry up` of this data dir as Ctrl-C does, and wait until it has exited."""
    where = settings.data_dir.resolve()

    def stopping(record: up_record.UpRecord) -> None:
        print(f"Stopping Agentry on {record.url} (pid {record.pid})...", flush=True)

    outcome, record = up_record.stop_running(settings.data_dir, timeout=args.timeout, on_stopping=stopping)
    if outcome is up_record.StopOutcome.NOTHING_RUNNING:
        print(f"Nothing to stop: no `agentry up` is running with the data dir {where}.")
        return 0
    assert record is not None
    if outcome is up_record.StopOutcome.STALE:
        print(
            f"Nothing to stop: the `agentry up` recorded in {where} (pid {record.pid}) is no longer running."
        )
        return 0
    if outcome is up_record.StopOutcome.STARTING:
        print(
            f"agentry: `agentry up` (pid {record.pid}) is still starting; run `agentry down` again once "
            "it prints where it serves",
            file=sys.stderr,
        )
        return 1
    if outcome is up_record.StopOutcome.TIMED_OUT:
        print(
            f"agentry: `agentry up` (pid {record.pid}) did not stop within {args.timeout:.0f} s; "
            "it is still running",
            file=sys.stderr,
        )
        return 1
    print("Stopped: the service, and the Ray and Redis it started, are down.")
    return 0


def start_banner(service: RunningService, settings: Settings) -> str:
    """Where the service, its console and Ray's dashboard are, and how to sign in to each."""
    lines = [
        f"Agentry is serving on {service.url}  (OpenAPI: {service.url}/docs, console: {service.url}/console)"
    ]
    key_file = settings.data_dir / DEV_KEY_FILE
    if service.dev_key:
        lines.append(f"Dev API key for workspace 'default' (also in {key_file}):\n  {service.dev_key}")
    elif key_file.exists():
        lines.append(f"Dev API key: see {key_file}")
    if service.dashboard_url:
        line = f"Ray dashboard: {service.dashboard_url}"
        # Ray turns token authentication on for a local cluster unless RAY_AUTH_MODE says otherwise.
        if os.environ.get(RAY_AUTH_MODE_ENV, "").lower() == "token":
            line += f"  (its sign-in token: run `{agentry_command()} dashboard-token`)"
        lines.append(line)
    return "\n".join(lines)


def agentry_command() -> str:
    """How to run `agentry` from here: the bare name when it is on PATH, else its path."""
    found = shutil.which("agentry")
    script = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    if found and script is not None and Path(found).resolve() == script:
        return "agentry"
    if script is not None and script.name == "agentry":
        with contextlib.suppress(ValueError):
            return str(script.relative_to(Path.cwd()))
        return str(script)
    return f"{Path(sys.executable).name} -m serve.cli"


def cmd_dashboard_token() -> int:
    """Print the token Ray's dashboard (and Ray's CLI and SDK) ask for, the one `agentry up` made."""
    from ray._raylet import AuthenticationTokenLoader  # type: ignore[attr-defined]

    loader = AuthenticationTokenLoader.instance()
    try:
        token = (
            loader.get_raw_token(ignore_auth_mode=True) if loader.has_token(ignore_auth_mode=True) else None
        )
    except Exception as exc:  # Ray raises its own errors for an unreadable RAY_AUTH_TOKEN_PATH.
        print(f"agentry: Ray's token cannot be read: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    if not token:
        print(
            "agentry: no Ray token here (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token); "
            "`agentry up` makes one when it starts Ray",
            file=sys.stderr,
        )
        return 1
    print(token)
    return 0


def cmd_keys(settings: Settings, args: argparse.Namespace) -> int:
    if args.keys_command == "create":

        async def create(redis: aioredis.Redis) -> apikeys.IssuedKey:
            return await apikeys.issue_key(
                redis, args.workspace, label=args.label or "", rate_limit=args.rate_limit
            )

        issued = _with_store(settings, create)
        print(f"key_id: {issued.record.key_id}")
        print(f"key:    {issued.key}")
        print("Store the key now: it is not shown again.")
        return 0
    if args.keys_command == "list":

        async def listing(redis: aioredis.Redis) -> list[Any]:
            workspace = await apikeys.find_workspace(redis, args.workspace)
            return await apikeys.list_keys(redis, workspace.id)

        for record in _with_store(settings, listing):
            state = f"revoked {record.revoked_at}" if record.revoked_at else "active"
            print(f"{record.key_id}  {record.created_at}  {state}  {record.label}")
        return 0

    async def revoke(redis: aioredis.Redis) -> Any:
        return await apikeys.revoke_key(redis, args.key_id)

    record = _with_store(settings, revoke)
    print(f"revoked {record.key_id}")
    return 0


def cmd_extract(settings: Settings, args: argparse.Namespace) -> int:
    """Batch extraction on the Ray cluster; one JSON record per file (stdout, or --out)."""
    import json

    from actors.models.extraction import extraction_model
    from extraction.jobs.batch import extract_many

    fields = [name for name in args.fields.split(",") if name.strip()]
    if not fields:
        print("agentry: --fields names no field", file=sys.stderr)
        return 2
    records = extract_many(
        args.paths,
        fields,
        out=args.out,
        workers=args.workers,
        progress=not args.quiet,
        model=extraction_model(settings),
        timeout_seconds=args.timeout,
    )
    if not records:
        print("agentry: no file matches", file=sys.stderr)
        return 1
    if args.out is None:
        for record in records:
            print(json.dumps(record, ensure_ascii=False))
    failed = sum(1 for record in records if record["error"])
    print(f"{len(records) - failed} of {len(records)} files extracted", file=sys.stderr)
    return 1 if failed else 0


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentry", description="Run AI agents and document extraction.")
    commands = parser.add_subparsers(dest="command", required=True)

    up = commands.add_parser("up", help="start the service in the foreground")
    up.add_argument("--host")
    up.add_argument("--port", type=int)

    down = commands.add_parser("down", help="stop the service `agentry up` started (as Ctrl-C does)")
    down.add_argument(
        "--timeout",
        type=_positive_float,
        default=DOWN_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help=f"longest wait for it to stop (default {DOWN_TIMEOUT_SECONDS:.0f})",
    )

    keys_parser = commands.add_parser("keys", help="manage API keys")
    keys_commands = keys_parser.add_subparsers(dest="keys_command", required=True)
    create = keys_commands.add_parser("create", help="create a key (printed once)")
    create.add_argument("--workspace", required=True)
    create.add_argument("--label")
    create.add_argument("--rate-limit", help="this key's limit, e.g. 60/minute (default AGENTRY_RATE_LIMIT)")
    listing = keys_commands.add_parser("list", help="list a workspace's keys")
    listing.add_argument("--workspace", required=True)
    revoke = keys_commands.add_parser("revoke", help="revoke a key by id")
    revoke.add_argument("key_id")

    commands.add_parser(
        "dashboard-token", help="print the token that Ray's dashboard asks for when you sign in"
    )

    sandbox = commands.add_parser(
        "practice-sandbox", help="run the practice-management sandbox (a stand-in for tests and demos)"
    )
    add_sandbox_arguments(sandbox)

    extract = commands.add_parser("extract", help="extract fields from many files on the Ray cluster")
    extract.add_argument("paths", nargs="+", metavar="PATH_OR_GLOB")
    extract.add_argument(
        "--fields", required=True, help="comma-separated field names, e.g. invoice_number,total"
    )
    extract.add_argument("--out", help="write JSON Lines here instead of standard output")
    extract.add_argument(
        "--workers", type=_positive_int, help="files processed at once (default: the cluster's CPUs)"
    )
    extract.add_argument(
        "--timeout",
        type=_positive_float,
        metavar="SECONDS",
        help="longest one file's step may run (default AGENTRY_DOCUMENT_TIMEOUT_SECONDS, 120)",
    )
    extract.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings()
        logging.getLogger().setLevel(settings.log_level)
        if args.command == "up":
            return cmd_up(settings, args)
        if args.command == "down":
            return cmd_down(settings, args)
        if args.command == "dashboard-token":
            return cmd_dashboard_token()
        if args.command == "extract":
            return cmd_extract(settings, args)
        if args.command == "practice-sandbox":
            run_sandbox_from_args(args)
            return 0
        return cmd_keys(settings, args)
    except SettingsError as exc:
        print(f"agentry: {exc.message}", file=sys.stderr)
        return 2
    except AgentryError as exc:
        print(f"agentry: {exc.message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
