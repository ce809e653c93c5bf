"""Page cursors that are tamper-evident: an HMAC of the position, keyed by the service secret.

A cursor is `<position>.<tag>`: the position is what `core.infra.pagination` pages from, the tag an
HMAC-SHA256 (truncated to 128 bits) of the position and the list it was issued for (`list_scope`:
the route, its path ids, the workspace and the filters), under a key derived from
`Settings.resolved_secret()` for this purpose alone. A cursor that was altered, made up, issued for
another list, another workspace or other filters, or issued under a previous secret fails to open: a
400, never a first page and never a page of a list it was not issued for.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from functools import lru_cache

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from core.infra.errors import BadRequest

_HKDF_SALT = b"agentry/cursor/v1"
_TAG_BYTES = 16
_REFUSED = (
    "cursor is not a value returned by a previous page of this list (same workspace and filters); "
    "start again without it"
)
#: Query parameters that choose the page, not the list: they may change from page to page.
PAGE_PARAMETERS = frozenset({"cursor", "limit"})


@lru_cache(maxsize=8)
def cursor_key(secret: str) -> bytes:
    """The cursor signing key of a service secret (HKDF-SHA256, so it opens nothing else)."""
    if not secret:
        raise ValueError("cursors need a non-empty service secret")
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=b"page cursors")
    return hkdf.derive(secret.encode("utf-8"))


def list_scope(
    route: str, *, workspace_id: str, path_ids: Mapping[str, str], query: Iterable[tuple[str, str]]
) -> str:
    """The list a cursor belongs to: the route template, its path ids, the workspace and the filters.

    Every query parameter other than `cursor` and `limit` counts as a filter; their order does not
    matter, their values do (a filter changed between pages is another list).
    """
    filters = sorted((name, value) for name, value in query if name not in PAGE_PARAMETERS)
    scope = {"route": route, "path": sorted(path_ids.items()), "workspace": workspace_id, "filters": filters}
    return json.dumps(scope, separators=(",", ":"))


def _tag(position: str, *, key: bytes, scope: str) -> bytes:
    message = f"{scope}\n{position}".encode()
    return hmac.new(key, message, hashlib.sha256).digest()[:_TAG_BYTES]


def sign_cursor(position: str, *, key: bytes, scope: str) -> str:
    """The cursor a client gets for `position` of the list `scope`; empty stays empty (the end)."""
    if not position:
        return ""
    tag = base64.urlsafe_b64encode(_tag(position, key=key, scope=scope)).decode().rstrip("=")
    return f"{position}.{tag}"


def open_cursor(cursor: str, *, key: bytes, scope: str) -> str:
    """The position a cursor of the list `scope` names; 400 for any cursor this service did not issue."""
    position, dot, tag_text = cursor.rpartition(".")
    if not dot or not position:
        raise BadRequest(_REFUSED)
    try:
        tag = base64.urlsafe_b64decode(tag_text + "=" * (-len(tag_text) % 4))
    except (binascii.Error, ValueError):
        raise BadRequest(_REFUSED) from None
    if not hmac.compare_digest(tag, _tag(position, key=key, scope=scope)):
        raise BadRequest(_REFUSED)
    return position
