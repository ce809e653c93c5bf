"""The practice-management sandbox: a real HTTP stand-in for the external system (docs/contract.md section 8).

It answers like the external system (a form-encoded client-credentials grant, bearer tokens that
expire, failures in the body, code 1013 for any incomplete envelope, HTTP 400 for an account the
client may not reach, an upsert by (account_id, patient_pcref)) and adds `/v2/sandbox/*` endpoints
that only tests and demos use: the stored records, the requests received, injected faults and forced
token expiry. Run it with `agentry practice-sandbox` or `python -m tools.practice.sandbox`.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hmac
import json
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from tools.practice.accounts import parse_allowed_accounts
from tools.practice.client import GET_PATIENT_PATH, SAVE_PATIENT_PATH, TOKEN_PATH
from tools.practice.envelope import is_complete_envelope
from tools.practice.sandbox_store import SandboxStore

#: Lifetime of a sandbox token when `--token-ttl` is not given.
DEFAULT_TOKEN_TTL_SECONDS = 3600
#: How many received requests `/v2/sandbox/requests` keeps (oldest dropped first).
MAX_LOGGED_REQUESTS = 10_000
#: How long `RunningSandbox.start` waits for the server to listen.
SERVER_START_TIMEOUT_SECONDS = 15.0
#: Code of a successful answer.
SUCCESS_CODE = 1000
#: docs/spec.md "Practice-management system" errors and docs/contract.md section 8: any incomplete body.
INVALID_REQUEST_CODE = 1013
INVALID_REQUEST_MSG = "Invalid JSON request format"
#: docs/spec.md "Practice-management system" errors: no patient for that id (get-patient).
PATIENT_NOT_FOUND_CODE = 1020
PATIENT_NOT_FOUND_MSG = "No patient found for the given patient_id"
#: Prefix of the test-only endpoints, which take no token.
SANDBOX_PREFIX = "/v2/sandbox"


@dataclass(frozen=True)
class SandboxConfig:
    """One sandbox: the single client it accepts, the accounts that client reaches, token lifetime, store."""

    client_id: str
    client_secret: str = field(repr=False)
    accounts: tuple[str, ...] = ()
    token_ttl: int = DEFAULT_TOKEN_TTL_SECONDS
    store_file: str | None = None
    #: Monotonic clock used for token expiry; tests may pass their own.
    clock: Callable[[], float] = time.monotonic


class SandboxFault(BaseModel):
    """An answer the sandbox gives instead of the real one, `count` times, to calls on `path` (or any)."""

    status: int = Field(ge=100, le=599)
    body: str = ""
    content_type: str = "application/json"
    count: int = Field(default=1, ge=1)
    path: str | None = None


def _answer(code: int, message: str) -> dict[str, Any]:
    return {"success": "False", "response_code": code, "response_msg": message}


class _SandboxState:
    """Everything one sandbox app holds. Tokens, faults and the request log are touched only on the
    event loop; the patient store is also called from worker threads and locks itself."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.store = SandboxStore(config.store_file)
        self.tokens: dict[str, float] = {}
        self.requests: deque[dict[str, Any]] = deque(maxlen=MAX_LOGGED_REQUESTS)
        self.faults: list[SandboxFault] = []

    def record(self, method: str, path: str, body: Any) -> None:
        self.requests.append(
            {"method": method, "path": path, "body": body, "at": dt.datetime.now(dt.UTC).isoformat()}
        )

    def take_fault(self, path: str) -> Response | None:
        for fault in self.faults:
            if fault.path is None or fault.path == path:
                fault.count -= 1
                if fault.count == 0:
                    self.faults.remove(fault)
                return Response(content=fault.body, status_code=fault.status, media_type=fault.content_type)
        return None

    def mint(self) -> str:
        now = self.config.clock()
        # Expired tokens are dropped here so a long-running demo does not accumulate them.
        self.tokens = {token: expiry for token, expiry in self.tokens.items() if expiry > now}
        token = secrets.token_urlsafe(32)
        self.tokens[token] = now + self.config.token_ttl
        return token

    def token_is_valid(self, authorization: str | None) -> bool:
        scheme, _, token = (authorization or "").partition(" ")
        expires_at = self.tokens.get(token.strip()) if scheme.lower() == "bearer" else None
        return expires_at is not None and self.config.clock() < expires_at

    def reaches(self, account_id: str) -> bool:
        return account_id in self.config.accounts


def _invalid_token() -> JSONResponse:
    return JSONResponse(
        {"error": "invalid_token"},
        status_code=401,
        headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
    )


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def build_sandbox_app(config: SandboxConfig) -> FastAPI:
    """The sandbox as an ASGI app (serve it with uvicorn, or use RunningSandbox / run_sandbox)."""
    state = _SandboxState(config)
    app = FastAPI(title="Practice-management sandbox", docs_url=None, redoc_url=None, openapi_url=None)

    @app.post(TOKEN_PATH)
    async def grant_token(request: Request) -> Response:
        """Client-credentials grant (form-encoded)."""
        form = dict(parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True))
        state.record(request.method, request.url.path, {**form, "client_secret": "***"} if form else form)
        if fault := state.take_fault(request.url.path):
            return fault
        if form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        client_ok = hmac.compare_digest(form.get("client_id", "").encode(), config.client_id.encode())
        secret_ok = hmac.compare_digest(form.get("client_secret", "").encode(), config.client_secret.encode())
        if not (client_ok and secret_ok):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        return JSONResponse(
            {"access_token": state.mint(), "token_type": "Bearer", "expires_in": config.token_ttl},
            headers={"Cache-Control": "no-store"},
        )

    async def open_call(request: Request) -> tuple[Any, Response | None]:
        """Record the call, then answer an injected fault or a bad token before the endpoint runs."""
        raw = await request.body()
        body = _json_or_none(raw)
        state.record(
            request.method, request.url.path, body if body is not None else raw.decode("utf-8", "replace")
        )
        if fault := state.take_fault(request.url.path):
            return body, fault
        if not state.token_is_valid(request.headers.get("authorization")):
            return body, _invalid_token()
        return body, None

    def unreachable(account_id: str) -> JSONResponse:
        return JSONResponse(
            {
                "success": "False",
                "error": "unauthorized_account",
                "response_msg": f"Client {config.client_id} is not authorized for account_id {account_id}",
            },
            status_code=400,
        )

    @app.post(SAVE_PATIENT_PATH)
    async def save_patient(request: Request) -> Response:
        """Upsert a patient by (account_id, patient_pcref)."""
        body, early = await open_call(request)
        if early is not None:
            return early
        if not is_complete_envelope(body):
            return JSONResponse(_answer(INVALID_REQUEST_CODE, INVALID_REQUEST_MSG))
        if not state.reaches(body["account_id"]):
            return unreachable(body["account_id"])
        record, _ = await asyncio.to_thread(state.store.upsert, body)
        return JSONResponse(
            {
                "success": "True",
                "response_code": SUCCESS_CODE,
                "patient_id": record["patient_id"],
                "mrn": record["mrn"],
                "patient_pcref": record["patient_pcref"],
            }
        )

    @app.post(GET_PATIENT_PATH)
    async def get_patient(request: Request) -> Response:
        """Read one patient by patient_id inside an account."""
        body, early = await open_call(request)
        if early is not None:
            return early
        if not (
            isinstance(body, dict)
            and isinstance(body.get("account_id"), str)
            and isinstance(body.get("patient_id"), str)
        ):
            return JSONResponse(_answer(INVALID_REQUEST_CODE, INVALID_REQUEST_MSG))
        if not state.reaches(body["account_id"]):
            return unreachable(body["account_id"])
        record = await asyncio.to_thread(state.store.get, body["account_id"], body["patient_id"])
        if record is None:
            return JSONResponse(_answer(PATIENT_NOT_FOUND_CODE, PATIENT_NOT_FOUND_MSG))
        return JSONResponse({"success": "True", "response_code": SUCCESS_CODE, "patient": record})

    @app.get(f"{SANDBOX_PREFIX}/patients")
    async def list_patients(account_id: str | None = None) -> dict[str, Any]:
        """Stored records, with how many saves created and how many updated one."""
        return await asyncio.to_thread(state.store.listing, account_id)

    @app.get(f"{SANDBOX_PREFIX}/requests")
    async def list_requests(path: str | None = None) -> dict[str, Any]:
        """Requests received (oldest first), optionally only those to one path."""
        return {"requests": [entry for entry in state.requests if path is None or entry["path"] == path]}

    @app.post(f"{SANDBOX_PREFIX}/faults")
    async def add_fault(fault: SandboxFault) -> dict[str, Any]:
        """Queue an injected answer for the next matching calls."""
        state.faults.append(fault)
        return {"pending_faults": len(state.faults)}

    @app.post(f"{SANDBOX_PREFIX}/tokens/expire")
    async def expire_tokens() -> dict[str, Any]:
        """Expire every token issued so far, as if their lifetime had passed."""
        expired = len(state.tokens)
        state.tokens.clear()
        return {"expired": expired}

    return app


class RunningSandbox:
    """A sandbox served by uvicorn on a background thread, on a port the OS picks when `port` is 0."""

    def __init__(self, config: SandboxConfig, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.config = config
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.host, self.port = self._socket.getsockname()[:2]
        self._server = uvicorn.Server(
            uvicorn.Config(build_sandbox_app(config), log_level="warning", access_log=False, lifespan="off")
        )
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="practice-sandbox", daemon=True
        )

    @property
    def url(self) -> str:
        """Base URL of the running sandbox."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> RunningSandbox:
        """Start serving; return once the server listens (RuntimeError if it does not within the timeout)."""
        self._thread.start()
        deadline = time.monotonic() + SERVER_START_TIMEOUT_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the practice sandbox did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread to end."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=SERVER_START_TIMEOUT_SECONDS)
        self._socket.close()

    def __enter__(self) -> RunningSandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def run_sandbox(
    *,
    host: str,
    port: int,
    client_id: str,
    client_secret: str,
    accounts: list[str],
    token_ttl: int,
    store_file: str | None,
) -> None:
    """Serve the sandbox in the foreground until interrupted."""
    if token_ttl <= 0:
        raise ValueError("token_ttl must be a positive number of seconds")
    config = SandboxConfig(
        client_id=client_id,
        client_secret=client_secret,
        accounts=tuple(accounts),
        token_ttl=token_ttl,
        store_file=store_file,
    )
    uvicorn.run(build_sandbox_app(config), host=host, port=port, log_level="info", access_log=False)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `agentry practice-sandbox` (and `python -m tools.practice.sandbox`)."""
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    parser.add_argument("--accounts", required=True, help="comma-separated account ids the client reaches")
    parser.add_argument(
        "--token-ttl", type=int, default=DEFAULT_TOKEN_TTL_SECONDS, help="token lifetime, seconds"
    )
    parser.add_argument("--store", default=None, help="JSON file that keeps the records across restarts")


def run_from_args(args: argparse.Namespace) -> None:
    run_sandbox(
        host=args.host,
        port=args.port,
        client_id=args.client_id,
        client_secret=args.client_secret,
        accounts=parse_allowed_accounts(args.accounts),
        token_ttl=args.token_ttl,
        store_file=args.store,
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.practice.sandbox", description=__doc__)
    add_arguments(parser)
    run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    main()
