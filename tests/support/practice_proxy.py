"""A pass-through HTTP proxy in front of the practice sandbox that measures overlapping patient writes.

The sandbox's store upserts atomically, so it cannot show whether a client let two writes of the same
patient race (a real system that checks-then-inserts would create two records). This proxy holds each
save for `save_delay` seconds before forwarding it and records, per (account_id, patient_pcref), the
largest number of saves it had in flight at once.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import Counter
from types import TracebackType

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tools.practice.client import SAVE_PATIENT_PATH

#: Longest wait for the proxy thread to start listening or to stop.
STARTUP_DEADLINE_SECONDS = 10.0
_HOP_HEADERS = {"host", "content-length", "connection", "transfer-encoding"}


class MeasuringProxy:
    def __init__(self, target: str, *, save_delay: float = 0.05) -> None:
        self.target = target.rstrip("/")
        self.save_delay = save_delay
        self._in_flight: Counter[tuple[str, str]] = Counter()
        self._most: Counter[tuple[str, str]] = Counter()
        app = Starlette(
            routes=[Route("/{path:path}", self._forward, methods=["GET", "POST", "PUT", "DELETE"])]
        )
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self._server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        )
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="practice-proxy", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def most_concurrent_saves(self) -> int:
        """The most saves of one patient record that were in flight at the same moment."""
        return max(self._most.values(), default=0)

    def reset(self) -> None:
        self._most.clear()

    async def _forward(self, request: Request) -> Response:
        body = await request.body()
        key: tuple[str, str] | None = None
        if request.url.path == SAVE_PATIENT_PATH:
            envelope = json.loads(body)
            key = (str(envelope.get("account_id")), str(envelope.get("patient_pcref")))
            # Counted on the proxy's single event loop, so no lock is needed.
            self._in_flight[key] += 1
            self._most[key] = max(self._most[key], self._in_flight[key])
        try:
            if key is not None:
                await asyncio.sleep(self.save_delay)
            headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
            async with httpx.AsyncClient() as client:
                answer = await client.request(
                    request.method,
                    f"{self.target}{request.url.path}",
                    params=request.query_params,
                    content=body,
                    headers=headers,
                )
        finally:
            if key is not None:
                self._in_flight[key] -= 1
        return Response(
            answer.content, status_code=answer.status_code, media_type=answer.headers.get("content-type")
        )

    def __enter__(self) -> MeasuringProxy:
        self._thread.start()
        deadline = time.monotonic() + STARTUP_DEADLINE_SECONDS
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the measuring proxy did not start")
            time.sleep(0.01)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=STARTUP_DEADLINE_SECONDS)
        self._socket.close()
