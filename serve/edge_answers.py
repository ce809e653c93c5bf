"""What the edge answers itself, for requests our app could not answer: shared by Serve's Python
proxy middleware and the HAProxy config, so a client sees the same answer behind either ingress.

No imports: `agentry-haproxy` reads these on every HAProxy start, which must stay quick.
"""

from __future__ import annotations

INTERRUPTED_MESSAGE = (
    "the server handling this request stopped before it answered; retry shortly "
    "(a run it started goes on: find it with GET /api/v1/tasks)"
)
RETRY_AFTER_SECONDS = 2
BACKPRESSURE_MESSAGE = "the server is at capacity; retry after the time in Retry-After"
TIMEOUT_MESSAGE = "the request took longer than the server allows; retry shortly"
