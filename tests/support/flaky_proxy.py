"""A loopback HTTP proxy in front of the service that fails requests on cue: a stand-in for a bad
network or gateway (5xx answers, dropped connections, streams cut short), not for the service.

Each request is matched against the queued faults in order; the first fault whose path fragment
occurs in the request's path is used up, and the request is failed that way. Anything else is
forwarded to the service as it is, streamed back as it arrives.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

#: Headers that belong to one hop, so they are not passed on (HTTP/1.0 ends a body at the close).
_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


@dataclass
class Fault:
    #: The fault applies to the first request whose path contains this.
    path: str
    #: `status` answers `status_code` without forwarding; `drop` reads the request and closes the
    #: connection without an answer; `cut` forwards and closes after `events` SSE events.
    kind: str
    status_code: int = 503
    events: int = 1


@dataclass
class FlakyProxy:
    upstream: str
    faults: list[Fault] = field(default_factory=list)
    #: (method, path, Last-Event-ID header) of every request received, failed or not.
    seen: list[tuple[str, str, str | None]] = field(default_factory=list)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, path: str, kind: str, *, times: int = 1, status_code: int = 503, events: int = 1) -> None:
        with self.lock:
            self.faults += [Fault(path, kind, status_code, events) for _ in range(times)]

    def take(self, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.path in path:
                    self.faults.remove(fault)
                    return fault
        return None

    def count(self, method: str, fragment: str) -> int:
        return sum(1 for m, p, _ in self.seen if m == method and fragment in p)


class _Handler(BaseHTTPRequestHandler):
    proxy: FlakyProxy
    upstream: httpx.Client

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def _handle(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.proxy.seen.append((self.command, self.path, self.headers.get("Last-Event-ID")))
        fault = self.proxy.take(self.path)
        if fault is not None and fault.kind == "drop":
            self.close_connection = True
            return
        if fault is not None and fault.kind == "status":
            payload = json.dumps({"error": "injected by the test proxy"}).encode()
            self.send_response(fault.status_code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
        request = self.upstream.build_request(self.command, self.path, headers=headers, content=body)
        response = self.upstream.send(request, stream=True)
        try:
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in _HOP:
                    self.send_header(name, value)
            self.end_headers()
            events_left = fault.events if fault is not None and fault.kind == "cut" else None
            pending = b""
            for chunk in response.iter_raw():
                if events_left is None:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    continue
                # Pass on whole events only, then hang up as a broken network would.
                pending += chunk
                while b"\n\n" in pending:
                    part, pending = pending.split(b"\n\n", 1)
                    self.wfile.write(part + b"\n\n")
                    if not part.startswith(b":"):
                        events_left -= 1
                    if events_left == 0:
                        self.wfile.flush()
                        return
        except (BrokenPipeError, ConnectionResetError):
            return
        finally:
            response.close()


@contextmanager
def flaky_proxy(upstream: str) -> Iterator[FlakyProxy]:
    """A running proxy to `upstream` on a free loopback port."""
    proxy = FlakyProxy(upstream)
    with httpx.Client(base_url=upstream, timeout=httpx.Timeout(120.0, connect=10.0)) as client:
        handler = type("Handler", (_Handler,), {"proxy": proxy, "upstream": client})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield proxy
        finally:
            server.shutdown()
            server.server_close()
