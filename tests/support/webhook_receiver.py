"""A loopback HTTP server that receives webhook deliveries and checks their signatures."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def verify(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    """What a receiver does: HMAC-SHA256 over `<timestamp>.<body>`, compared in constant time."""
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(f"v1={expected}", signature)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int

    @property
    def json(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed

    def signed_by(self, secret: str) -> bool:
        return verify(
            secret, self.headers["x-agentry-timestamp"], self.body, self.headers["x-agentry-signature"]
        )


@dataclass
class Receiver:
    """Answers each path with the statuses queued for it (then 200); `url(path)` names one."""

    port: int = 0
    received: list[Received] = field(default_factory=list)
    answers: dict[str, list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def at(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == path]


class _Handler(BaseHTTPRequestHandler):
    receiver: Receiver

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with self.receiver.lock:
            queued = self.receiver.answers.get(self.path) or []
            status = queued.pop(0) if queued else 200
            headers = {k.lower(): v for k, v in self.headers.items()}
            self.receiver.received.append(Received(self.path, headers, body, status))
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextmanager
def receiver() -> Iterator[Receiver]:
    state = Receiver()
    handler = type("Handler", (_Handler,), {"receiver": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
