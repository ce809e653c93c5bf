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

# What the edge refuses before any replica sees the request (HAProxy's rules, `serve.haproxy_launch`).
# RFC 9110 asks a server to take URIs of at least 8000 octets; twice that leaves room for long filters.
MAX_URL_BYTES = 16 * 1024
MAX_QUERY_PARAMS = 1000
#: Header lines (HAProxy's `req.fhdr_cnt`): a field listing many comma-separated values is one.
MAX_HEADER_FIELDS = 100
MAX_HEADER_BYTES = 32 * 1024
#: HAProxy must hold a whole request head to run any rule on it; a head larger than this, or with
#: more than `HEADER_FIELDS_PARSED` fields, is refused by its parser with its own HTML 400. The cost:
#: HAProxy takes up to two buffers of this size per request in flight (Serve's 16 KiB held neither a
#: 60 KB query nor a 100 KB header), and none for an idle keep-alive connection.
REQUEST_HEAD_BUFFER_BYTES = 128 * 1024
HEADER_FIELDS_PARSED = 1000
URL_TOO_LONG_MESSAGE = f"the URL is longer than {MAX_URL_BYTES} bytes"
TOO_MANY_PARAMS_MESSAGE = f"the query string has more than {MAX_QUERY_PARAMS} parameters"
TOO_MANY_HEADERS_MESSAGE = f"the request has more than {MAX_HEADER_FIELDS} header fields"
HEADERS_TOO_LARGE_MESSAGE = f"the request's header fields are larger than {MAX_HEADER_BYTES} bytes"
