"""Requests with exactly the header fields a test gives (http.client adds `Host` alone), for the
edge's header-field limit: httpx adds fields of its own, and would fold nothing a test means to send."""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

from serve.edge_answers import MAX_HEADER_FIELDS

#: One field with 150 comma-separated values, and an `Accept` listing 101 media types: each one
#: header line, however many values it lists.
MANY_VALUES = [("X-Tags", ", ".join(f"tag-{n}" for n in range(150)))]
MANY_MEDIA_TYPES = [("Accept", ", ".join(f"application/x-type-{n};q=0.{n % 10}" for n in range(101)))]


def filler(count: int) -> list[tuple[str, str]]:
    return [(f"X-F{n}", "1") for n in range(count)]


def at_the_limit(given: list[tuple[str, str]], *, over: int = 0) -> list[tuple[str, str]]:
    """`given` and filler fields, with `Host`, making `MAX_HEADER_FIELDS + over` fields in all."""
    return given + filler(MAX_HEADER_FIELDS + over - 1 - len(given))


def send(base_url: str, path: str, fields: list[tuple[str, str]]) -> tuple[int, bytes]:
    """GET `path` with `Host` and `fields` only: the status and the body."""
    url = urlsplit(base_url)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=60)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        for name, value in fields:
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()
