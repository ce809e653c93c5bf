"""Fixtures of the extraction API tests: a workspace key, its HTTP client, a loopback web site."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support.service import wait_for


@pytest.fixture(scope="module")
def key(service: Service) -> str:
    return service.key()


@pytest.fixture
def api(service: Service, key: str) -> Iterator[httpx.Client]:
    with service.client(key) as client:
        yield client


def settle(api: httpx.Client, reply: httpx.Response, timeout: float = 180) -> dict:
    """The body of a sync reply once its job has ended.

    A sync call whose job outlives the wait budget answers `processing` with its `record_id`, and
    clients then poll the job; the tests do the same, so a slow, shared machine cannot fail them.
    """
    assert reply.status_code == 200, reply.text
    body: dict = reply.json()
    if body["status"] != "processing":
        return body

    def ended() -> dict | None:
        current: dict = api.get(f"/api/v2/jobs/{body['record_id']}").json()
        return current if current["status"] != "processing" else None

    return wait_for(ended, timeout=timeout, interval=0.25, what=f"job {body['record_id']}")


def upload(api: httpx.Client, data: bytes, filename: str = "doc.pdf") -> dict:
    reply = api.post("/api/v2/files", files={"file": (filename, data)})
    assert reply.status_code == 200, reply.text
    return reply.json()


class _Site(BaseHTTPRequestHandler):
    """Serves the documents of `LocalSite.pages` and a few behaviours chosen by path."""

    site: LocalSite

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        self.site.hosts.append(self.headers.get("Host", ""))
        path = self.path.split("?", 1)[0]
        if path.startswith("/hop/"):
            left = int(path.rsplit("/", 1)[1])
            target = "/doc.pdf" if left == 0 else f"/hop/{left - 1}"
            self._redirect(target)
        elif path == "/to-metadata":
            self._redirect("http://169.254.169.254/latest/meta-data/")
        elif path == "/slow":
            time.sleep(5)
            self._send(b"%PDF-1.4 late", "application/pdf")
        elif path == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/pdf")
            self.end_headers()
            chunk = b"0" * (1024 * 1024)
            try:
                self.wfile.write(b"%PDF-1.7\n")
                for _ in range(self.site.huge_mb):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                return
        elif path in self.site.pages:
            self._send(self.site.pages[path], "application/octet-stream")
        else:
            self.send_error(404)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@dataclass
class LocalSite:
    """A loopback web server for URL inputs; `url(path)` names a page on it."""

    pages: dict[str, bytes] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)
    huge_mb: int = 51
    port: int = 0

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    state = LocalSite()
    handler = type("Handler", (_Site,), {"site": state})
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
